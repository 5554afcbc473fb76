"""Ingest pipelines, one per input kind, on the shared core (``apps.ingest.core``).

``PIPELINES`` maps an upload kind (``Upload.Kind``, the ``ingest --kind`` option) to its
``Pipeline``. The Celery upload task, API uploads (through that task) and the ``ingest`` command
all go through ``pipeline_for``; nothing else chooses by kind.

Adding a kind: write ``apps/ingest/pipelines/<kind>.py`` ending in
``PIPELINE = Pipeline(kind=..., ingest_upload=..., ingest_paths=...)``, add it to ``PIPELINES``
below and its value to ``Upload.Kind``, and test it like ``tests/ingest/test_mdtest_pipeline.py``.
"""

from __future__ import annotations

from apps.ingest.core.common import IngestError
from apps.ingest.pipelines import io500, ior, mdtest, stack
from apps.ingest.pipelines.base import Pipeline

PIPELINES: dict[str, Pipeline] = {
    pipeline.kind: pipeline
    for pipeline in (
        io500.PIPELINE,
        mdtest.PIPELINE,
        ior.PIPELINE,
        stack.PIPELINE,
    )
}


def pipeline_for(kind: str) -> Pipeline:
    """The pipeline of ``kind``; an unknown kind is bad content, not a crash."""
    try:
        return PIPELINES[kind]
    except KeyError:
        raise IngestError(f"no ingest pipeline for kind {kind!r}; known: {', '.join(sorted(PIPELINES))}") from None


def ingest_upload(upload) -> list:
    """Ingest a stored upload with the pipeline of its kind (all or nothing; raises ``IngestError``)."""
    return pipeline_for(upload.kind).ingest_upload(upload)
