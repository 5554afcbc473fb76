"""The IO500 awards of an edition: overall, bandwidth and metadata on each of the four ranked lists (12 awards).

Computed from the frozen editions, never from the live lists: an award, like the list it comes from, does not
change after the BoF. A list with no ranked entry gives no winner (the award is listed, unawarded).
"""

from django.db.models import F

from apps.results.models import Edition, EditionEntry
from apps.results.models.list_kinds import AWARD_LISTS, LIST_KINDS

#: Award category → the frozen entry field it is decided on.
CATEGORIES = {"overall": "score", "bandwidth": "score_bw", "metadata": "score_md"}


def award_order(field: str) -> list:
    """Best `field` first, then by rank and id: the order of the field's descending sort index (migration 0041),
    so an award reads its winner from the index. NULLs and unranked entries are never candidates; their place in
    the order only lets it match the index's. Equal ranks have equal scores, so the score's place changes
    nothing."""
    return [F(field).desc(nulls_last=True), F("rank").asc(nulls_last=True), F("score").desc(nulls_last=True), "pk"]


def edition_awards(name: str) -> list[dict]:
    """The 12 awards of edition `name`, in list order then category order."""
    editions = {edition.list_kind: edition for edition in Edition.objects.filter(name=name, list_kind__in=AWARD_LISTS)}
    awards = []
    for slug in AWARD_LISTS:
        edition = editions.get(slug)
        for category, field in CATEGORIES.items():
            winner = None
            if edition is not None:
                ranked = EditionEntry.objects.filter(edition=edition, rank__isnull=False, **{f"{field}__isnull": False})
                winner = ranked.order_by(*award_order(field)).first()
            awards.append(
                {
                    "edition": name,
                    "list": slug,
                    "list_title": LIST_KINDS[slug].title,
                    "category": category,
                    "winner": None
                    if winner is None
                    else {
                        "run": winner.run_id,
                        "system": winner.system_name,
                        "institution": winner.institution_name,
                        "rank": winner.rank,
                        "score": winner.score,
                        "score_bw": winner.score_bw,
                        "score_md": winner.score_md,
                        "value": getattr(winner, field),
                    },
                }
            )
    return awards
