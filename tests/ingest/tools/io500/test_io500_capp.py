"""C-application result directories: result.txt, result_summary.txt, config*.ini, hashes, validity."""

from datetime import datetime

import pytest

from apps.ingest.parsers.errors import ParseError
from apps.ingest.tools.io500.grammar import parse_result_set
from apps.ingest.tools.io500.grammar.capp_run import parse_version
from apps.ingest.tools.io500.grammar.hashes import config_hash, format_hash, io500_hash, score_hash
from tests.ingest.tools.io500.io500_samples import CAPP_RUN, EXTENDED_RUN, SAMPLES, copy_sample, edit_lines

RUN_IN_TREE = CAPP_RUN.split("/", 1)[1]


@pytest.fixture
def capp_run(tmp_path):
    tree = copy_sample("capp-result-dir", tmp_path)
    return tree, tree / RUN_IN_TREE


def test_it_reads_a_capp_result_directory():
    record = parse_result_set(SAMPLES, SAMPLES / CAPP_RUN)
    assert record.source_path == CAPP_RUN
    assert (record.era, record.generation, record.benchmark_version) == ("capp", "capp-g3", "io500-sc23_v1")
    assert record.run_timestamp == datetime(2023, 10, 25, 16, 6, 25)
    assert (record.client_nodes, record.client_procs, record.procs_per_node) == (30, 30, 1)
    assert [p.name for p in record.phases][:4] == [
        "ior_easy_write",
        "mdtest_easy_write",
        "ior_hard_write",
        "mdtest_hard_write",
    ]
    easy = record.phases[0]
    assert (easy.value, easy.unit, easy.printed_value, easy.printed_unit) == (
        3.989304,
        "GiB/s",
        "3.989304",
        "GiB/s",
    )
    assert easy.seconds == 508.3757
    assert easy.score_group == "bw"
    assert easy.command.startswith("./ior --dataPacketType=timestamp -C -Q 1 -g -G -1400683843 -k -e")
    assert (easy.source_file, easy.source_line) == (f"{CAPP_RUN}/result.txt", 14)
    assert easy.details["throughput_stonewall"] == 5.11
    assert easy.details["tool"] == "ior"
    assert easy.details["tool_version"] == "3.4.0+dev"
    # result.txt lines 26-29: the [timestamp] step measures nothing; it is run metadata, not a phase
    assert "timestamp" not in {p.name for p in record.phases}
    assert record.evidence.timestamp_step == {
        "t_start": "2023-10-25 16:20:04",
        "source_file": f"{CAPP_RUN}/result.txt",
        "source_line": 26,
    }
    assert (record.reported_score.bw, record.reported_score.md, record.reported_score.total) == (
        1.221762,
        36.158454,
        6.646581,
    )
    assert abs(record.computed_score.total - 6.646581) / 6.646581 < 1e-5
    assert record.verification == "verified"
    assert record.config_hash_status == "verified"
    assert record.valid
    assert record.invalid_reasons == []
    assert record.config["global"]["datadir"] == "./datafiles"
    assert record.config["rules"] == "regular"
    assert record.config["stonewall_time"] == 300
    assert {
        "config.ini",
        "config-orig.ini",
        "config-minimal.ini",
        "slurm_script",
        "../../slurm_script",
    } <= set(record.raw_files)
    assert "result.txt" not in record.raw_files
    assert record.metadata["submission_id"] == "686"
    assert len(record.content_hash) == 64


def test_it_keeps_the_facts_the_anomaly_rules_need():
    record = parse_result_set(SAMPLES, SAMPLES / CAPP_RUN)
    facts = record.evidence
    assert facts.write_phases["ior_hard_write"] == {
        "seconds": 1181.7928,
        "source_file": f"{CAPP_RUN}/result.txt",
        "source_line": 36,
        "printed_seconds": "1181.793",
    }
    assert set(facts.mdtest_rank_shift.values()) == {True}
    assert facts.tool_client_nodes["mdtest_easy_write"] == 30
    assert facts.score_hash["rule"] == "standard"
    assert facts.rules == "regular"
    assert facts.min_write_seconds == 300
    assert facts.reported_score_printed == {
        "bw": "1.221762",
        "md": "36.158454",
        "total": "6.646581",
        "source_file": f"{CAPP_RUN}/result.txt",
        "source_line": 109,
    }
    assert facts.summary_cross_check["identical"] is True
    assert facts.version == {"raw": "io500-sc23_v1", "tag": "io500-sc23_v1", "custom": False}


def test_it_verifies_an_extended_run_and_its_scorex_hash():
    record = parse_result_set(SAMPLES, SAMPLES / EXTENDED_RUN)
    assert record.evidence.mode == "extended"
    assert record.verification == "verified"
    assert record.evidence.extended_score_hash["verified"] is True
    assert (record.reported_extended.bw, record.reported_extended.md, record.reported_extended.total) == (
        5.939172,
        29.575101,
        13.253362,
    )
    assert abs(record.computed_extended.total - 13.253362) / 13.253362 < 1e-6
    groups = {p.name: p.score_group for p in record.phases}
    assert groups["ior_rnd4k_write"] == "bw_ext"
    assert groups["mdworkbench_bench"] == "md_ext"
    assert groups["mdworkbench_create"] == "none"


def test_a_changed_phase_score_breaks_the_hash(capp_run):
    tree, run = capp_run
    edit_lines(
        run / "result.txt",
        lambda lines: [line.replace("score           = 3.989304", "score           = 4.989304") for line in lines],
    )
    record = parse_result_set(tree, run)
    assert record.verification == "hash_mismatch"
    assert record.evidence.score_hash["printed"] == "FE94B10A"
    assert record.evidence.summary_cross_check["differences"][0]["phase"] == "ior_easy_write"


def test_an_edited_config_shows_as_a_config_hash_mismatch(capp_run):
    tree, run = capp_run
    edit_lines(
        run / "config.ini",
        lambda lines: [line.replace("stonewall-time = 300", "stonewall-time = 30") for line in lines],
    )
    record = parse_result_set(tree, run)
    assert record.config_hash_status == "hash_mismatch"
    assert record.verification == "verified"


def test_it_rejects_a_truncated_result_txt(capp_run):
    tree, run = capp_run
    edit_lines(run / "result.txt", lambda lines: lines[:60])
    with pytest.raises(ParseError, match=r"truncated result.txt: no \[SCORE\]") as caught:
        parse_result_set(tree, run)
    assert caught.value.path == f"{RUN_IN_TREE}/result.txt"


def test_it_names_the_line_of_a_garbled_result_txt(capp_run):
    tree, run = capp_run
    edit_lines(run / "result.txt", lambda lines: [*lines[:20], "\x00\x01garbage without a key\n", *lines[20:]])
    with pytest.raises(ParseError) as caught:
        parse_result_set(tree, run)
    assert (caught.value.path, caught.value.line) == (f"{RUN_IN_TREE}/result.txt", 21)


def test_a_result_txt_without_a_phase_but_with_a_valid_score_is_rejected(capp_run):
    tree, run = capp_run
    edit_lines(run / "result.txt", lambda lines: [*lines[:8], *lines[17:]])
    with pytest.raises(ParseError, match="missing phases ior_easy_write"):
        parse_result_set(tree, run)


def test_error_comments_are_reasons_but_the_benchmark_decides_validity(capp_run):
    tree, run = capp_run
    edit_lines(run / "result.txt", lambda lines: [*lines[:7], "; ERROR INVALID stonewall-time < 30s\n", *lines[7:]])
    record = parse_result_set(tree, run)
    assert record.valid is True
    assert record.invalid_reasons == ["result.txt:8: ; ERROR INVALID stonewall-time < 30s"]
    assert record.evidence.validation_messages[0]["source_line"] == 8


def test_invalid_markers_make_the_run_invalid(capp_run):
    tree, run = capp_run
    edit_lines(
        run / "result.txt",
        lambda lines: [
            line.replace("SCORE           = 6.646581", "SCORE           = 6.646581  [INVALID]") for line in lines
        ],
    )
    edit_lines(
        run / "result_summary.txt",
        lambda lines: [
            line.replace("TOTAL 6.646581", "TOTAL 6.646581 [INVALID]").replace("seconds\n", "seconds [INVALID]\n", 1)
            if "TOTAL" in line or "ior-easy-write" in line
            else line
            for line in lines
        ],
    )
    record = parse_result_set(tree, run)
    assert record.valid is False
    assert record.phases[0].invalid is True
    assert "result.txt: [SCORE] SCORE marked [INVALID]" in record.invalid_reasons
    assert any("phase ior-easy-write marked invalid" in reason for reason in record.invalid_reasons)


def test_a_summary_without_result_txt_is_read_but_not_verifiable(capp_run):
    tree, run = capp_run
    (run / "result.txt").unlink()
    record = parse_result_set(tree, run)
    assert record.era == "capp"
    assert record.generation == "capp-g3"
    assert record.verification == "not_verifiable"
    assert record.reported_score.total == 6.646581
    assert record.phases[0].seconds == 508.376
    assert record.phases[0].source_line == 2


def test_a_broken_summary_beside_a_good_result_txt_is_a_warning(capp_run):
    tree, run = capp_run
    edit_lines(run / "result_summary.txt", lambda lines: lines[:5])
    record = parse_result_set(tree, run)
    assert record.verification == "verified"
    assert any("result_summary.txt not usable" in warning for warning in record.warnings)


def test_content_hash_follows_the_bytes_not_the_location(tmp_path):
    first = copy_sample("capp-result-dir", tmp_path / "a")
    second = copy_sample("capp-result-dir", tmp_path / "b")
    hash_a = parse_result_set(first, first / RUN_IN_TREE).content_hash
    assert parse_result_set(second, second / RUN_IN_TREE).content_hash == hash_a
    (second / RUN_IN_TREE / "timestampfile").write_bytes(b"x")
    assert parse_result_set(second, second / RUN_IN_TREE).content_hash != hash_a


def test_hash_primitives_match_the_c_application():
    assert io500_hash("") == 0
    assert io500_hash("A") == 65
    assert io500_hash("AB") == (65 << 2) + 66
    assert format_hash(0x0ABC) == "ABC"
    printed = score_hash(
        version="io500-isc24_v3",
        phase_scores=[
            ("ior-easy-write", "40.563456"),
            ("mdtest-easy-write", "366.550289"),
            ("ior-hard-write", "1.862771"),
            ("mdtest-hard-write", "51.708670"),
            ("find", "3012.638197"),
            ("ior-easy-read", "31.398658"),
            ("mdtest-easy-stat", "376.634589"),
            ("ior-hard-read", "7.090599"),
            ("mdtest-hard-stat", "388.304123"),
            ("mdtest-easy-delete", "253.302114"),
            ("mdtest-hard-read", "322.247857"),
            ("mdtest-hard-delete", "27.367387"),
        ],
        md="256.359720",
        bw="11.388646",
        score="54.033232",
        valid=True,
    )
    assert printed == "ADCB0900"  # Poznan submission-701 result.txt
    # The C app hashes an empty "external-mpi-args" (its default is the empty string) but leaves out an
    # unset "nproc". 0x699132FB is "external-mpi-args" run through the C loop (rotate left 2, add the byte)
    # on its own, outside this code base; an empty value leaves the key's hash as it is.
    assert config_hash({"find": {"external-mpi-args": "", "nproc": ""}}) == "699132FB"


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        (
            "io500-isc20-1-g643b0ae16ce8-22",
            {"tag": "io500-isc20", "commits_after_tag": 1, "commit": "643b0ae16ce8", "modified_lines": 22},
        ),
        ("io500-isc20_v4-22", {"tag": "io500-isc20_v4", "modified_lines": 22}),
        ("io500-sc25", {"tag": "io500-sc25"}),
        ("aramco-custom", {"tag": "", "custom": True}),
        ("", {"tag": "", "custom": False}),
    ],
)
def test_version_strings_are_split_into_tag_commits_and_local_changes(version, expected):
    parts = parse_version(version)
    assert {k: parts[k] for k in expected} == expected


def _c_app_hash(text: str, value: int = 0) -> int:
    """io500's ``u_hash_update`` written out from docs/io500-formats.md: rotl32(h, 2) + byte."""
    for byte in text.encode():
        value = ((((value << 2) | (value >> 30)) & 0xFFFFFFFF) + byte) & 0xFFFFFFFF
    return value


def _key_value(key: str, value: str) -> int:
    return _c_app_hash(value, _c_app_hash(key))


def test_a_result_txt_hashed_the_a69cf60_way_verifies_and_names_its_rule(capp_run):
    """From io500 a69cf60 the score hash skips optional phases and phases that do not enter the score.

    The sample run is rewritten as such a build would print it: mdtest-hard-read skipped (score
    0.000000, left out of the mean and of the hash) and an unscored ior-rnd4K-easy-read section.
    """
    tree, run = capp_run
    result = run / "result.txt"
    text = result.read_text()
    text = text.replace(
        "[mdtest-hard-delete]", "[ior-rnd4K-easy-read]\nscore           = 0.512000\n\n[mdtest-hard-delete]"
    )
    hard_read_score = "22.168484"
    assert f"score           = {hard_read_score}" in text
    text = text.replace(f"score           = {hard_read_score}", "score           = 0.000000")
    scores = {}
    section = None
    for line in text.splitlines():
        if line.startswith("["):
            section = line.strip("[]")
        elif line.startswith("score ") and section:
            scores[section] = line.split("=")[1].strip()
    assert (scores["ior-easy-write"], scores["mdtest-hard-read"]) == ("3.989304", "0.000000")
    mandatory = {
        "ior-easy-write", "mdtest-easy-write", "ior-hard-write", "mdtest-hard-write", "find",
        "ior-easy-read", "mdtest-easy-stat", "ior-hard-read", "mdtest-hard-stat",
        "mdtest-easy-delete", "mdtest-hard-read", "mdtest-hard-delete",
    }  # fmt: skip
    expected = _key_value("version", "io500-sc23_v1")
    for name, score in scores.items():
        if name in mandatory and float(score) > 0:
            expected ^= _key_value(name, score)
    for key, value in (("MD", "36.158454"), ("BW", "1.221762"), ("SCORE", "6.646581")):
        expected ^= _key_value(key, value)
    text = text.replace("hash            = FE94B10A", f"hash            = {expected:X}")
    result.write_text(text)

    record = parse_result_set(tree, run)

    assert record.verification == "verified"
    assert record.evidence.score_hash["rule"] == "a69cf60"
    assert record.evidence.score_hash["printed"] == f"{expected:X}"


def test_the_unedited_sample_still_verifies_with_the_rule_before_a69cf60():
    record = parse_result_set(SAMPLES, SAMPLES / CAPP_RUN)

    assert (record.verification, record.evidence.score_hash["rule"]) == ("verified", "standard")


def test_a_find_implementation_shipped_as_source_is_kept_with_the_run(capp_run):
    tree, run = capp_run
    (run / "pfind.rs").write_text("fn main() { /* a parallel find */ }\n")
    (run.parent / "find.c").write_text("int main(void) { return 0; }\n")
    (run / "notes.rs").write_text("// not a find\n")
    record = parse_result_set(tree, run)
    assert {"pfind.rs", "../find.c"} <= set(record.raw_files)
    assert "notes.rs" not in record.raw_files
    assert "result.txt" not in record.raw_files
