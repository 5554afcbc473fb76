"""The IO500 reproducibility questionnaire, the production declaration, and a proposed reproducibility level.

Why structured: the committee's submission system keeps the questionnaire as free text, so nobody can
tell at a glance which sections are answered. Here each of the ten sections of the questionnaire
(IO500 submission system: purpose, availability, software, runtime environment, fault tolerance,
execution, caching, data source, trust, expected score) is a key of the `reproducibility:` mapping of
`ioboard.yaml` (or of the upload's fields), and its completeness is computed, not judged by eye.

The level the committee assigns stays the committee's; `proposed_level` only suggests one from the
completeness, so reviewers see where a submission stands before reading it.

Plain Python (no Django): the rules are tested without a database.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: The questionnaire's sections, in the order of the IO500 submission form.
SECTIONS: dict[str, str] = {
    "purpose": "System purpose",
    "availability": "Availability",
    "software": "Storage system software",
    "runtime_environment": "Runtime environment",
    "fault_tolerance": "Fault tolerance",
    "execution": "Execution",
    "caching": "Caching",
    "data_source": "Data source",
    "trust": "Trust",
    "expected_score": "Expected score",
}

#: The IO500 form: "All questions are mandatory and replies require a minimum of 10 words."
MIN_ANSWER_WORDS = 10
MAX_ANSWER_CHARS = 20_000

UNDEFINED, LIMITED, PROPRIETARY, FULLY_REPRODUCIBLE = "undefined", "limited", "proprietary", "fully_reproducible"
#: The reproducibility levels, lowest first (the committee's Reproducibility Score).
LEVELS: dict[str, str] = {
    UNDEFINED: "Undefined",
    LIMITED: "Limited",
    PROPRIETARY: "Proprietary",
    FULLY_REPRODUCIBLE: "Fully Reproducible",
}
#: The level a production-list run must have.
HIGHEST_LEVEL = FULLY_REPRODUCIBLE

#: How the storage software can be obtained (the software section's `obtainable` answer).
SOFTWARE_OBTAINABLE = ("open-source", "commercial", "not-public")

#: System metadata a reproducible description needs (run and storage-system fields).
REQUIRED_METADATA = ("institution", "system", "filesystem", "storage_vendor", "client_nodes", "server_count")

RESEARCH, PRODUCTION = "research", "production"
TARGET_LISTS = (RESEARCH, PRODUCTION)

#: The top-level keys of `reproducibility:`.
KEYS = ("questionnaire", "target_level", "target_list", "production", "acknowledgements")


class QuestionnaireError(ValueError):
    """The `reproducibility:` data cannot be read; the message names the key at fault."""


def _text(value, where: str) -> str:
    if value is None:
        return ""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise QuestionnaireError(f"{where}: expected text")
    text = str(value).strip()
    if len(text) > MAX_ANSWER_CHARS:
        raise QuestionnaireError(f"{where}: longer than {MAX_ANSWER_CHARS} characters")
    return text


def _flag(value, where: str) -> bool:
    if value in (None, ""):
        return False
    if not isinstance(value, bool):
        raise QuestionnaireError(f"{where}: expected true or false")
    return value


def _choice(value, choices, where: str) -> str:
    if value in (None, ""):
        return ""
    if value not in choices:
        raise QuestionnaireError(f"{where}: {value!r} is not one of {', '.join(choices)}")
    return value


def clean_reproducibility(data, where: str = "reproducibility") -> dict:
    """The `reproducibility:` mapping checked and normalised; unknown keys are refused, not dropped.

    A section's answer is text, or a mapping of question → text (the software section's `obtainable`
    is one of SOFTWARE_OBTAINABLE). The production declaration has `production_applications` and
    `no_single_point_of_failure` (true/false) and an optional `description`; acknowledgements
    `rules` and `publication` (true/false).
    """
    if data in (None, ""):
        return {}
    if not isinstance(data, dict):
        raise QuestionnaireError(f"{where}: expected a mapping with {', '.join(KEYS)}")
    unknown = sorted(set(data) - set(KEYS))
    if unknown:
        raise QuestionnaireError(f"{where}: unknown key {unknown[0]!r}; expected {', '.join(KEYS)}")
    questionnaire = data.get("questionnaire") or {}
    if not isinstance(questionnaire, dict):
        raise QuestionnaireError(f"{where}.questionnaire: expected a mapping of sections")
    sections: dict[str, dict[str, str] | str] = {}
    for name, answer in questionnaire.items():
        if name not in SECTIONS:
            raise QuestionnaireError(f"{where}.questionnaire: unknown section {name!r}; expected {', '.join(SECTIONS)}")
        if isinstance(answer, dict):
            answers = {str(q): _text(a, f"{where}.questionnaire.{name}.{q}") for q, a in answer.items()}
            if "obtainable" in answers:
                _choice(answers["obtainable"], SOFTWARE_OBTAINABLE, f"{where}.questionnaire.{name}.obtainable")
            sections[name] = answers
        else:
            sections[name] = _text(answer, f"{where}.questionnaire.{name}")
    production = data.get("production") or {}
    if not isinstance(production, dict):
        raise QuestionnaireError(f"{where}.production: expected a mapping")
    unknown = sorted(set(production) - {"production_applications", "no_single_point_of_failure", "description"})
    if unknown:
        raise QuestionnaireError(f"{where}.production: unknown key {unknown[0]!r}")
    acknowledgements = data.get("acknowledgements") or {}
    if not isinstance(acknowledgements, dict) or set(acknowledgements) - {"rules", "publication"}:
        raise QuestionnaireError(f"{where}.acknowledgements: expected rules and publication (true/false)")
    cleaned = {
        "questionnaire": sections,
        "target_level": _choice(data.get("target_level"), LEVELS, f"{where}.target_level"),
        "target_list": _choice(data.get("target_list"), TARGET_LISTS, f"{where}.target_list"),
        "production": {
            "production_applications": _flag(
                production.get("production_applications"), f"{where}.production.production_applications"
            ),
            "no_single_point_of_failure": _flag(
                production.get("no_single_point_of_failure"), f"{where}.production.no_single_point_of_failure"
            ),
            "description": _text(production.get("description"), f"{where}.production.description"),
        },
        "acknowledgements": {
            "rules": _flag(acknowledgements.get("rules"), f"{where}.acknowledgements.rules"),
            "publication": _flag(acknowledgements.get("publication"), f"{where}.acknowledgements.publication"),
        },
    }
    return cleaned


def answered(answer) -> bool:
    """A section is answered when its text (all of it, for a mapping) has at least MIN_ANSWER_WORDS words."""
    if isinstance(answer, dict):
        text = " ".join(value for key, value in answer.items() if key != "obtainable")
    else:
        text = answer or ""
    return len(text.split()) >= MIN_ANSWER_WORDS


def declares_production(data: dict) -> bool:
    """The submitter declares production use: regular production applications and no single point of failure."""
    production = (data or {}).get("production") or {}
    return bool(production.get("production_applications") and production.get("no_single_point_of_failure"))


#: Endings of a find implementation's source files (a custom find shipped with the submission: ``pfind.rs``
#: beside ``./bpfs_pfind``, ``find.c``).
FIND_SOURCE_SUFFIXES = (".c", ".cc", ".cpp", ".py", ".sh", ".go", ".rs")


def is_find_source(name: str) -> bool:
    """Whether a submitted file is the source of a find implementation: ingest keeps such files with the run
    and completeness counts them as the "find sources" dump."""
    lowered = name.casefold()
    return "find" in lowered.rsplit("/", 1)[-1] and lowered.endswith(FIND_SOURCE_SUFFIXES)


@dataclass(frozen=True)
class TuningEvidence:
    """Which tuning dumps a run has attached; None when the dump does not apply to the run."""

    lctl_get_param: bool | None
    striping: bool | None
    find_sources: bool | None


@dataclass
class Completeness:
    metadata_missing: list[str]
    sections_answered: list[str]
    sections_missing: list[str]
    tuning_missing: list[str]
    software_obtainable: str
    notes: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return not (self.metadata_missing or self.sections_missing or self.tuning_missing)

    def to_dict(self) -> dict:
        return {
            "complete": self.complete,
            "metadata_missing": self.metadata_missing,
            "sections_answered": len(self.sections_answered),
            "sections_total": len(SECTIONS),
            "sections_missing": self.sections_missing,
            "tuning_missing": self.tuning_missing,
            "software_obtainable": self.software_obtainable,
            "proposed_level": proposed_level(self),
        }


def completeness(data: dict, metadata: dict, tuning: TuningEvidence) -> Completeness:
    """What a reproducible description of this run still lacks: metadata, sections, tuning dumps."""
    sections = (data or {}).get("questionnaire") or {}
    done = [name for name in SECTIONS if answered(sections.get(name))]
    software = sections.get("software")
    obtainable = software.get("obtainable", "") if isinstance(software, dict) else ""
    dumps = {"lctl get_param": tuning.lctl_get_param, "striping": tuning.striping, "find sources": tuning.find_sources}
    return Completeness(
        metadata_missing=[key for key in REQUIRED_METADATA if metadata.get(key) in (None, "", 0)],
        sections_answered=done,
        sections_missing=[name for name in SECTIONS if name not in done],
        tuning_missing=[name for name, present in dumps.items() if present is False],
        software_obtainable=obtainable,
    )


def proposed_level(found: Completeness) -> str:
    """A level suggested from the completeness (the committee decides):

    - Undefined: system metadata missing, or fewer than half the sections answered;
    - Limited: anything else missing (a section, a tuning dump), or the software's availability not stated;
    - Proprietary: complete, but the storage software cannot be obtained (not public);
    - Fully Reproducible: complete, and the software is open source or commercially available.
    """
    if found.metadata_missing or len(found.sections_answered) < len(SECTIONS) / 2:
        return UNDEFINED
    if not found.complete or found.software_obtainable not in SOFTWARE_OBTAINABLE:
        return LIMITED
    if found.software_obtainable == "not-public":
        return PROPRIETARY
    return FULLY_REPRODUCIBLE
