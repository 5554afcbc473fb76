"""A bottom-up benchmarking campaign (stack.yaml, manifest.csv and one log per measurement) into a stack.

``campaign.py`` reads the campaign completely, every log through its tool's reader in this package;
``pipeline.py`` stores it as one ``Stack``. See ``docs/stacks.md``.
"""

from apps.ingest.tools.base import Ingest, Option, Tool, UploadField

TOOL = Tool(
    name="stack",
    reads="a bottom-up campaign: stack.yaml, manifest.csv (log, component, layer, operation, tool) and the logs",
    ingest=Ingest(
        label="bottom-up campaign",
        stores="a stack (a bottom-up campaign archive or folder)",
        options=(Option("--name", "stack: the name of the bottom-up campaign (default: stack.yaml's)"),),
        upload_fields=(
            UploadField("stack", "stack name (kind=stack: an archive of a bottom-up campaign)", value="slug"),
        ),
    ),
)
