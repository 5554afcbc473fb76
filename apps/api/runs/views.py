"""Runs: read, compare, delete (their uploader or staff), and the committee's review. Like every viewset of the API,
they fetch with one queryset method and serialize; the rules live in apps.results and apps.ingest."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.permissions import IsAdminUser, IsAuthenticatedOrReadOnly
from rest_framework.response import Response

from apps.api.common.permissions import IsUploaderOrStaff
from apps.api.common.serializers import RunSummarySerializer
from apps.api.common.viewsets import BY_SCORE_NULLS_LAST, ApiDefaults
from apps.api.runs.filters import RunFilter
from apps.api.runs.serializers import (
    CheckSerializer,
    CompareQuerySerializer,
    ReviewNoteSerializer,
    ReviewSerializer,
    RunDetailSerializer,
)
from apps.results.judgements.diff import diff_runs
from apps.results.models import RulesEdition, Run
from apps.results.models.querysets import CountedKeys
from apps.results.services.citations import mixed_lists_warning
from apps.results.services.diff import load_runs
from apps.results.services.ownership import take_down_runs
from apps.results.services.review import (
    ReviewError,
    check_item,
    checklist,
    clause_report,
    reproducibility_report,
    review_run,
)


class RunViewSet(ApiDefaults, mixins.DestroyModelMixin, viewsets.ReadOnlyModelViewSet):
    """Every ingested run. The detail carries phases, scores, verification, configuration, Lustre build,
    tunables, striping, anomalies and the configuration files kept with the run."""

    permission_classes = [IsAuthenticatedOrReadOnly, IsUploaderOrStaff]
    filterset_class = RunFilter
    lookup_value_regex = r"\d+"

    def get_queryset(self):
        runs = Run.objects.visible_to(self.request.user)
        if self.action == "list":
            return runs.select_related("system__institution").without_large_fields().order_by(*BY_SCORE_NULLS_LAST)
        if self.action == "retrieve":
            return runs.with_details()
        return runs.select_related("upload")

    def get_serializer_class(self):
        return RunSummarySerializer if self.action == "list" else RunDetailSerializer

    def perform_destroy(self, run):
        take_down_runs([run], by=self.request.user)  # an uploader withdraws what the committee reviewed

    def paginate_queryset(self, queryset):
        """Every run, unfiltered, is counted from the maintained list counts rather than by COUNT(*)."""
        if self.action == "list" and self.is_unfiltered():
            queryset = CountedKeys(queryset, Run.objects.total())
        return super().paginate_queryset(queryset)

    @extend_schema(parameters=[CompareQuerySerializer], responses=OpenApiTypes.OBJECT)
    @action(detail=False, filter_backends=[], pagination_class=None)
    def compare(self, request):
        """What differs between runs, the first being the baseline: score and phase deltas next to every
        input that changed (versions, configuration, Lustre build and patches, tunables, striping, files)."""
        query = CompareQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        try:
            runs = load_runs(query.validated_data["runs"], request.user)
        except Run.DoesNotExist as missing:
            raise NotFound(str(missing)) from missing
        return Response({**diff_runs(runs).to_dict(), "list_warning": mixed_lists_warning([run.pk for run in runs])})

    @extend_schema(request=ReviewSerializer, responses=OpenApiTypes.OBJECT)
    @action(detail=True, methods=["get", "post"], permission_classes=[IsAdminUser], filter_backends=[])
    def review(self, request, pk=None):
        """The committee's view of a submission (staff only): status, levels (assigned, proposed, target),
        completeness, production declaration, notes, each rules edition's checklist, and the outcome of each clause of
        the rules the run targets, as far as its files show it. POST applies decisions."""
        run = self.get_object()
        if request.method == "POST":
            form = ReviewSerializer(data=request.data)
            form.is_valid(raise_exception=True)
            data = form.validated_data
            try:
                review_run(
                    run,
                    by=request.user,
                    status=data.get("status"),
                    level=data.get("level"),
                    production_accepted=data.get("production_accepted"),
                    note=data.get("note", ""),
                    for_submitter=data.get("for_submitter", False),
                )
            except ReviewError as error:
                raise ValidationError({"detail": str(error)}) from error
            run.refresh_from_db()
        return Response(review_state(run))

    @extend_schema(request=CheckSerializer, responses=OpenApiTypes.OBJECT)
    @action(detail=True, methods=["post"], permission_classes=[IsAdminUser], filter_backends=[])
    def checks(self, request, pk=None):
        """Record one checklist item of a rules edition for this run (staff only): who checked it, and when."""
        run = self.get_object()
        form = CheckSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        try:
            check_item(run, by=request.user, **form.validated_data)
        except ReviewError as error:
            raise ValidationError({"item": [str(error)]}) from error
        return Response(review_state(run), status=status.HTTP_201_CREATED)


def review_state(run: Run) -> dict:
    return {
        "run": run.pk,
        "review_status": run.review_status,
        "system_claim": run.system_claim,
        "reproducibility": reproducibility_report(run, staff=True),
        "notes": ReviewNoteSerializer(run.review_notes.select_related("author"), many=True).data,
        "checklists": {rules.name: checklist(run, rules) for rules in RulesEdition.objects.order_by("since")},
        "clauses": clause_report(run),
    }
