"""A published list beside the list ioboard would make over the same runs: the linked runs ranked by the scores
ioboard recomputed from their files, under the membership rules of the list's era, and each entry's move.

Plain Python: the caller (apps.results.services.published_audit) passes plain rows.

The published order is compared among the linked entries only (an entry without raw files has no recomputed
score, so it can neither pass nor be passed): an entry's published place is its position among the linked
entries of the list, in the published rank order. A run the list holds twice is ranked once, at its first row;
a run the era's rules keep off the list (a 10-node list entry not on 10 nodes) and a run without a recomputed
score get no reconstructed rank.
"""

from dataclasses import dataclass

LISTED_TWICE = "listed twice"
NOT_ELIGIBLE = "not eligible under the list's rules"
NO_SCORE = "no recomputed score"


@dataclass(frozen=True)
class LinkedEntry:
    """A published entry whose run was ingested."""

    key: int  # the entry's id
    run: int
    published_rank: int
    recomputed_score: float | None
    eligible: bool = True


@dataclass(frozen=True)
class RankMove:
    key: int
    published_place: int  # among the linked entries, in published order
    reconstructed_rank: int | None
    reason: str = ""  # why there is no reconstructed rank

    @property
    def move(self) -> int | None:
        """Places gained (positive) or lost (negative) when ranked by the files; None when not ranked."""
        return None if self.reconstructed_rank is None else self.published_place - self.reconstructed_rank


def rank_moves(entries: list[LinkedEntry]) -> list[RankMove]:
    """Each linked entry's published place and reconstructed rank, in published order."""
    published = sorted(entries, key=lambda entry: (entry.published_rank, entry.key))
    first_rows: dict[int, int] = {}
    reasons: dict[int, str] = {}
    for entry in published:
        if entry.run in first_rows:
            reasons[entry.key] = LISTED_TWICE
        elif not entry.eligible:
            reasons[entry.key] = NOT_ELIGIBLE
        elif entry.recomputed_score is None:
            reasons[entry.key] = NO_SCORE
        else:
            first_rows[entry.run] = entry.key
    ranked = sorted(
        (entry for entry in published if entry.key not in reasons),
        key=lambda entry: (-(entry.recomputed_score or 0.0), entry.published_rank, entry.key),
    )
    reconstructed = {entry.key: rank for rank, entry in enumerate(ranked, start=1)}
    return [
        RankMove(entry.key, place, reconstructed.get(entry.key), reasons.get(entry.key, ""))
        for place, entry in enumerate(published, start=1)
    ]
