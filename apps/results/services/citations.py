"""Citations of a run's placement, as the IO500 messaging policy (July 2026) asks them to be written.

A result is cited exactly ("#5 on the Production list at SC25") with a "verified" or "unverified" label (the
score hash of its result file verified, or not), and one comparison never mixes lists: results of a research
list and a production list are not comparable, so compare pages warn when both appear.
"""

from dataclasses import dataclass

from apps.results.models import EditionEntry, ListEntry, Run
from apps.results.models.list_kinds import LIST_KINDS, list_kind
from apps.results.models.querysets import entries_with_rank

VERIFIED, UNVERIFIED = "verified", "unverified"


@dataclass(frozen=True)
class Citation:
    text: str
    label: str
    list_kind: str
    edition: str  # empty for the live list

    def to_dict(self) -> dict:
        return {"text": self.text, "label": self.label, "list": self.list_kind, "edition": self.edition or None}


def verification_label(verification: str) -> str:
    return VERIFIED if verification == Run.Verification.VERIFIED else UNVERIFIED


def cite(rank: int | None, kind: str, edition: str, verification: str) -> Citation | None:
    """`#<rank> on the <list> at <edition>`, or `... (live list)` before an edition freezes it; None unranked."""
    if rank is None:
        return None
    where = f"at {edition}" if edition else "(live list)"
    return Citation(f"#{rank} on the {list_kind(kind).title} {where}", verification_label(verification), kind, edition)


def run_citations(run: Run) -> list[Citation]:
    """Every ranked placement of the run: the frozen editions (newest first), then the live ranked lists."""
    entries = (
        EditionEntry.objects.filter(run=run, rank__isnull=False, edition__list_kind__in=LIST_KINDS)
        .select_related("edition")
        .in_display_order()
    )
    live = dict(entries_with_rank().filter(run=run, ranked=True).values_list("kind", "rank"))
    return citations_from(run, entries, live)


def citations_from(run: Run, edition_entries, live_ranks: dict[str, int | None]) -> list[Citation]:
    """The citations of a run from its edition entries and its live ranks ({list kind: rank}), already loaded."""
    citations = [
        cite(entry.rank, entry.edition.list_kind, entry.edition.name, run.verification)
        for entry in edition_entries
        if entry.edition.list_kind in LIST_KINDS
    ]
    for kind in LIST_KINDS.values():
        if kind.slug in live_ranks and (kind.best_per_system or kind.track):
            citations.append(cite(live_ranks[kind.slug], kind.slug, "", run.verification))
    return [citation for citation in citations if citation]


def tracks_of(run_ids) -> dict[int, set[str]]:
    """Run id → the tracks ("research", "production") of the live lists it is ranked on."""
    tracks: dict[int, set[str]] = {pk: set() for pk in run_ids}
    for run_id, kind in ListEntry.objects.filter(run_id__in=run_ids, ranked=True).values_list("run_id", "kind"):
        if LIST_KINDS[kind].track:
            tracks[run_id].add(LIST_KINDS[kind].track)
    return tracks


def mixed_lists_warning(run_ids) -> str:
    """A warning when the compared runs come from a research list and a production list, else ""."""
    tracks = tracks_of(run_ids)
    research = sorted(pk for pk, found in tracks.items() if "research" in found)
    production = sorted(pk for pk, found in tracks.items() if "production" in found)
    if research and production:
        return (
            f"These runs come from different lists: runs {', '.join(map(str, research))} from a research list, "
            f"runs {', '.join(map(str, production))} from a production list. The IO500 messaging policy asks "
            "not to compare results across lists."
        )
    return ""
