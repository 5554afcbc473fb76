"""The committee's review of a submission: status, reproducibility level, production acceptance, checklist, notes.

Every change goes through these functions (the admin's too), so each one is checked (`check_decisions`) and
leaves a note (who, when, what), and the run is saved through apps.results.services.runs, which re-derives its list
entries in the same transaction: a run the committee accepts appears on the ranked lists at the next read,
one it rejects or withdraws leaves them.
"""

from dataclasses import replace
from datetime import date

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from apps.results.judgements.anomalies import RunFacts
from apps.results.judgements.reproducibility import (
    LEVELS,
    TuningEvidence,
    completeness,
    declares_production,
    is_find_source,
)
from apps.results.judgements.submission_rules import CLAUSES, ClauseOutcome, check_clauses, target_rules_edition
from apps.results.models import ReviewCheck, ReviewNote, ReviewStatus, RulesEdition, Run
from apps.results.services import runs
from apps.results.services.anomaly_checks import check_run_anomalies
from apps.results.services.freshness import bump_data_version_on_commit
from apps.results.services.notifications import notify_review_decision


class ReviewError(ValueError):
    """A review action that cannot be applied; the message says why."""


def rules_edition_on(day: date) -> RulesEdition | None:
    """The rules edition in force on `day` (since <= day < until)."""
    return (
        RulesEdition.objects.filter(since__lte=day)
        .filter(Q(until__isnull=True) | Q(until__gt=day))
        .order_by("-since")
        .first()
    )


def _external_find(run: Run) -> str:
    find = (run.config or {}).get("find") or {}
    return str(find.get("external-script") or find.get("external_script") or "") if isinstance(find, dict) else ""


def tuning_evidence(run: Run) -> TuningEvidence:
    """Which tuning dumps the run carries. lctl and striping dumps apply to Lustre runs; find sources to runs
    whose find phase ran an external script."""
    lustre = run.system.filesystem.casefold().startswith("lustre")
    external_find = _external_find(run)
    find_sources = None
    if external_find:
        find_sources = any(is_find_source(file.name) for file in run.files.all())  # prefetched on run pages
    return TuningEvidence(
        lctl_get_param=bool(run.tunables.all()) if lustre else None,
        striping=bool(run.stripings.all()) if lustre else None,
        find_sources=find_sources,
    )


def system_metadata(run: Run) -> dict:
    system = run.system
    return {
        "institution": system.institution.name,
        "system": system.name,
        "filesystem": system.filesystem,
        "storage_vendor": system.storage_vendor,
        "client_nodes": run.client_nodes,
        "server_count": system.server_count,
    }


def reproducibility_report(run: Run, *, staff: bool) -> dict:
    """Completeness, proposed level and the submitter's targets; the committee's level and production
    acceptance only for staff (the level is the committee's to publish)."""
    data = run.reproducibility or {}
    found = completeness(data, system_metadata(run), tuning_evidence(run)).to_dict()
    report = {
        **found,
        "target_level": data.get("target_level", ""),
        "target_list": data.get("target_list", ""),
        "production_declared": declares_production(data),
        "production": data.get("production", {}),
        "acknowledgements": data.get("acknowledgements", {}),
    }
    if staff:
        report.update(
            assigned_level=run.reproducibility_level,
            production_accepted=run.production_accepted,
            review_status=run.review_status,
            system_claim=run.system_claim,
        )
    return report


def check_decisions(
    reproducibility: dict | None,
    *,
    status: str | None = None,
    level: str | None = None,
    production_accepted: bool | None = None,
) -> None:
    """Refuse decisions the committee cannot make (ReviewError): an unknown status or level, or accepting a
    production declaration the submitter's answers (`reproducibility`) do not make."""
    if status is not None and status not in ReviewStatus.values:
        raise ReviewError(f"unknown status {status!r}; choose one of {', '.join(ReviewStatus.values)}")
    if level is not None and level not in LEVELS:
        raise ReviewError(f"unknown level {level!r}; choose one of {', '.join(LEVELS)}")
    if production_accepted and not declares_production(reproducibility or {}):
        raise ReviewError(
            "the submitter has not declared production use (production applications and "
            "no single point of failure); nothing to accept"
        )


def review_run(
    run: Run,
    *,
    by,
    status: str | None = None,
    level: str | None = None,
    production_accepted: bool | None = None,
    note: str = "",
    for_submitter: bool = False,
    batch: runs.Batch | None = None,
) -> ReviewNote:
    """Apply the committee's decisions to a run and record them in a note, in the caller's batch of writes
    (the admin's edit of the run's other fields) or in one of its own. The note is the committee's own unless
    `for_submitter`: then the submitter reads it (My submissions) and a decision's mail quotes it."""
    check_decisions(run.reproducibility, status=status, level=level, production_accepted=production_accepted)
    changes = []
    with runs.joined(batch) as work, work.transaction():
        run = Run.objects.select_for_update().get(pk=run.pk)
        status_changed = status is not None and status != run.review_status
        if status_changed:
            changes.append(f"status {run.review_status} → {status}")
            run.review_status = status
        if level is not None and level != run.reproducibility_level:
            changes.append(f"level {run.reproducibility_level} → {level}")
            run.reproducibility_level = level
        if production_accepted is not None and production_accepted != run.production_accepted:
            changes.append("production declaration " + ("accepted" if production_accepted else "not accepted"))
            run.production_accepted = production_accepted
        if changes:
            work.edit(run, fields=["review_status", "reproducibility_level", "production_accepted", "updated_at"])
            if status_changed:
                # Whether the run counts as a duplicate of its copies follows its status (`counted_duplicates`).
                check_run_anomalies(run, batch=work)
            # Only runs visible as ranked are a system's history (apps.results.services.changes): detect it again.
            work.detect_changes([run.pk])
        text = "\n".join(part for part in (note.strip(), "; ".join(changes)) if part)
        if status_changed:
            notify_review_decision(run, status=status, note=note if for_submitter else "")
        return ReviewNote.objects.create(
            run=run, author=by, text=text, status=status or "", for_submitter=for_submitter
        )


def check_item(run: Run, *, rules_edition: RulesEdition, item: str, passed: bool, by, note: str = "") -> ReviewCheck:
    """Record (or re-record) one checklist item of the rules edition for the run."""
    if item not in (rules_edition.checklist or []):
        raise ReviewError(
            f"{item!r} is not on the checklist of {rules_edition.name}: "
            f"{'; '.join(rules_edition.checklist or []) or 'it has none'}"
        )
    with transaction.atomic():
        check, _ = ReviewCheck.objects.update_or_create(
            run=run,
            rules_edition=rules_edition,
            item=item,
            defaults={"passed": passed, "note": note, "checked_by": by, "checked_at": timezone.now()},
        )
        bump_data_version_on_commit()
    return check


def clause_outcomes(run: Run) -> tuple[str | None, list[ClauseOutcome]]:
    """The edition a run targets (its C-app release, else the list after its date) and the outcome of each
    clause of that edition's rules from the run's files and anomalies: pass, fail, not applicable, or why a
    clause is not checked from files."""
    if not run.facts:
        return None, []
    # The clauses read the client-node count the lists use, so the rules table and the lists never disagree.
    facts = replace(RunFacts.from_dict(run.facts), client_nodes=run.client_nodes)
    edition = target_rules_edition(facts)
    return edition, check_clauses(facts, [anomaly.rule for anomaly in run.anomalies.all()], edition)


def clause_report(run: Run) -> dict:
    """clause_outcomes() as data (the review API)."""
    edition, outcomes = clause_outcomes(run)
    return {
        "edition": edition,
        "outcomes": [
            {
                "clause": outcome.clause.id,
                "text": outcome.clause.text,
                "outcome": outcome.outcome,
                "detail": outcome.detail,
            }
            for outcome in outcomes
        ],
    }


#: Clause texts by ID: a checklist item that is a clause ID is shown with the clause's text.
CLAUSE_TEXTS = {clause.id: clause.text for clause in CLAUSES}


def checklist(run: Run, rules_edition: RulesEdition) -> list[dict]:
    """Every item of the edition's checklist with its check for this run, unchecked ones included."""
    checks = {
        check.item: check
        for check in run.review_checks.filter(rules_edition=rules_edition).select_related("checked_by")
    }
    rows = []
    for item in rules_edition.checklist or []:
        check = checks.get(item)
        rows.append(
            {
                "item": item,
                "clause": CLAUSE_TEXTS.get(item, ""),
                "checked": check is not None,
                "passed": check.passed if check else None,
                "checked_by": check.checked_by.get_username() if check and check.checked_by else None,
                "checked_at": check.checked_at if check else None,
                "note": check.note if check else "",
            }
        )
    return rows
