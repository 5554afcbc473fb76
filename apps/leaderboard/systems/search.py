"""Finding systems by `?q=` (institution, system, file system, vendor): the systems index, and the newest
runs of the matching systems that the front door and the compare page's picker show."""

from django import forms
from django.db.models import Q

from apps.results.models import Run, StorageSystem
from apps.results.models.list_kinds import ranked_condition
from apps.results.models.systems import identity_key


def system_matches(query: str, reader=None):
    """Storage systems whose institution, name or file system (their identity key: case and punctuation folded)
    holds every word of `query`, or whose vendor contains it. The key is one column of the system row, so the
    search reads no join, and the systems come in key order, which its unique index serves a page at a time.
    Only the systems `reader` may see (None: anonymous)."""
    systems = StorageSystem.objects.visible_to(reader).select_related("institution")
    words = identity_key(query).split()
    if words:
        in_key = Q()
        for word in words:
            in_key &= Q(key__contains=word)
        systems = systems.filter(in_key | Q(storage_vendor__icontains=query))
    return systems.order_by("key")


def newest_shown_runs(query: str, limit: int = 50, reader=None, *, ranked_only: bool = False) -> list:
    """The newest IO500 runs shown under their system's name (no pending claims), of the systems matching `query`
    (all when empty) that `reader` may see (None: anonymous): the front door's newest runs and the compare
    page's picker. `ranked_only`: runs visible as ranked only (`list_kinds.ranked_condition`), so that no name
    known only from runs the committee has not accepted is shown (the front door, to every reader)."""
    visible = Run.objects.visible_to(reader)
    runs = (
        (visible.filter(ranked_condition()) if ranked_only else visible)
        .filter(kind="io500")
        .without_pending_claims()
        .select_related("system__institution")
        .only(
            "pk",
            "run_timestamp",
            "year",
            "score_total",
            "client_nodes",
            "created_at",
            "system__name",
            "system__filesystem",
            "system__institution__name",
        )
    )
    if query:
        runs = runs.filter(system__in=system_matches(query, reader).values("pk"))
    return list(runs.order_by("-pk")[:limit])


class SystemSearchForm(forms.Form):
    """`?q=` of the systems index and the compare page's run picker (institution, system, file system, vendor)."""

    q = forms.CharField(required=False, max_length=100)

    def __init__(self, data, *args, **kwargs):
        super().__init__(data, *args, **kwargs)
        self.is_valid()

    @property
    def query(self) -> str:
        return (self.cleaned_data.get("q") or "").strip() if "q" not in self.errors else ""
