"""RunEvidence: the typed evidence an IO500 record carries for the anomaly rules."""

from apps.ingest.tools.io500.records import IO500RunRecord, RunEvidence


def test_a_new_record_has_nothing_to_say():
    assert IO500RunRecord(source_path="x", era="capp").evidence.to_dict() == {}


def test_only_fields_that_say_something_are_written_out():
    evidence = RunEvidence(rules="scc", scc=True, min_write_seconds=30, missing_raw_files=[])

    assert evidence.to_dict() == {"rules": "scc", "scc": True, "min_write_seconds": 30, "missing_raw_files": []}


def test_reading_back_ignores_keys_this_version_does_not_know():
    evidence = RunEvidence.from_dict({"mode": "extended", "written_by_a_newer_version": 1})

    assert evidence == RunEvidence(mode="extended")
