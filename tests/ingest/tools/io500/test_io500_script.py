"""bash io500.sh era and SC17 result directories: summaries, stdout copies, raw outputs, formulas."""

import shutil
from datetime import datetime

import pytest

from apps.ingest.parsers.errors import ParseError
from apps.ingest.tools.io500.grammar import find_result_sets, parse_result_set
from tests.ingest.tools.io500.io500_samples import (
    BASH_RUN,
    PRODUCT_RUN,
    RAW,
    SAMPLES,
    SC17_RUN,
    copy_sample,
    edit_lines,
)

SUMMARY = "submission-100/results/result_summary.txt"
STDOUT = "submission-100/results/io-500-summary.2019.06.07-09.57.17.txt"


@pytest.fixture
def bash_run(tmp_path):
    tree = copy_sample("bash-results", tmp_path)
    return tree, tree / "submission-100/results"


def test_it_reads_a_bash_results_folder():
    record = parse_result_set(SAMPLES, SAMPLES / BASH_RUN)
    assert (record.era, record.generation, record.score_formula) == ("script", "bash-sqrt", "sqrt")
    assert record.run_timestamp == datetime(2019, 6, 7, 9, 57, 17)
    assert (record.client_nodes, record.client_procs, record.procs_per_node) == (10, 180, 18)
    assert [p.name for p in record.phases] == [
        "ior_easy_write",
        "mdtest_easy_write",
        "ior_hard_write",
        "mdtest_hard_write",
        "find",
        "ior_easy_read",
        "mdtest_easy_stat",
        "ior_hard_read",
        "mdtest_hard_stat",
        "mdtest_easy_delete",
        "mdtest_hard_read",
        "mdtest_hard_delete",
    ]
    easy = record.phases[0]
    assert (easy.value, easy.unit, easy.printed_value, easy.printed_unit) == (
        62.453,
        "GiB/s",
        "62.453",
        "GB/s",
    )
    assert easy.seconds == 368.92
    assert easy.command.startswith("/g/data4/io500/io-500-dev/bin/ior -w")
    assert (easy.source_file, easy.source_line) == (f"bash-results/{SUMMARY}", 1)
    assert abs(easy.details["raw_value"] - 62.453) < 1e-3
    find = record.phases[4]
    assert find.details["scanned"] > find.details["found"] > 0
    assert find.command.startswith("mpirun --allow-run-as-root -hostfile hosts.10")
    assert "/bin/pfind /g/data4/io500/datafiles" in find.command
    assert record.reported_score.total == 37.6208
    assert abs(record.computed_score.total - 37.6208) / 37.6208 < 1e-4
    assert record.verification == "not_verifiable"
    assert record.valid
    assert record.config["variables"]["io500_stonewall_timer"] == "0"
    assert record.config["rules"] == "regular"
    assert record.config["stonewall_time"] == 0
    assert record.info["institute_name"] == "NCI Australia"
    assert record.info["num_client_nodes"] == "10"
    assert record.evidence.declared_client_nodes == {"value": 10, "source": "io500_info_num_client_nodes"}
    assert "../io500.sh" in record.raw_files
    assert record.metadata["submission_id"] == "100"
    assert record.metadata["lustre_version"].startswith("filesystem_version=2.10.7")


def test_it_reports_whether_mdtest_read_back_phases_shifted_ranks(bash_run):
    record = parse_result_set(SAMPLES, SAMPLES / BASH_RUN)
    assert record.evidence.mdtest_rank_shift == dict.fromkeys(
        (
            "mdtest_easy_stat",
            "mdtest_hard_stat",
            "mdtest_easy_delete",
            "mdtest_hard_read",
            "mdtest_hard_delete",
        ),
        False,
    )
    tree, results = bash_run
    edit_lines(
        results / "mdtest_easy_stat.txt",
        lambda lines: [line.replace('"-T" "-F"', '"-T" "-N" "1" "-F"') for line in lines],
    )
    assert parse_result_set(tree, results).evidence.mdtest_rank_shift["mdtest_easy_stat"] is True
    assert record.evidence.write_phases["mdtest_hard_write"]["source_line"] == 4


def test_it_detects_the_product_formula_of_the_early_scripts():
    record = parse_result_set(SAMPLES, SAMPLES / PRODUCT_RUN)
    assert (record.generation, record.score_formula) == ("bash-product", "product")
    assert record.reported_score.total == 36.0674
    assert abs(record.computed_score.total - 6.005951596) / 6.005951596 < 1e-6
    product = record.evidence.product_score
    assert abs(product["recomputed_product"] - 36.0674) / 36.0674 < 1e-3
    assert record.client_nodes == 64


def test_it_rejects_truncated_summary(tmp_path):
    tree = copy_sample("bash-results", tmp_path)
    results = tree / "submission-100/results"
    (results / STDOUT.rsplit("/", 1)[1]).unlink()
    edit_lines(results / "result_summary.txt", lambda lines: lines[:7])
    with pytest.raises(ParseError, match="truncated summary") as caught:
        parse_result_set(tree, results)
    assert caught.value.path == SUMMARY


def test_a_cut_summary_falls_back_to_the_stdout_copy_of_the_same_run(bash_run):
    tree, results = bash_run
    edit_lines(results / "result_summary.txt", lambda lines: lines[:7])
    record = parse_result_set(tree, results)
    assert record.reported_score.total == 37.6208
    assert record.phases[0].source_file == STDOUT
    assert any("no [SCORE] line" in warning for warning in record.warnings)


def test_it_names_the_line_of_a_garbled_result_line(bash_run):
    tree, results = bash_run
    edit_lines(
        results / "result_summary.txt",
        lambda lines: [line.replace("IOPS phase 3", "IOPS phase three") for line in lines],
    )
    with pytest.raises(ParseError) as caught:
        parse_result_set(tree, results)
    assert (caught.value.path, caught.value.line) == (SUMMARY, 5)


def test_a_missing_phase_under_an_unmarked_score_is_rejected(bash_run):
    tree, results = bash_run
    summary = results / "result_summary.txt"
    edit_lines(summary, lambda lines: [line for line in lines if "mdtest_hard_read" not in line])
    with pytest.raises(ParseError, match="missing phases mdtest_hard_read"):
        parse_result_set(tree, results)


def test_invalid_markers_are_kept_as_reasons_and_invalidate(bash_run):
    tree, results = bash_run
    edit_lines(
        results / "result_summary.txt",
        lambda lines: [
            line.replace("[RESULT]", "[RESULT-invalid]")
            if "mdtest_hard_write" in line
            else line.replace("[SCORE]", "[SCORE-invalid]")
            for line in lines
        ],
    )
    record = parse_result_set(tree, results)
    assert record.valid is False
    assert [p.name for p in record.phases if p.invalid] == ["mdtest_hard_write"]
    assert record.invalid_reasons == [
        f"{SUMMARY}:13: [SCORE-invalid]",
        f"{SUMMARY}:4: [RESULT-invalid] mdtest_hard_write (time 393.10 s)",
    ]


def test_crlf_line_ends_and_undecodable_bytes_change_nothing(bash_run):
    tree, results = bash_run
    before = parse_result_set(tree, results)
    for path in results.iterdir():
        path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    script = tree / "submission-100/io500.sh"
    script.write_bytes(script.read_bytes().replace(b"# e.g. JCAHPC", b"# \xff\xfe Intel\xae SSD"))
    after = parse_result_set(tree, results)
    assert [(p.name, p.value, p.seconds, p.command) for p in after.phases] == [
        (p.name, p.value, p.seconds, p.command) for p in before.phases
    ]
    assert after.reported_score == before.reported_score
    assert after.client_nodes == before.client_nodes
    assert after.info["institute_name"] == "NCI Australia"


def test_very_long_nodemap_lines_are_streamed(bash_run):
    tree, results = bash_run
    edit_lines(
        results / "mdtest_easy_write.txt",
        lambda lines: [*lines[:5], "Nodemap: " + "10" * 40000 + "\n", *lines[5:]],
    )
    record = parse_result_set(tree, results)
    assert record.phases[1].details["raw_rate_ops"] == 136095.783


def test_sc18_stonewall_inflation_leaves_evidence(bash_run):
    tree, results = bash_run
    # ORNL Summit submission-92 (SC18): the create rate counts planned items, the ranks stopped at <= 60319.
    shutil.copy(RAW / "mdtest-1.9.3-sc18-inflated-rate.txt", results / "mdtest_easy_write.txt")
    edit_lines(
        results / "result_summary.txt",
        lambda lines: [line.replace("136.096 kiops : time 347.83", "846.369 kiops : time 330.00") for line in lines],
    )
    record = parse_result_set(tree, results)
    evidence = record.evidence.mdtest_stonewall_inflation["mdtest_easy_write"]
    assert evidence["inflated"] is True
    assert evidence["items_done_max_per_rank"] == 60319
    assert evidence["created_items_upper_bound"] == 60319 * 160
    assert evidence["ratio"] > 25
    assert evidence["source"].endswith("mdtest_easy_write.txt:15")


def test_it_reads_sc17_job_output_in_true_units():
    record = parse_result_set(SAMPLES, SAMPLES / SC17_RUN)
    assert (record.era, record.generation, record.score_formula) == ("script", "sc17", "product")
    assert (record.client_nodes, record.procs_per_node, record.client_procs) == (2048, 8, 16384)
    assert record.run_timestamp == datetime(2017, 11, 7)
    names = {p.name: p for p in record.phases}
    assert "mdtest_hard_read" not in names
    assert len(names) == 11
    easy = names["ior_easy_write"]
    assert (easy.printed_value, easy.printed_unit, easy.seconds) == ("794393.97", "MB/s", 420.0)
    assert abs(easy.value - 794393.97e6 / 2**30) < 1e-9
    assert names["mdtest_easy_write"].value == pytest.approx(28.320444)
    assert record.reported_score.total == 7209139386.9
    assert abs(record.evidence.product_score["recomputed_product"] - 7209139386.9) / 7209139386.9 < 1e-4
    assert record.computed_score.total == pytest.approx((record.computed_score.bw * record.computed_score.md) ** 0.5)


def test_sc17_family_files_without_the_job_output_still_give_the_phases(tmp_path):
    tree = copy_sample("sc17-product", tmp_path)
    (tree / "submission-109/JCAHPC-17/jcahpc/2048-8.227609.out").unlink()
    record = parse_result_set(tree, find_result_sets(tree)[0])
    assert len(record.phases) == 11
    assert record.reported_score.total is None
    assert record.computed_score.total > 0
