"""What every ingest pipeline shares.

* ``archive``: reading a folder or a safely extracted archive, within the entry and size limits;
* ``metadata``: who ran it, on what (options, ``ioboard.yaml`` sidecars, info values, and the one
  definition of the public archive layout ``Institution/System/Filesystem/Year/submission-N``);
* ``common``: ``IngestError``, the configured archive limits, and storing text in model fields
  cut to their ``max_length``;
* ``pipeline``: what a pipeline is, and what the log-by-log pipelines share.

``archive`` and ``metadata`` are plain Python (parsers may use them); ``common`` and ``pipeline`` know
Django. The pipelines built on this core live in their tools' folders, ``apps/ingest/tools/<tool>/pipeline.py``,
and are registered, and chosen by kind, in ``apps.ingest.pipelines``.
"""
