"""The questionnaire read as data, its completeness, and the proposed level (the committee assigns the real one)."""

import pytest

from apps.results.judgements.reproducibility import (
    SECTIONS,
    QuestionnaireError,
    TuningEvidence,
    clean_reproducibility,
    completeness,
    declares_production,
    proposed_level,
)

TEN_WORDS = "one two three four five six seven eight nine ten"
METADATA = {
    "institution": "GWDG",
    "system": "FTP",
    "filesystem": "Lustre",
    "storage_vendor": "DDN",
    "client_nodes": 10,
    "server_count": 4,
}
ALL_DUMPS = TuningEvidence(lctl_get_param=True, striping=True, find_sources=None)


def answers(count: int, obtainable: str = "open-source") -> dict:
    names = list(SECTIONS)[:count]
    questionnaire = {name: TEN_WORDS for name in names}
    if "software" in names:
        questionnaire["software"] = {"description": TEN_WORDS, "obtainable": obtainable}
    return clean_reproducibility({"questionnaire": questionnaire})


def test_the_ten_sections_of_the_io500_questionnaire():
    assert list(SECTIONS) == [
        "purpose",
        "availability",
        "software",
        "runtime_environment",
        "fault_tolerance",
        "execution",
        "caching",
        "data_source",
        "trust",
        "expected_score",
    ]


@pytest.mark.parametrize(
    ("data", "where"),
    [
        ({"questionnaire": {"horoscope": TEN_WORDS}}, "unknown section 'horoscope'"),
        ({"questionaire": {}}, "unknown key 'questionaire'"),
        ({"target_level": "gold"}, "reproducibility.target_level"),
        ({"production": {"production_applications": "yes"}}, "production.production_applications: expected true"),
        ({"questionnaire": {"software": {"obtainable": "stolen"}}}, "software.obtainable"),
        ({"questionnaire": {"purpose": ["a", "list"]}}, "questionnaire.purpose: expected text"),
        (["not", "a", "mapping"], "expected a mapping"),
    ],
)
def test_bad_answers_are_refused_naming_the_key(data, where):
    with pytest.raises(QuestionnaireError, match=where):
        clean_reproducibility(data)


def test_an_answer_needs_ten_words():
    found = completeness(
        clean_reproducibility({"questionnaire": {"purpose": TEN_WORDS, "trust": "too short"}}), METADATA, ALL_DUMPS
    )
    assert found.sections_answered == ["purpose"]
    assert "trust" in found.sections_missing


@pytest.mark.parametrize(
    ("data", "metadata", "dumps", "expected"),
    [
        (answers(10), METADATA, ALL_DUMPS, "fully_reproducible"),
        (answers(10, obtainable="commercial"), METADATA, ALL_DUMPS, "fully_reproducible"),
        (answers(10, obtainable="not-public"), METADATA, ALL_DUMPS, "proprietary"),
        (answers(10), METADATA, TuningEvidence(lctl_get_param=False, striping=True, find_sources=None), "limited"),
        (answers(10), METADATA, TuningEvidence(lctl_get_param=True, striping=True, find_sources=False), "limited"),
        (answers(9), METADATA, ALL_DUMPS, "limited"),
        (answers(5), METADATA, ALL_DUMPS, "limited"),
        (answers(4), METADATA, ALL_DUMPS, "undefined"),
        (answers(10), {**METADATA, "storage_vendor": ""}, ALL_DUMPS, "undefined"),
        ({}, METADATA, ALL_DUMPS, "undefined"),
    ],
)
def test_the_proposed_level(data, metadata, dumps, expected):
    assert proposed_level(completeness(data, metadata, dumps)) == expected


def test_a_production_declaration_needs_both_statements():
    both = {"production": {"production_applications": True, "no_single_point_of_failure": True}}
    one = {"production": {"production_applications": True, "no_single_point_of_failure": False}}
    assert declares_production(clean_reproducibility(both)) is True
    assert declares_production(clean_reproducibility(one)) is False
    assert declares_production({}) is False
