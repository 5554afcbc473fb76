"""``PIPELINES``, the one registry of ingest pipelines (one per upload kind), and the dispatcher by kind.

Each upload kind's pipeline lives in its tool's folder (``apps/ingest/tools/<tool>/pipeline.py``, ending in
``PIPELINE = Pipeline(...)``) and is imported here by name, so the path from an upload to the code that
stores it is an import anyone (and any tool reading imports) can follow. It is not in ``TOOLS``
(``apps.ingest.tools``) because the tools registry is plain Python and a pipeline is Django; an upload kind is
therefore one entry there and one here, and ``tests/ingest/test_pipelines.py`` fails when the two disagree.

The Celery upload task, API uploads (through that task) and the ``ingest`` command all go through
``pipeline_for``, which reads ``PIPELINES`` at call time (a test's stub kind is dispatched too); nothing else
chooses a pipeline by kind.
"""

from __future__ import annotations

from apps.ingest.core.common import IngestError
from apps.ingest.core.pipeline import Pipeline
from apps.ingest.tools.io500 import pipeline as io500
from apps.ingest.tools.ior import pipeline as ior
from apps.ingest.tools.mdtest import pipeline as mdtest
from apps.ingest.tools.stack import pipeline as stack
from apps.results.models import Upload

PIPELINES: dict[str, Pipeline] = {
    pipeline.kind: pipeline for pipeline in (io500.PIPELINE, mdtest.PIPELINE, ior.PIPELINE, stack.PIPELINE)
}


def pipeline_for(kind: str) -> Pipeline:
    """The pipeline of the upload kind ``kind``; an unknown kind is bad content, not a crash."""
    if kind not in PIPELINES:
        raise IngestError(f"no ingest pipeline for kind {kind!r}; known: {', '.join(sorted(PIPELINES))}")
    return PIPELINES[kind]


def ingest_upload(upload: Upload) -> list:
    """Ingest a stored upload with the pipeline of its kind (all or nothing; raises ``IngestError``)."""
    return pipeline_for(upload.kind).ingest_upload(upload)
