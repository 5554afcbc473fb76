"""What a submitter does with their own uploads: withdraw one, replace it by a corrected version, and read what
an unreviewed run may claim (the IO500 messaging policy: "would place #5 on the Production list, unverified")."""

from dataclasses import dataclass

from apps.results.models import ReviewStatus, Run, Upload
from apps.results.models.list_kinds import LIST_KINDS, ListKind
from apps.results.services.list_entries import current_rank
from apps.results.services.review import review_run

#: Review statuses whose runs are still waiting for the committee's decision.
AWAITING_REVIEW = (ReviewStatus.SUBMITTED, ReviewStatus.UNDER_REVIEW)


def withdraw(upload: Upload, *, by, note: str = "withdrawn by the submitter") -> int:
    """Withdraw every run of the upload (a review status: the runs leave the lists, the history keeps them)."""
    runs = list(upload.runs.exclude(review_status=ReviewStatus.WITHDRAWN))
    for run in runs:
        review_run(run, by=by, status=ReviewStatus.WITHDRAWN, note=note, for_submitter=True)
    return len(runs)


def supersede(previous: Upload, corrected: Upload, *, by) -> None:
    """The corrected upload replaces the previous one: the previous one's runs are withdrawn, and it stays in
    the corrected upload's history (``Upload.supersedes``)."""
    corrected.supersedes = previous
    corrected.save(update_fields=["supersedes"])
    withdraw(previous, by=by, note=f"superseded by upload {corrected.pk}")


@dataclass(frozen=True)
class WouldPlace:
    list_kind: ListKind
    rank: int

    def __str__(self) -> str:
        return f"would place #{self.rank} on the {self.list_kind.title} as of today, unverified"


def would_place(run: Run) -> list[WouldPlace]:
    """The rank the run's score would have today on each list of its track (production if it targets the
    production list, research otherwise; the ten-node lists only for a ten-node run), were it accepted.

    Only for an eligible run still waiting for review: an accepted run has its real place on the lists."""
    if run.review_status not in AWAITING_REVIEW or not run.is_eligible or run.score_total is None:
        return []
    target = (run.reproducibility or {}).get("target_list") or "research"
    return [
        WouldPlace(kind, current_rank(kind.slug, run.score_total))
        for kind in LIST_KINDS.values()
        if kind.track == target and ("ten-node" not in kind.slug or run.client_nodes == 10)
    ]
