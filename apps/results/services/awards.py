"""The IO500 awards of an edition: overall, bandwidth and metadata on each of the four ranked lists (12 awards).

Computed from the frozen editions, never from the live lists: an award, like the list it comes from, does not
change after the BoF. A list with no ranked entry gives no winner (the award is listed, unawarded).
"""

from apps.results.models import Edition, EditionEntry
from apps.results.models.list_kinds import AWARD_LISTS, LIST_KINDS

#: Award category → the frozen entry field it is decided on.
CATEGORIES = {"overall": "score", "bandwidth": "score_bw", "metadata": "score_md"}


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
                winner = ranked.order_by(f"-{field}", "rank", "pk").first()
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
