"""Finding IO500 result sets in submission trees: layouts, junk, odd paths, copies, nothing-to-score."""

import shutil
import zipfile

from apps.ingest.parsers.errors import ParseError
from apps.ingest.tools.io500.grammar import find_result_sets, parse_result_set, parse_tree
from apps.ingest.tools.io500.records import IO500RunRecord
from tests.ingest.tools.io500.io500_samples import (
    BASH_RUN,
    CAPP_RUN,
    EXTENDED_RUN,
    PRODUCT_RUN,
    SAMPLES,
    SC17_RUN,
    copy_sample,
    edit_lines,
)


def relative(paths, root):
    return [p.relative_to(root).as_posix() for p in paths]


def test_it_finds_one_result_set_per_run_in_every_layout():
    found = relative(find_result_sets(SAMPLES), SAMPLES)
    assert found == sorted([PRODUCT_RUN, BASH_RUN, EXTENDED_RUN, CAPP_RUN, SC17_RUN])


def test_the_sc17_family_files_belong_to_the_job_output_above_them():
    found = relative(find_result_sets(SAMPLES / "sc17-product"), SAMPLES / "sc17-product")
    assert found == ["submission-109/JCAHPC-17/jcahpc"]


def test_sc17_family_files_alone_are_a_result_set(tmp_path):
    tree = copy_sample("sc17-product", tmp_path)
    (tree / "submission-109/JCAHPC-17/jcahpc/2048-8.227609.out").unlink()
    found = relative(find_result_sets(tree), tree)
    assert found == ["submission-109/JCAHPC-17/jcahpc/io500-results-2048-8.227609"]


def test_it_ignores_appledouble_swap_files_and_archives(tmp_path):
    tree = copy_sample("bash-results", tmp_path)
    results = tree / "submission-100/results"
    before = parse_result_set(tree, results)
    (results / "._result_summary.txt").write_bytes(b"\x00\x05\x16\x07Mac OS X        \x00\x02\xff\xfe")
    (results / ".result_summary.txt.swp").write_bytes(b"b0VIM 8.2\x00\x00" * 100)
    (results / "._io-500-summary.2019.06.07-09.57.17.txt").write_bytes(b"\x00\x05\x16\x07")
    with zipfile.ZipFile(tree / "submission-100/results.zip", "w") as archive:
        archive.write(results / "result_summary.txt", "results/result_summary.txt")
    shutil.copy(results / "result_summary.txt", tree / "submission-100/copy.tgz")
    assert relative(find_result_sets(tree), tree) == ["submission-100/results"]
    after = parse_result_set(tree, results)
    assert after.content_hash == before.content_hash
    assert after.reported_score == before.reported_score


def test_it_survives_spaces_hashes_colons_and_slashes_in_paths(tmp_path):
    odd = tmp_path / "Janelia Research Campus, HHMI" / "dm11" / "work " / " fs2" / "2019" / "submission-188"
    shutil.copytree(SAMPLES / CAPP_RUN, odd / "results" / "G:" / "#N A")
    found = find_result_sets(tmp_path)
    assert relative(found, tmp_path) == [
        "Janelia Research Campus, HHMI/dm11/work / fs2/2019/submission-188/results/G:/#N A",
    ]
    record = parse_result_set(tmp_path, found[0])
    assert record.source_path == relative(found, tmp_path)[0]
    assert record.metadata["institution"] == "Janelia Research Campus, HHMI"
    assert record.metadata["system"] == "dm11"
    assert record.metadata["filesystem"] == "work / fs2"
    assert record.metadata["year"] == 2019
    assert record.metadata["submission_id"] == "188"


def test_submissions_are_located_by_folder_name_not_depth(tmp_path):
    deep = tmp_path / "Stanford" / "Sherlock" / "Regal" / "Sherlock" / "Regal" / "2019" / "submission-184"
    shutil.copytree(SAMPLES / BASH_RUN, deep / "results")
    record = parse_result_set(tmp_path, find_result_sets(tmp_path)[0])
    assert record.metadata["filesystem"] == "Regal/Sherlock/Regal"
    assert record.metadata["submission_id"] == "184"


def test_a_submission_root_summary_that_is_another_run_is_recorded_not_ingested(tmp_path):
    tree = copy_sample("capp-result-dir", tmp_path)
    submission = tree / "submission-686"
    copy = submission / "result_summary.txt"
    shutil.copy(submission / "results/2023.10.25-16.06.23/result_summary.txt", copy)
    edit_lines(copy, lambda lines: [line.replace("TOTAL 6.646581", "TOTAL 7.000000") for line in lines])
    assert relative(find_result_sets(tree), tree) == ["submission-686/results/2023.10.25-16.06.23"]
    record = parse_result_set(tree, find_result_sets(tree)[0])
    differs = record.evidence.summary_differs_from_run
    assert differs["source_file"] == "submission-686/result_summary.txt"
    assert differs["toplevel_total"] == "7.000000"
    assert differs["run_total"] == record.reported_score.total == 6.646581
    assert differs["differences"] == [{"score": "total", "toplevel": "7.000000", "run": 6.646581, "line": 15}]
    assert record.verification == "verified"


def test_an_identical_submission_root_summary_is_noted_as_a_copy(tmp_path):
    tree = copy_sample("capp-result-dir", tmp_path)
    shutil.copy(tree / CAPP_RUN.split("/", 1)[1] / "result_summary.txt", tree / "submission-686/result_summary.txt")
    record = parse_result_set(tree, find_result_sets(tree)[0])
    assert record.evidence.toplevel_summary == {
        "source_file": "submission-686/result_summary.txt",
        "identical": True,
    }
    assert record.evidence.summary_differs_from_run is None


def test_a_root_summary_repeating_another_run_of_the_bundle_is_not_a_disagreement(tmp_path):
    bundle = tmp_path / "submission-109"
    shutil.copytree(SAMPLES / BASH_RUN, bundle / "NCI" / "results")
    shutil.copytree(SAMPLES / PRODUCT_RUN, bundle / "CERN" / "results")
    shutil.copy(bundle / "NCI/results/result_summary.txt", bundle / "result_summary.txt")
    records = {r.source_path: r for r in parse_tree(tmp_path)}
    assert sorted(records) == ["submission-109/CERN/results", "submission-109/NCI/results"]
    nci, cern = records["submission-109/NCI/results"], records["submission-109/CERN/results"]
    assert nci.evidence.toplevel_summary == {
        "source_file": "submission-109/result_summary.txt",
        "identical": True,
    }
    assert cern.evidence.toplevel_summary["copy_of"] == "submission-109/NCI/results"
    assert cern.evidence.summary_differs_from_run is None


def test_several_runs_in_one_submission_are_separate_result_sets(tmp_path):
    bundle = tmp_path / "DKRZ" / "Mistral" / "lustre02" / "2019" / "submission-109"
    shutil.copytree(SAMPLES / BASH_RUN, bundle / "NCI" / "results")
    shutil.copytree(SAMPLES / PRODUCT_RUN, bundle / "CERN" / "results")
    shutil.copytree(SAMPLES / SC17_RUN, bundle / "JCAHPC-17" / "jcahpc")
    with zipfile.ZipFile(bundle / "NCI.zip", "w") as archive:
        archive.write(bundle / "NCI/results/result_summary.txt", "NCI/results/result_summary.txt")
    records = [item for item in parse_tree(tmp_path)]
    assert all(isinstance(item, IO500RunRecord) for item in records)
    assert sorted(r.source_path.split("/submission-109/")[1] for r in records) == [
        "CERN/results",
        "JCAHPC-17/jcahpc",
        "NCI/results",
    ]
    assert len({r.content_hash for r in records}) == 3
    assert {r.metadata["submission_id"] for r in records} == {"109"}


def test_parse_tree_reports_submissions_with_nothing_to_score(tmp_path):
    gen = tmp_path / "Janelia" / "nrs" / "Qumulo" / "2019" / "submission-194"
    gen.mkdir(parents=True)
    (gen / "output.txt").write_text(
        "\n[START TIME] 2019-05-15 08:39:06-04:00\n\n[IOR EASY WRITE]\nIOR-3.2.0: MPI Coordinated Test\n"
        "[IO-500 COMPLETED] Result also in x.txt; Now use io-500-score.sh to compute the score\n"
    )
    (gen / "io500.cfg").write_text("echo [IOR EASY WRITE]\n")
    scripts_only = tmp_path / "Janelia" / "Vast" / "Qumulo" / "2019" / "submission-177"
    scripts_only.mkdir(parents=True)
    (scripts_only / "io500.sh").write_text("#!/bin/bash\nio500_info_num_client_nodes='10'\n")
    shutil.copytree(SAMPLES / BASH_RUN, tmp_path / "NCI" / "Raijin" / "Gdata4" / "2019" / "submission-100" / "results")
    items = list(parse_tree(tmp_path))
    errors = {e.path: e.message for e in items if isinstance(e, ParseError)}
    assert len([i for i in items if isinstance(i, IO500RunRecord)]) == 1
    assert "io-500-gen output without a score" in errors["Janelia/nrs/Qumulo/2019/submission-194"]
    assert "output.txt" in errors["Janelia/nrs/Qumulo/2019/submission-194"]
    assert "no IO500 result files" in errors["Janelia/Vast/Qumulo/2019/submission-177"]
    assert "io500.sh" in errors["Janelia/Vast/Qumulo/2019/submission-177"]
    assert find_result_sets(gen) == []


def test_many_io500_summaries_in_one_folder_are_one_run_with_its_attempts_listed(tmp_path):
    tree = copy_sample("bash-results", tmp_path)
    results = tree / "submission-100/results"
    (results / "io-500-summary.2019.06.06-10.00.00.txt").write_text(
        "date=2019.06.06-10.00.00\n"
        "[RESULT] BW   phase 1            ior_easy_write               60.000 GB/s : time 301.00 seconds\n"
        "[RESULT] IOPS phase 1         mdtest_easy_write              130.000 kiops : time 302.00 seconds\n"
    )
    (results / "io-500-summary.2019.06.06-12.00.00.txt").write_text(
        "[RESULT-invalid] IOPS phase 2  mdtest_hard_write  448.105 kiops : time 218.46 seconds\n"
        "[SCORE-invalid] Bandwidth 0 GB/s : IOPS 0 kiops : TOTAL 0\n"
    )
    assert relative(find_result_sets(tree), tree) == ["submission-100/results"]
    record = parse_result_set(tree, results)
    assert record.reported_score.total == 37.6208
    assert record.evidence.stdout_summary.endswith("io-500-summary.2019.06.07-09.57.17.txt")
    attempts = record.evidence.other_summary_attempts
    assert {
        "source_file": "submission-100/results/io-500-summary.2019.06.06-10.00.00.txt",
        "source_line": None,
        "score_line": None,
        "phases_without_score": ["ior_easy_write", "mdtest_easy_write"],
    } in attempts
    assert any(a["score_line"] == "[SCORE-invalid] Bandwidth 0 GB/s : IOPS 0 kiops : TOTAL 0" for a in attempts)


def test_the_root_itself_can_be_the_result_directory():
    run = SAMPLES / CAPP_RUN
    assert find_result_sets(run) == [run]
    assert parse_result_set(run, run).source_path == "."


def test_a_missing_or_empty_root_has_no_result_sets(tmp_path):
    assert find_result_sets(tmp_path / "absent") == []
    assert find_result_sets(tmp_path) == []
    assert list(parse_tree(tmp_path)) == []
