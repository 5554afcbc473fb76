"""Any bytes in any result file give a record or a ParseError naming the file, never another exception.

The samples are copied once per test; each example rewrites one file, parses, and puts the original back.
A ParseError must not be the parser's own safety net ("internal parser error"): that would be a bug
the fuzzing found.
"""

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apps.ingest.parsers.errors import ParseError
from apps.ingest.tools.io500.grammar import find_result_sets, parse_result_set, parse_tree
from apps.ingest.tools.io500.records import IO500RunRecord
from tests.ingest.tools.io500.io500_samples import copy_sample

FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))

TARGETS = [
    ("capp-result-dir", "submission-686/results/2023.10.25-16.06.23", "result.txt"),
    ("capp-result-dir", "submission-686/results/2023.10.25-16.06.23", "result_summary.txt"),
    ("capp-result-dir", "submission-686/results/2023.10.25-16.06.23", "config.ini"),
    ("capp-result-dir", "submission-686/results/2023.10.25-16.06.23", "mdtest-easy-write.txt"),
    ("capp-result-dir", "submission-686/results/2023.10.25-16.06.23", "ior-hard-write.txt"),
    ("capp-result-dir", "submission-686/results/2023.10.25-16.06.23", "find.csv"),
    ("capp-extended", "submission-578", "result.txt"),
    ("bash-results", "submission-100/results", "result_summary.txt"),
    ("bash-results", "submission-100/results", "io-500-summary.2019.06.07-09.57.17.txt"),
    ("bash-results", "submission-100/results", "ior_easy_write.txt"),
    ("bash-results", "submission-100/results", "mdtest_hard_stat.txt"),
    ("bash-results", "submission-100", "io500.sh"),
    ("sc17-product", "submission-109/JCAHPC-17/jcahpc", "2048-8.227609.out"),
]


def outcome(root: Path, result_dir: Path):
    try:
        return parse_result_set(root, result_dir)
    except ParseError as exc:
        error = exc
    assert error.path, "a ParseError must name the file or folder"
    assert not error.message.startswith(("internal parser error", "file too complex")), str(error)
    return error


@pytest.fixture(scope="module")
def trees(tmp_path_factory):
    base = tmp_path_factory.mktemp("io500-fuzz")
    return {name: copy_sample(name, base) for name in {target[0] for target in TARGETS}}


def run_with(trees, target, data: bytes):
    sample, folder, name = target
    tree = trees[sample]
    path = tree / folder / name
    original = path.read_bytes()
    path.write_bytes(data)
    try:
        result_dir = next(p for p in find_result_sets(tree) if p == tree / folder or (tree / folder) in p.parents)
        result = outcome(tree, result_dir)
        assert isinstance(result, IO500RunRecord | ParseError)
        if isinstance(result, IO500RunRecord):
            assert_storable(result)
        return result
    finally:
        path.write_bytes(original)


def assert_storable(record: IO500RunRecord) -> None:
    """What PostgreSQL must accept: valid JSON (no NaN/Infinity) without NUL or lone surrogates."""
    stored = {
        "facts": record.evidence.to_dict(),
        "config": record.config,
        "info": record.info,
        "metadata": record.metadata,
        "raw_files": record.raw_files,
        "details": [phase.details for phase in record.phases],
        "text": [
            record.source_path,
            *record.invalid_reasons,
            *record.warnings,
            *(f"{p.name}{p.printed_value}{p.printed_unit}{p.command}{p.source_file}" for p in record.phases),
        ],
    }
    text = json.dumps(stored, allow_nan=False, ensure_ascii=False)
    text.encode("utf-8")
    assert "\x00" not in text


def mutations(original: bytes):
    """Truncations, byte flips, dropped, duplicated and swapped lines of a real file."""
    lines = original.splitlines(keepends=True)
    size = max(len(original), 1)
    count = max(len(lines), 1)
    return st.one_of(
        st.integers(0, size).map(lambda cut: original[:cut]),
        st.lists(st.tuples(st.integers(0, size - 1), st.integers(1, 255)), min_size=1, max_size=8).map(
            lambda flips: _flip(original, flips)
        ),
        st.sets(st.integers(0, count - 1), min_size=1, max_size=4).map(
            lambda drop: b"".join(line for i, line in enumerate(lines) if i not in drop)
        ),
        st.integers(0, count - 1).map(lambda i: b"".join([*lines[: i + 1], *lines[i:]])),
        st.permutations(lines).map(b"".join),
    )


def _flip(original: bytes, flips) -> bytes:
    data = bytearray(original)
    for position, mask in flips:
        if data:
            data[position % len(data)] ^= mask
    return bytes(data)


@pytest.mark.parametrize("target", TARGETS, ids=lambda t: f"{t[0]}:{t[2]}")
@FUZZ
@given(data=st.binary(max_size=3000))
def test_arbitrary_bytes_give_a_record_or_a_parse_error(trees, target, data):
    run_with(trees, target, data)


@pytest.mark.parametrize("target", TARGETS, ids=lambda t: f"{t[0]}:{t[2]}")
@FUZZ
@given(data=st.data())
def test_mutated_real_files_give_a_record_or_a_parse_error(trees, target, data):
    original = (trees[target[0]] / target[1] / target[2]).read_bytes()
    run_with(trees, target, data.draw(mutations(original)))


RESULT_LINES = st.sampled_from(
    [
        "IO500 version io500-sc21 (standard)",
        "[RESULT]       ior-easy-write        3.989304 GiB/s : time 508.376 seconds",
        "[      ]            timestamp        0.000000 kIOPS : time 0.001 seconds",
        "[SCORE ] Bandwidth 1.221762 GiB/s : IOPS 36.158454 kiops : TOTAL 6.646581",
        "[SCOREX] Bandwidth inf GiB/s : IOPS nan kiops : TOTAL -0 [INVALID]",
        "[RESULT] BW   phase 1            ior_easy_write               62.453 GB/s : time 368.92 seconds",
        "[RESULT-invalid] IOPS phase 2    mdtest_hard_write   448.105 kiops : time 218.46 seconds",
        "[SCORE] Bandwidth 12.8232 GB/s : IOPS 110.372 kiops : TOTAL 37.6208",
        "[SCORE-invalid] Bandwidth 0 GB/s : IOPS 0 kiops : TOTAL 0",
        "[run]",
        "[SCORE]",
        "[SCOREX]",
        "[find]",
        "version = io500-isc21_v1",
        "MD = 1e308",
        "BW = 1e-320",
        "SCORE = nan  [INVALID]",
        "hash = ZZZ",
        "score = 1" + "0" * 400,
        "t_delta = -5",
        "; ERROR INVALID stonewall-time < 30s",
        "[FIND] MATCHED 1/99999999999999999999 in 0 seconds",
        "1/ior-easy-write BW:794393.97 MB/s time: 420s",
        "IO-500 score:  7209139386.9",
        "",
        "\r",
    ]
)


@pytest.mark.parametrize(
    "target",
    [t for t in TARGETS if t[2] in ("result.txt", "result_summary.txt")],
    ids=lambda t: f"{t[0]}:{t[2]}",
)
@FUZZ
@given(lines=st.lists(RESULT_LINES, max_size=40))
def test_grammar_shaped_nonsense_gives_a_record_or_a_parse_error(trees, target, lines):
    run_with(trees, target, "\n".join(lines).encode())


NAMES = st.text(
    st.characters(blacklist_categories=["Cs", "Cc"], blacklist_characters="/\\"), min_size=1, max_size=20
).filter(lambda name: name not in (".", ".."))


@FUZZ
@given(
    names=st.lists(NAMES, min_size=1, max_size=4),
    file_name=st.sampled_from(
        [
            "result_summary.txt",
            "result.txt",
            "io-500-summary.x.txt",
            "job.out",
            "ior-easy-results.txt",
            "._result.txt",
        ]
    ),
    content=st.binary(max_size=200),
)
def test_discovery_survives_any_folder_names(tmp_path_factory, names, file_name, content):
    root = tmp_path_factory.mktemp("names")
    folder = root.joinpath(*names)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / file_name).write_bytes(content)
    except OSError:
        return
    for item in parse_tree(root):
        if isinstance(item, ParseError):
            assert not item.message.startswith("internal parser error"), str(item)
