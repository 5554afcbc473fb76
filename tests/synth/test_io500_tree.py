"""A generated tree N times a set of IO500 submissions is N times as many distinct results: every copy is another
system's run with its own measured numbers, so the ingest finds no duplicate among them and stores, for each copy,
the scores its files print (issue 39, the tree the corpus bench is run ten times over).

The factor a copy was scaled by is read back here from the phase values of its files and of its source's (this
module's own line patterns, not the generator's nor the ingest's parsers), and the scores it implies are the
geometric-mean arithmetic done here by hand: every phase x f makes BW, MD and the sqrt score x f."""

import math
import re
import shutil
import statistics
from datetime import timedelta
from pathlib import Path

import pytest

from apps.ingest.tools.io500.pipeline import ingest_path
from apps.results.models import Anomaly, Run
from synth.io500_tree import write_scaled_tree

SAMPLES = Path(__file__).resolve().parents[1] / "data" / "io500"
TIMES = 3
STEP = 1_000_000  # the submission-id step between copies, as the archive's ids are never that high

#: Four eras: a bash-script run, a bash run with the 2017-18 product TOTAL, a C-application run with a verified
#: score hash in a timestamped result folder, an extended C run (a [SCOREX] with its own hash), an SC17 job output.
TREE = {
    "Inst A/Sys 1/Lustre/2019/submission-100": "bash-results/submission-100",
    "Inst B/Sys 2/GPFS/2019/submission-179": "bash-product/submission-179",
    "Inst A/Sys 1/Lustre/2023/submission-686": "capp-result-dir/submission-686",
    "Inst C/Sys 3/BeeGFS/2021/submission-578": "capp-extended/submission-578",
    "Inst D/Sys 4/Lustre/2017/submission-109": "sc17-product/submission-109",
}

NUMBER = r"[-+]?\d+(?:\.\d+)?"
SUMMARY_PHASE = re.compile(rf"^\[(?:RESULT|      )\].*?\s(\S+)\s+({NUMBER})\s+(?:GiB/s|GB/s|kIOPS|kiops)\s*:")
SUMMARY_SCORE = re.compile(rf"^\[SCORE ?\] Bandwidth ({NUMBER}) \S+ : IOPS ({NUMBER}) kiops : TOTAL ({NUMBER})")
SC17_PHASE = re.compile(rf"^\d+/(\S+) (?:BW|IOPs):({NUMBER})")
SC17_SCORE = re.compile(rf"^IO-500 score:\s+({NUMBER})")


def printed(folder: Path) -> tuple[dict[str, float], dict[str, float]]:
    """The phase values and the printed scores of one result folder: its result_summary.txt, else its SC17 job
    output (whose only score is the product TOTAL)."""
    summary = folder / "result_summary.txt"
    if summary.exists():
        phases, scores = {}, {}
        for line in summary.read_text().splitlines():
            if match := SUMMARY_PHASE.match(line):
                phases[match.group(1)] = float(match.group(2))
            elif match := SUMMARY_SCORE.match(line):
                scores = dict(zip(("bw", "md", "total"), map(float, match.groups()), strict=True))
        return phases, scores
    (output,) = folder.glob("*.out")
    lines = output.read_text().splitlines()
    phases = {m.group(1): float(m.group(2)) for m in map(SC17_PHASE.match, lines) if m}
    (total,) = [float(m.group(1)) for m in map(SC17_SCORE.match, lines) if m]
    return phases, {"total": total}


def factor_between(source: dict[str, float], copy: dict[str, float]) -> float:
    """The one factor every measured phase of ``copy`` is ``source``'s times, to the precision they are printed."""
    ratios = [copy[name] / value for name, value in source.items() if value > 0]
    assert len(ratios) >= 11  # SC17 printed 11 phases, later eras 12 or more
    assert copy.keys() == source.keys()
    factor = statistics.median(ratios)
    # 3 printed decimals of a bash phase of ~0.8 GiB/s: about 1e-3 relative either side
    assert all(ratio == pytest.approx(factor, rel=3e-3) for ratio in ratios), ratios
    return factor


@pytest.fixture
def scaled_tree(tmp_path):
    for target, source in TREE.items():
        shutil.copytree(SAMPLES / source, tmp_path / "source" / target)
    return write_scaled_tree(tmp_path / "source", tmp_path / "tree", TIMES)


@pytest.mark.django_db(transaction=True)
def test_every_copy_is_a_distinct_result_whose_stored_scores_are_what_its_files_print(scaled_tree, celery_eager):
    summary = ingest_path(scaled_tree.root)

    assert not summary.failed
    runs = {int(run.submission_id): run for run in Run.objects.all()}
    assert len(runs) == TIMES * len(TREE)
    assert not Anomaly.objects.filter(rule="duplicate_result").exists()
    assert Run.objects.values("content_hash").distinct().count() == len(runs)
    copies_per_system: dict[int, set[int]] = {}
    for run in runs.values():
        copies_per_system.setdefault(run.system_id, set()).add(int(run.submission_id) // STEP)
    assert all(len(copies) == 1 for copies in copies_per_system.values()), "each copy is other systems' runs"

    for submission_id, run in runs.items():
        copy, source_id = divmod(submission_id, STEP)
        if copy == 0:
            continue
        source = runs[source_id]
        source_phases, _ = printed(scaled_tree.root / source.source_path)
        copy_phases, copy_scores = printed(scaled_tree.root / run.source_path)
        factor = factor_between(source_phases, copy_phases)
        submission_folder = run.source_path.split(f"submission-{submission_id}")[0] + f"submission-{submission_id}"

        assert 0.8 <= factor <= 1.25
        assert factor == pytest.approx(scaled_tree.factors[submission_folder], rel=3e-3)
        assert run.system.institution.name == f"{source.system.institution.name} (copy {copy})"
        assert run.score_total != source.score_total
        for score in ("score_total", "score_bw", "score_md"):
            assert getattr(run, score) == pytest.approx(factor * getattr(source, score), rel=3e-3), score
        assert run.reported_total == copy_scores["total"]
        if "bw" in copy_scores:
            assert (run.reported_bw, run.reported_md) == (copy_scores["bw"], copy_scores["md"])
            assert run.score_total == pytest.approx(math.sqrt(copy_scores["bw"] * copy_scores["md"]), rel=1e-4)
        assert run.verification == source.verification
        # later by under a day; the SC17 job output gives a date only, which an hour's shift leaves as it was
        assert timedelta(0) < run.run_timestamp - source.run_timestamp < timedelta(days=1) or source_id == 109


def test_a_copy_of_a_c_application_run_carries_a_score_hash_the_benchmark_would_verify(scaled_tree):
    """The [SCORE] hash recomputed here over the copy's printed strings (io500-formats.md 2.3: the XOR of
    H(value, H(key, 0)) over the version, the 12 scored phases, MD, BW and SCORE)."""

    def io500_hash(text: str, value: int = 0) -> int:
        for byte in text.encode():
            value = (((value << 2 | value >> 30) & 0xFFFFFFFF) + byte) & 0xFFFFFFFF
        return value

    (result,) = (scaled_tree.root / "Inst A (copy 2)").rglob("result.txt")
    section, version, terms, printed_hash = "", "", [], None
    for line in result.read_text().splitlines():
        if line.startswith("["):
            section = line.strip("[] ")
            continue
        key, _, value = (part.strip() for part in line.partition("="))
        if key == "version":
            version = value
        elif key == "score" and section not in ("timestamp", "ior-rnd4K-easy-read"):
            terms.append((section, value))
        elif section == "SCORE" and key in ("MD", "BW", "SCORE"):
            terms.append((key, value.split()[0]))
        elif section == "SCORE" and key == "hash":
            printed_hash = value
    expected = io500_hash(version, io500_hash("version"))
    for key, value in terms:
        expected ^= io500_hash(value, io500_hash(key))

    assert len(terms) == 15
    assert printed_hash == f"{expected:X}"
