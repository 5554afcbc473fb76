"""One pipeline per upload kind, in its tool's folder, registered once and chosen by the upload's kind; the core
they share."""

import pytest
from django.core.management import CommandError, call_command

from apps.ingest.core.common import IngestError, fit
from apps.ingest.core.pipeline import Pipeline
from apps.ingest.management.commands.ingest import Command
from apps.ingest.pipelines import PIPELINES, ingest_upload, pipeline_for
from apps.ingest.tools import TOOLS, upload_kinds
from apps.results.models import LustrePatch, PhaseResult, Upload
from tests.conftest import REPO_ROOT


def test_every_upload_kind_has_exactly_one_pipeline_and_there_is_none_for_another_kind():
    assert list(upload_kinds()) == ["io500", "mdtest", "ior", "stack"]
    assert sorted(PIPELINES) == sorted(upload_kinds())
    for kind, pipeline in PIPELINES.items():
        assert isinstance(pipeline, Pipeline)
        assert pipeline.kind == kind
        assert pipeline_for(kind) is pipeline


def test_a_tools_pipeline_lives_in_its_folder_and_every_pipeline_module_is_registered():
    folders_with_a_pipeline = sorted(
        path.parent.name for path in (REPO_ROOT / "apps/ingest/tools").glob("*/pipeline.py")
    )

    assert folders_with_a_pipeline == sorted(PIPELINES)
    for kind, pipeline in PIPELINES.items():
        assert TOOLS[kind].ingest is not None
        assert pipeline.ingest_upload.__module__ == f"apps.ingest.tools.{kind}.pipeline"
        assert pipeline.ingest_paths.__module__ == f"apps.ingest.tools.{kind}.pipeline"


def test_an_upload_of_an_unknown_kind_is_bad_content_naming_the_kind():
    with pytest.raises(IngestError, match=r"no ingest pipeline for kind 'hdf5'; known: io500, ior, mdtest, stack"):
        ingest_upload(Upload(kind="hdf5", original_name="x.tar.gz"))


def test_the_command_offers_exactly_the_registered_kinds():
    with pytest.raises(CommandError, match="invalid choice: 'hdf5'"):
        call_command("ingest", "--kind", "hdf5", "somewhere")


def test_a_pipeline_reports_a_missing_option_as_a_command_error():
    with pytest.raises(CommandError, match="--series NAME is required with --kind mdtest"):
        call_command("ingest", "--kind", "mdtest", "log.txt")
    with pytest.raises(CommandError, match="give at least one PATH"):
        call_command("ingest")


def test_text_is_cut_to_the_column_the_model_declares():
    # PhaseResult.printed_unit is a 20-character column, LustrePatch.ticket a 32-character one.
    assert fit(PhaseResult, "printed_unit", "G" * 30) == "G" * 20
    assert fit(LustrePatch, "ticket", "LU-12345") == "LU-12345"
    assert fit(LustrePatch, "ticket", None) == ""


def test_an_option_two_tools_declare_is_offered_once_naming_each_use():
    usage = " ".join(Command().create_parser("manage.py", "ingest").format_help().split())

    assert (
        "--manifest FILE mdtest: manifest CSV (log, mdt_count, client_nodes, tasks, files_per_dir, striping, "
        "label); ior: CSV of log, then axis columns"
    ) in usage
    assert "--margin MARGIN ior: the study's equivalence margin as a fraction (default 0.05 = 5 %)" in usage
