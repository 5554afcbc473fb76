"""The IO500 submission rules as clauses with stable IDs, the list editions they apply to, and checks.

Modelled on the MLPerf Storage submission checker (``submission_checker/rule_registry.py``,
``tools/rules_coverage.py``): every clause of the rules is one entry here, with the editions it
applies to (``since``/``until``, inclusive) and how ioboard treats it:

* ``checked``: the named anomaly rules (``apps.results.judgements.anomalies``) or clause checks
  (``CLAUSE_CHECKS`` below) decide it from the submitted files;
* ``not_checkable``: the clause is real but no file of a submission shows whether it was kept;
* ``out_of_scope``: the clause is about something ioboard does not do (awards, SCC lists).

``python manage.py rules_coverage`` fails when a clause is unmapped, names an unknown rule, or is
missing from ``docs/rules.md`` (which the same command writes). Plain Python data, no Django.
Clause texts paraphrase the rules as docs/io500-formats.md section 4 documents them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from apps.results.judgements.anomalies.facts import RunFacts

RULES_EDITIONS = (
    "sc17", "isc18", "sc18", "isc19", "sc19", "isc20", "sc20", "isc21", "sc21", "isc22", "sc22",
    "isc23", "sc23", "isc24", "sc24", "isc25", "sc25", "isc26", "sc26",
)  # fmt: skip
STATUSES = ("checked", "not_checkable", "out_of_scope")
PASS, FAIL, NOT_APPLICABLE = "pass", "fail", "not_applicable"

_TAG = re.compile(r"^io500-((?:isc|sc)\d\d)")
_MODIFIED = re.compile(r"-\d+$")
_LAUNCHERS = {"mpirun", "mpiexec", "orterun", "srun", "aprun", "jsrun"}


@dataclass(frozen=True)
class Clause:
    id: str
    text: str
    status: str
    since: str = RULES_EDITIONS[0]
    until: str | None = None
    checked_by: tuple[str, ...] = ()  # anomaly rule names or CLAUSE_CHECKS keys
    reason: str = ""  # why a clause is not checkable or out of scope

    def applies_to(self, rules_edition: str) -> bool:
        position = RULES_EDITIONS.index(rules_edition)
        last = RULES_EDITIONS.index(self.until) if self.until else len(RULES_EDITIONS) - 1
        return RULES_EDITIONS.index(self.since) <= position <= last


@dataclass(frozen=True)
class ClauseOutcome:
    clause: Clause
    outcome: str  # pass, fail, not_applicable
    detail: str = ""


CLAUSES: tuple[Clause, ...] = (
    Clause(
        "IO500-VALID",
        "The benchmark itself must not mark the run invalid.",
        "checked",
        checked_by=("benchmark_marked_invalid",),
    ),
    Clause("IO500-ALL-PHASES", "All mandatory phases run and are scored.", "checked", checked_by=("missing_phase",)),
    Clause(
        "IO500-SCORE-CONSISTENT",
        "The reported score is the one the rules compute from the phase results.",
        "checked",
        checked_by=("reported_score_mismatch",),
    ),
    Clause(
        "IO500-WRITE-300S",
        "Every write phase runs at least 300 s (30 s under the student cluster rules).",
        "checked",
        since="isc18",
        checked_by=("write_phase_under_minimum",),
    ),
    Clause(
        "IO500-STONEWALL-TIME",
        "The stonewall time is set to the minimum write time (300 s).",
        "checked",
        since="isc20",
        checked_by=("stonewall_time_is_minimum",),
    ),
    Clause(
        "IO500-STONEWALL-WEAROUT",
        "IOR write phases run with the stonewall and wear-out (-D with "
        "stoneWallingWearOut=1), so every rank writes as much as the fastest did by the stonewall.",
        "checked",
        since="isc20",
        checked_by=("stonewall_wear_out",),
    ),
    Clause(
        "IO500-RANK-SHIFT",
        "mdtest stat, read and delete phases run with -N (rank shift) so that no rank touches the files it created.",
        "checked",
        since="sc19",
        checked_by=("stat_without_rank_shift",),
    ),
    Clause(
        "IO500-NO-CLIENT-CACHE",
        "Read and stat phases measure the storage, not the client caches.",
        "checked",
        checked_by=("cache_effect_stat", "cache_effect_read"),
    ),
    Clause(
        "IO500-SC18-MDTEST-RATE",
        "mdtest write rates count the items really created before the stonewall "
        "(the SC18 lists were corrected for this).",
        "checked",
        since="sc18",
        until="isc19",
        checked_by=("stonewall_inflated_rate",),
    ),
    Clause(
        "IO500-SCORE-HASH",
        "result.txt is unmodified: its score hash verifies.",
        "checked",
        since="isc20",
        checked_by=("score_hash_mismatch",),
    ),
    Clause(
        "IO500-APP-VERSION",
        "The run uses the IO500 application release of the list it is submitted to (or the one before).",
        "checked",
        since="sc20",
        checked_by=("app_version_for_list",),
    ),
    Clause(
        "IO500-UNMODIFIED-SOURCE",
        "The benchmark source is not modified (no local-diff suffix in the version).",
        "checked",
        since="isc20",
        checked_by=("unmodified_source",),
    ),
    Clause(
        "IO500-CUSTOM-FIND-SOURCES",
        "A custom find replacing pfind is submitted with its sources.",
        "checked",
        since="isc20",
        checked_by=("custom_find_sources_included",),
    ),
    Clause(
        "IO500-NODES-DECLARED",
        "The declared client node count is the one the benchmark ran on.",
        "checked",
        checked_by=("node_count_mismatch",),
    ),
    Clause(
        "IO500-TEN-NODE-CLIENTS",
        "A 10-node list entry ran on exactly 10 client nodes.",
        "checked",
        since="sc18",
        checked_by=("ten_node_client_count",),
    ),
    Clause(
        "IO500-AWARD-MIN-NODES",
        "At least 10 client nodes to be eligible for awards.",
        "checked",
        since="sc18",
        checked_by=("award_client_nodes",),
    ),
    Clause(
        "IO500-SCC-RULES",
        "Student cluster competition lists use relaxed rules (30 s writes).",
        "out_of_scope",
        since="sc19",
        reason="ioboard keeps no SCC list; the 30 s minimum is applied through IO500-WRITE-300S",
    ),
    Clause(
        "IO500-REPRODUCIBILITY",
        "The submission answers the reproducibility questionnaire; the Production "
        "list takes the highest reproducibility score.",
        "not_checkable",
        since="isc23",
        reason="questionnaire answers are not part of the result files",
    ),
    Clause(
        "IO500-NO-SPOF",
        "Production list systems have no single point of failure.",
        "not_checkable",
        since="isc23",
        reason="a property of the installation, not of the result files",
    ),
    Clause(
        "IO500-SYSTEM-DESCRIPTION",
        "The submission describes the system it ran on accurately.",
        "not_checkable",
        reason="accuracy is judged by the committee; the files only carry what was declared",
    ),
)


def clause_by_id(clause_id: str) -> Clause:
    return next(clause for clause in CLAUSES if clause.id == clause_id)


def clauses_for(rules_edition: str, clauses: Iterable[Clause] = CLAUSES) -> list[Clause]:
    return [clause for clause in clauses if clause.applies_to(rules_edition)]


def manual_checklist(rules_edition: str) -> list[str]:
    """The IDs of the clauses of a rules edition that no file shows (``not_checkable``): a reviewer checks them by
    hand, so they are the review checklist a rules edition starts with."""
    return [clause.id for clause in clauses_for(rules_edition) if clause.status == "not_checkable"]


def rules_edition_of_date(iso_date: str) -> str | None:
    """The first list after a run date: ISC lists (June) take runs up to May, SC lists up to November."""
    if not iso_date:
        return None
    year, month = int(iso_date[:4]), int(iso_date[5:7])
    if month > 11:
        year, prefix = year + 1, "isc"
    else:
        prefix = "isc" if month <= 5 else "sc"
    rules_edition = f"{prefix}{year % 100:02d}"
    return rules_edition if rules_edition in RULES_EDITIONS else None


def rules_edition_of_version(version: str) -> str | None:
    match = _TAG.match(version.strip())
    return match.group(1) if match and match.group(1) in RULES_EDITIONS else None


def target_rules_edition(facts: RunFacts) -> str | None:
    """The rules edition (the list) a run was made for: its C-app release tag, else the list after its date."""
    return rules_edition_of_version(facts.benchmark_version) or rules_edition_of_date(facts.run_date)


# Clause checks that are not anomaly rules: facts -> (outcome, detail)
def _stonewall_time(facts: RunFacts) -> tuple[str, str]:
    if facts.era != "capp" or facts.stonewall_seconds is None:
        return NOT_APPLICABLE, "no [debug] stonewall-time in the files"
    minimum = 30 if facts.rules_mode == "scc" else 300
    outcome = PASS if facts.stonewall_seconds == minimum else FAIL
    return outcome, f"stonewall-time = {facts.stonewall_seconds:g} s, minimum write time {minimum} s"


def _wear_out(facts: RunFacts) -> tuple[str, str]:
    """The C app passes ``-D <stonewall>`` and ``stoneWallingWearOut=1`` to its IOR write phases."""
    if facts.era != "capp":
        return NOT_APPLICABLE, "the io500.sh scripts set the stonewall themselves"
    checked, missing = [], []
    for name in ("ior_easy_write", "ior_hard_write"):
        phase = facts.phases.get(name)
        if phase is None or not phase.command:
            continue
        checked.append(name)
        if not (re.search(r"(?:^|\s)-D\s*\d+", phase.command) and "stoneWallingWearOut=1" in phase.command):
            missing.append(name)
    if not checked:
        return NOT_APPLICABLE, "no IOR write command lines in the files"
    if missing:
        return FAIL, f"without stonewall wear-out: {', '.join(missing)}"
    return PASS, f"stonewall wear-out in {', '.join(checked)}"


def _app_version(facts: RunFacts) -> tuple[str, str]:
    release = rules_edition_of_version(facts.benchmark_version)
    listed = rules_edition_of_date(facts.run_date)
    if facts.era != "capp" or listed is None or not facts.benchmark_version.strip():
        return NOT_APPLICABLE, "no C-app version and run date to place the run on a list"
    if release is None:
        return FAIL, f"version {facts.benchmark_version!r} is no IO500 release tag"
    allowed = RULES_EDITIONS[max(0, RULES_EDITIONS.index(listed) - 1) : RULES_EDITIONS.index(listed) + 1]
    outcome = PASS if release in allowed else FAIL
    detail = f"release {release}, run dated {facts.run_date} for the {listed} list (allowed: {', '.join(allowed)})"
    return outcome, detail


def _unmodified_source(facts: RunFacts) -> tuple[str, str]:
    if facts.era != "capp" or not facts.benchmark_version:
        return NOT_APPLICABLE, "no C-app version string"
    version = facts.benchmark_version.strip()
    if rules_edition_of_version(version) and _MODIFIED.search(version) and not re.search(r"-g[0-9a-f]+$", version):
        return FAIL, f"version {version} carries a local-modification suffix"
    return PASS, f"version {version}"


def find_executable(command: str) -> str:
    """The find program of a find command line, past an MPI launcher, its options and their values."""
    previous = ""
    for token in command.split():
        name = token.rsplit("/", 1)[-1]
        if not (name in _LAUNCHERS or token.startswith("-") or previous.startswith("-")):
            return name
        previous = token
    return ""


def _custom_find_sources(facts: RunFacts) -> tuple[str, str]:
    find = facts.phases.get("find")
    if facts.era != "capp" or find is None or not find.command:
        return NOT_APPLICABLE, "no find command line in the files"
    program = find_executable(find.command)
    if program in ("", "pfind"):
        return NOT_APPLICABLE, f"find ran {program or 'an unknown program'}"
    included = {name.rsplit("/", 1)[-1] for name in facts.included_files}
    if program in included:
        return PASS, f"{program} is included"
    return FAIL, f"custom find {program} is not among the submitted files"


def _client_nodes(facts: RunFacts) -> int | None:
    """The count the run is listed with (`facts.client_nodes`, set from the stored run), else the tools' one count,
    else the declared one."""
    if facts.client_nodes is not None:
        return facts.client_nodes
    counts = sorted({int(entry["nodes"]) for entry in facts.tool_node_counts if entry.get("nodes")})
    return counts[0] if len(counts) == 1 else facts.client_nodes_declared


def _ten_node(facts: RunFacts) -> tuple[str, str]:
    nodes = _client_nodes(facts)
    if nodes is None:
        return NOT_APPLICABLE, "client node count unknown"
    if nodes == 10:
        return PASS, "10 client nodes: eligible for the 10-node list"
    return NOT_APPLICABLE, f"{nodes} client nodes: not a 10-node list entry"


def _award_nodes(facts: RunFacts) -> tuple[str, str]:
    """The awards of an edition (apps.results.services.awards) go to runs on at least 10 client nodes."""
    nodes = _client_nodes(facts)
    if nodes is None:
        return NOT_APPLICABLE, "client node count unknown"
    if nodes >= 10:
        return PASS, f"{nodes} client nodes: eligible for awards"
    return FAIL, f"{nodes} client nodes: fewer than 10, not eligible for awards"


CLAUSE_CHECKS: dict[str, Callable[[RunFacts], tuple[str, str]]] = {
    "stonewall_time_is_minimum": _stonewall_time,
    "stonewall_wear_out": _wear_out,
    "app_version_for_list": _app_version,
    "unmodified_source": _unmodified_source,
    "custom_find_sources_included": _custom_find_sources,
    "ten_node_client_count": _ten_node,
    "award_client_nodes": _award_nodes,
}


def check_clauses(facts: RunFacts, rules_found: Iterable[str], rules_edition: str | None = None) -> list[ClauseOutcome]:
    """Pass/fail of every checked clause of the run's rules edition; ``rules_found`` = its anomaly rule names.

    A clause checked by anomaly rules fails when one of them found something; one checked by a
    clause check fails when the check says so. Clauses not checkable from files are listed as such.
    """
    rules_edition = rules_edition or target_rules_edition(facts)
    if rules_edition is None:
        return []
    found = set(rules_found)
    outcomes = []
    for clause in clauses_for(rules_edition):
        if clause.status != "checked":
            outcomes.append(ClauseOutcome(clause, clause.status, clause.reason))
            continue
        failing = [name for name in clause.checked_by if name in found]
        results = [CLAUSE_CHECKS[name](facts) for name in clause.checked_by if name in CLAUSE_CHECKS]
        if failing or any(outcome == FAIL for outcome, _ in results):
            details = [f"finding of {name}" for name in failing] + [d for o, d in results if o == FAIL]
            outcomes.append(ClauseOutcome(clause, FAIL, "; ".join(details)))
        elif results and all(outcome == NOT_APPLICABLE for outcome, _ in results):
            outcomes.append(ClauseOutcome(clause, NOT_APPLICABLE, "; ".join(d for _, d in results)))
        else:
            detail = "; ".join(
                [d for _, d in results] + [f"no finding of {n}" for n in clause.checked_by if n not in CLAUSE_CHECKS]
            )
            outcomes.append(ClauseOutcome(clause, PASS, detail))
    return outcomes


def coverage_problems(
    clauses: Iterable[Clause], rule_clauses: dict[str, str], docs_text: str | None = None
) -> list[str]:
    """Everything that keeps the registry from covering the rules; empty when it is complete.

    ``rule_clauses`` maps every anomaly rule name to the clause it names ("" for advisory rules).
    """
    clauses = list(clauses)
    known_checks = set(rule_clauses) | set(CLAUSE_CHECKS)
    ids = [clause.id for clause in clauses]
    problems = [f"clause ID {clause_id} is used twice" for clause_id in sorted({i for i in ids if ids.count(i) > 1})]
    for clause in clauses:
        if clause.status not in STATUSES:
            problems.append(f"{clause.id}: unmapped (status {clause.status!r}, expected one of {', '.join(STATUSES)})")
        elif clause.status == "checked" and not clause.checked_by:
            problems.append(f"{clause.id}: marked checked but no rule checks it")
        elif clause.status != "checked" and not clause.reason:
            problems.append(f"{clause.id}: {clause.status} without a reason")
        problems += [
            f"{clause.id}: checked by unknown rule {name}" for name in clause.checked_by if name not in known_checks
        ]
        for rules_edition in (clause.since, clause.until):
            if rules_edition is not None and rules_edition not in RULES_EDITIONS:
                problems.append(f"{clause.id}: unknown edition {rules_edition}")
        if docs_text is not None and clause.id not in docs_text:
            problems.append(f"{clause.id}: not listed in docs/rules.md")
    problems += [
        f"rule {rule} names unknown clause {clause_id}"
        for rule, clause_id in sorted(rule_clauses.items())
        if clause_id and clause_id not in ids
    ]
    return problems


def render_rules_doc(clauses: Iterable[Clause] = CLAUSES) -> str:
    """docs/rules.md: every clause of every rules edition, with how ioboard checks it."""
    clauses = list(clauses)
    lines = [
        "# IO500 submission rules, clause by clause",
        "",
        "Generated by `python manage.py rules_coverage --write docs/rules.md` from",
        "`apps/results/judgements/submission_rules.py`; do not edit by hand. Each clause has a stable ID and the list",
        "editions it applies to. *checked* clauses name the anomaly rule or clause check that decides them",
        "from the submitted files; the run page shows pass/fail for the edition a run targets (its C-app",
        "release tag, else the first list after its run date).",
        "",
        "## Clauses",
        "",
        "| ID | Clause | Editions | Status | Checked by / why not |",
        "| --- | --- | --- | --- | --- |",
    ]
    for clause in clauses:
        editions = f"{clause.since} – {clause.until or 'today'}"
        how = ", ".join(f"`{name}`" for name in clause.checked_by) or clause.reason
        lines.append(f"| {clause.id} | {clause.text} | {editions} | {clause.status} | {how} |")
    lines += ["", "## Per edition", ""]
    for rules_edition in RULES_EDITIONS:
        applying = clauses_for(rules_edition, clauses)
        checked = [c.id for c in applying if c.status == "checked"]
        other = [f"{c.id} ({c.status.replace('_', ' ')})" for c in applying if c.status != "checked"]
        lines.append(
            f"- **{rules_edition}**: checked {', '.join(checked) or 'none'}"
            + (f"; {', '.join(other)}" if other else "")
        )
    return "\n".join(lines) + "\n"
