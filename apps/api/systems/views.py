"""Storage systems, each with its best ranked score; a system's page lists its runs."""

from django.db.models import Count, OuterRef, Prefetch, Q, Subquery, Window
from django.db.models.functions import Coalesce, RowNumber
from rest_framework import viewsets

from apps.api.common.viewsets import BY_SCORE_NULLS_LAST, ApiDefaults
from apps.api.systems.filters import SystemFilter
from apps.api.systems.serializers import SystemDetailSerializer, SystemSerializer
from apps.results.models import ReviewStatus, Run, StorageSystem
from apps.results.models.querysets import CountedKeys
from apps.results.models.visibility import run_visible_condition

#: The runs a system's detail holds, best first: its size does not grow with what one account uploaded.
SYSTEM_DETAIL_RUNS = 100


class SystemViewSet(ApiDefaults, viewsets.ReadOnlyModelViewSet):
    """Storage systems (institution + system + file system), with their run count and best ranked score.
    The detail lists the system's best runs (at most SYSTEM_DETAIL_RUNS; `run_count` counts them all): every run
    of a system, paged, is `/api/v1/runs/?system=<id>`."""

    filterset_class = SystemFilter
    lookup_value_regex = r"\d+"

    def get_queryset(self):
        reader = self.request.user
        systems = self.summarised(StorageSystem.objects.visible_to(reader))
        if self.action == "retrieve":
            # The best SYSTEM_DETAIL_RUNS by their place in the system (a prefetch cannot take a slice here: the
            # related manager filters the queryset it is given).
            place = Window(RowNumber(), partition_by="system_id", order_by=BY_SCORE_NULLS_LAST)
            runs = (
                Run.objects.visible_to(reader)
                .without_pending_claims(reader)
                .without_large_fields()
                .annotate(place=place)
                .filter(place__lte=SYSTEM_DETAIL_RUNS)
                .order_by(*BY_SCORE_NULLS_LAST)
            )
            systems = systems.prefetch_related(Prefetch("runs", queryset=runs))
        return systems

    def summarised(self, systems):
        """`systems` with their institution, run count and best ranked score, in the collection's order."""
        runs_of_system = Run.objects.filter(system=OuterRef("pk")).order_by()
        best_score = runs_of_system.ranked().order_by(*BY_SCORE_NULLS_LAST)
        # Counted per system of the page, a correlated subquery: counted over a join of every system with every
        # run, the page grouped the whole run table before it could take its 50 systems (1.4 s at 100k runs).
        shown = (
            runs_of_system.filter(Q(system_claim="") | Q(review_status=ReviewStatus.ACCEPTED))
            .filter(run_visible_condition(self.request.user))
            .values("system")
            .annotate(count=Count("pk"))
            .values("count")
        )
        return (
            systems.select_related("institution")
            .annotate(
                run_count=Coalesce(Subquery(shown), 0),
                best_score=Subquery(best_score.values("score_total")[:1]),
            )
            .order_by("institution__name", "name", "pk")
        )

    def paginate_queryset(self, queryset):
        """The page's systems, counted as every system the filters match less those hidden from the reader
        (`StorageSystemQuerySet.count_visible_to`), rather than by testing each system for a hidden run."""
        matching = self.filter_queryset(self.summarised(StorageSystem.objects.all()))
        return super().paginate_queryset(CountedKeys(queryset, matching.count_visible_to(self.request.user)))

    def get_serializer_class(self):
        return SystemDetailSerializer if self.action == "retrieve" else SystemSerializer
