"""The IO500 era registry: each sample folder is recognised, built and scored by the era its README names."""

from types import SimpleNamespace

import pytest

from apps.ingest.tools.io500.grammar import parse_result_set
from apps.ingest.tools.io500.grammar.common import ResultSetFiles
from apps.ingest.tools.io500.grammar.eras import (
    ERAS,
    FOLDER_KINDS,
    classify_folder,
    era_for_folder,
    era_of_record,
    score_formula_for,
)
from apps.ingest.tools.io500.records import RunEvidence
from apps.results.judgements.scoring import (
    FORMULA_CAPP_SKIP_NONPOSITIVE,
    FORMULA_CAPP_ZERO_ENTERS,
    FORMULA_SC17,
    FORMULA_SCRIPT,
    FORMULAS,
)
from apps.results.judgements.scoring.generations import GENERATIONS
from tests.ingest.tools.io500.io500_samples import (
    BASH_RUN,
    CAPP_RUN,
    EXTENDED_RUN,
    PRODUCT_RUN,
    SAMPLES,
    SC17_RUN,
    copy_sample,
)

# (sample folder, folder kind, era entry, Run.era, Run.generation): from tests/data/io500/README.md
SAMPLE_ERAS = [
    (BASH_RUN, "script", "script", "script", "bash-sqrt"),
    (PRODUCT_RUN, "script", "script", "script", "bash-product"),
    (CAPP_RUN, "capp", "capp", "capp", "capp-g3"),
    (EXTENDED_RUN, "capp", "capp", "capp", "capp-g3"),
    (SC17_RUN, "sc17", "sc17", "script", "sc17"),
]


@pytest.mark.parametrize(("run", "kind", "entry", "era", "generation"), SAMPLE_ERAS, ids=lambda v: str(v))
def test_each_sample_is_read_by_the_era_that_wrote_it(run, kind, entry, era, generation):
    files = ResultSetFiles.scan(SAMPLES, SAMPLES / run)
    assert classify_folder(SAMPLES / run, list(files.files)) == kind
    assert era_for_folder(kind, files).name == entry
    record = parse_result_set(SAMPLES, SAMPLES / run)
    assert (record.era, record.generation) == (era, generation)
    assert era_of_record(record).name == entry


@pytest.mark.parametrize(
    ("sample", "run", "entry"), [("capp-result-dir", CAPP_RUN, "capp"), ("bash-results", BASH_RUN, "script")]
)
def test_a_lone_result_summary_goes_to_the_era_whose_grammar_it_has(tmp_path, sample, run, entry):
    copy_sample(sample, tmp_path)
    folder = tmp_path / run
    for path in folder.iterdir():
        if path.name != "result_summary.txt":
            path.unlink()
    files = ResultSetFiles.scan(tmp_path, folder)
    assert classify_folder(folder, list(files.files)) == "summary-only"
    assert era_for_folder("summary-only", files).name == entry


def test_every_generation_belongs_to_exactly_one_era():
    owners = {generation: [era.name for era in ERAS if generation in era.generations] for generation in GENERATIONS}
    assert all(len(names) == 1 for names in owners.values()), owners
    assert sorted(g for era in ERAS for g in era.generations) == sorted(GENERATIONS)


def test_folder_kinds_have_distinct_names_and_precedences():
    assert len({kind.name for kind in FOLDER_KINDS}) == len(FOLDER_KINDS)
    assert len({kind.precedence for kind in FOLDER_KINDS}) == len(FOLDER_KINDS)


def _record(**fields):
    defaults = {"era": "script", "generation": "bash-sqrt", "benchmark_version": "", "evidence": RunEvidence()}
    return SimpleNamespace(**{**defaults, **fields})


def test_product_era_runs_are_scored_with_the_comparable_root():
    assert score_formula_for(_record(generation="bash-product")) == FORMULA_SCRIPT
    assert score_formula_for(_record(generation="sc17")) == FORMULA_SC17


def test_capp_runs_are_scored_by_their_version_and_file_grammar():
    isc21 = _record(era="capp", generation="capp-g3", evidence=RunEvidence(result_txt_run_section=False))
    assert score_formula_for(isc21) == FORMULA_CAPP_ZERO_ENTERS
    sc23 = _record(era="capp", generation="capp-g3", benchmark_version="io500-sc23_v1")
    assert score_formula_for(sc23) == FORMULA_CAPP_SKIP_NONPOSITIVE


@pytest.mark.parametrize(("run", "_kind", "_entry", "_era", "_generation"), SAMPLE_ERAS, ids=lambda v: str(v))
def test_every_era_names_a_known_score_formula(run, _kind, _entry, _era, _generation):
    record = parse_result_set(SAMPLES, SAMPLES / run)
    assert record.evidence.score_rule in FORMULAS
