"""Storage systems, each with its best ranked score; a system's page lists its runs."""

from django.db.models import Count, OuterRef, Prefetch, Q, Subquery
from rest_framework import viewsets

from apps.api.common.viewsets import BY_SCORE_NULLS_LAST, ApiDefaults
from apps.api.systems.filters import SystemFilter
from apps.api.systems.serializers import SystemDetailSerializer, SystemSerializer
from apps.results.models import ReviewStatus, Run, StorageSystem
from apps.results.models.visibility import run_visible_condition


class SystemViewSet(ApiDefaults, viewsets.ReadOnlyModelViewSet):
    """Storage systems (institution + system + file system), with their run count and best ranked score.
    The detail lists the system's runs, best first."""

    filterset_class = SystemFilter
    lookup_value_regex = r"\d+"

    def get_queryset(self):
        best_score = Run.objects.filter(system=OuterRef("pk")).ranked().order_by(*BY_SCORE_NULLS_LAST)
        reader = self.request.user
        shown = (Q(runs__system_claim="") | Q(runs__review_status=ReviewStatus.ACCEPTED)) & run_visible_condition(
            reader, "runs__"
        )
        systems = (
            StorageSystem.objects.visible_to(reader)
            .select_related("institution")
            .annotate(
                run_count=Count("runs", filter=shown),
                best_score=Subquery(best_score.values("score_total")[:1]),
            )
            .order_by("institution__name", "name", "pk")
        )
        if self.action == "retrieve":
            runs = (
                Run.objects.visible_to(reader)
                .without_pending_claims()
                .without_large_fields()
                .order_by(*BY_SCORE_NULLS_LAST)
            )
            systems = systems.prefetch_related(Prefetch("runs", queryset=runs))
        return systems

    def get_serializer_class(self):
        return SystemDetailSerializer if self.action == "retrieve" else SystemSerializer
