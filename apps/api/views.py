"""API viewsets: fetch with one queryset method, serialize, done. The rules live in apps.results and apps.ingest."""

from django.conf import settings
from django.db.models import Count, F, OuterRef, Prefetch, Q, Subquery, prefetch_related_objects
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, PermissionDenied, ValidationError
from rest_framework.permissions import IsAdminUser, IsAuthenticated, IsAuthenticatedOrReadOnly
from rest_framework.response import Response

from apps.api import serializers
from apps.api.filters import EditionFilter, RankedListFilter, RunFilter, SystemFilter, UploadFilter
from apps.api.inputs import MultiPartParser
from apps.api.pagination import PageNumberPagination
from apps.api.permissions import IsUploaderOrStaff, StaffWrites
from apps.api.schema import ApiSchema
from apps.api.throttles import READ_THROTTLES, CustomListRateThrottle, UploadRateThrottle
from apps.ingest.models import IngestJob
from apps.ingest.uploads import UploadRefused, receive_upload, refuse_oversized_request
from apps.results.judgements.diff import diff_runs
from apps.results.judgements.equations import EquationError
from apps.results.models import (
    CustomList,
    Edition,
    EditionEntry,
    ListEntry,
    ReviewStatus,
    RulesEdition,
    Run,
    StorageSystem,
)
from apps.results.models.list_kinds import ListKind
from apps.results.models.querysets import CountedKeys, load_listed
from apps.results.services.awards import edition_awards
from apps.results.services.citations import mixed_lists_warning
from apps.results.services.custom_lists import CustomListLimit, CustomListRows, save_custom_list
from apps.results.services.diff import load_runs
from apps.results.services.editions import EditionError, freeze_lists
from apps.results.services.ownership import delete_upload
from apps.results.services.review import (
    ReviewError,
    check_item,
    checklist,
    clause_report,
    reproducibility_report,
    review_run,
)
from apps.results.services.runs import delete as delete_runs
from apps.web.page_cache import cache_page_until_data_changes

#: Query parameters that page or order a list without narrowing it.
UNFILTERING_PARAMETERS = {"page", "page_size", "format"}
BY_SCORE_NULLS_LAST = [F("score_total").desc(nulls_last=True), "pk"]


class ApiDefaults:
    """What every ioboard endpoint shares: documented errors, django-filter, read throttles."""

    schema = ApiSchema()
    filter_backends = [DjangoFilterBackend]
    throttle_classes = READ_THROTTLES

    def filter_queryset(self, queryset):
        """Filters narrow collections; an object named by its id is not filtered, nor a collection asked for with
        no parameter that could narrow or order it (`UNFILTERING_PARAMETERS` only). Building a filter set (its
        filters deep-copied per request) was a noticeable share of a run's detail and of an unfiltered page of runs
        (docs/performance.md), and with no filter given it changes nothing."""
        if getattr(self, "detail", False) or self.is_unfiltered():
            return queryset
        return super().filter_queryset(queryset)

    def is_unfiltered(self) -> bool:
        """The request only pages the collection or names its format: every row, in the endpoint's own order."""
        return not set(self.request.query_params) - UNFILTERING_PARAMETERS


class RunViewSet(ApiDefaults, mixins.DestroyModelMixin, viewsets.ReadOnlyModelViewSet):
    """Every ingested run. The detail carries phases, scores, verification, configuration, Lustre build,
    tunables, striping, anomalies and the configuration files kept with the run."""

    permission_classes = [IsAuthenticatedOrReadOnly, IsUploaderOrStaff]
    filterset_class = RunFilter
    lookup_value_regex = r"\d+"

    def get_queryset(self):
        if self.action == "list":
            return (
                Run.objects.select_related("system__institution").without_large_fields().order_by(*BY_SCORE_NULLS_LAST)
            )
        if self.action == "retrieve":
            return Run.objects.with_details()
        return Run.objects.select_related("upload")

    def get_serializer_class(self):
        return serializers.RunSummarySerializer if self.action == "list" else serializers.RunDetailSerializer

    def perform_destroy(self, run):
        delete_runs([run])  # off every list first, the system's next best run listed in its place

    def paginate_queryset(self, queryset):
        """Every run, unfiltered, is counted from the maintained list counts rather than by COUNT(*)."""
        if self.action == "list" and self.is_unfiltered():
            queryset = CountedKeys(queryset, Run.objects.total())
        return super().paginate_queryset(queryset)

    @extend_schema(parameters=[serializers.CompareQuerySerializer], responses=OpenApiTypes.OBJECT)
    @action(detail=False, filter_backends=[], pagination_class=None)
    def compare(self, request):
        """What differs between runs, the first being the baseline: score and phase deltas next to every
        input that changed (versions, configuration, Lustre build and patches, tunables, striping, files)."""
        query = serializers.CompareQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        try:
            runs = load_runs(query.validated_data["runs"])
        except Run.DoesNotExist as missing:
            raise NotFound(str(missing)) from missing
        return Response({**diff_runs(runs).to_dict(), "list_warning": mixed_lists_warning([run.pk for run in runs])})

    @extend_schema(request=serializers.ReviewSerializer, responses=OpenApiTypes.OBJECT)
    @action(detail=True, methods=["get", "post"], permission_classes=[IsAdminUser], filter_backends=[])
    def review(self, request, pk=None):
        """The committee's view of a submission (staff only): status, levels (assigned, proposed, target),
        completeness, production declaration, notes, each rules edition's checklist, and the outcome of each clause of
        the rules the run targets, as far as its files show it. POST applies decisions."""
        run = self.get_object()
        if request.method == "POST":
            form = serializers.ReviewSerializer(data=request.data)
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
                )
            except ReviewError as error:
                raise ValidationError({"detail": str(error)}) from error
            run.refresh_from_db()
        return Response(review_state(run))

    @extend_schema(request=serializers.CheckSerializer, responses=OpenApiTypes.OBJECT)
    @action(detail=True, methods=["post"], permission_classes=[IsAdminUser], filter_backends=[])
    def checks(self, request, pk=None):
        """Record one checklist item of a rules edition for this run (staff only): who checked it, and when."""
        run = self.get_object()
        form = serializers.CheckSerializer(data=request.data)
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
        "notes": serializers.ReviewNoteSerializer(run.review_notes.select_related("author"), many=True).data,
        "checklists": {rules.name: checklist(run, rules) for rules in RulesEdition.objects.order_by("since")},
        "clauses": clause_report(run),
    }


class SystemViewSet(ApiDefaults, viewsets.ReadOnlyModelViewSet):
    """Storage systems (institution + system + file system), with their run count and best ranked score.
    The detail lists the system's runs, best first."""

    filterset_class = SystemFilter
    lookup_value_regex = r"\d+"

    def get_queryset(self):
        best_score = Run.objects.filter(system=OuterRef("pk")).ranked().order_by(*BY_SCORE_NULLS_LAST)
        systems = (
            StorageSystem.objects.select_related("institution")
            .annotate(
                run_count=Count("runs", filter=Q(runs__system_claim="") | Q(runs__review_status=ReviewStatus.ACCEPTED)),
                best_score=Subquery(best_score.values("score_total")[:1]),
            )
            .order_by("institution__name", "name", "pk")
        )
        if self.action == "retrieve":
            runs = Run.objects.without_pending_claims().without_large_fields().order_by(*BY_SCORE_NULLS_LAST)
            systems = systems.prefetch_related(Prefetch("runs", queryset=runs))
        return systems

    def get_serializer_class(self):
        return serializers.SystemDetailSerializer if self.action == "retrieve" else serializers.SystemSerializer


class RankedListViewSet(ApiDefaults, mixins.ListModelMixin, viewsets.GenericViewSet):
    """A live list, read from its maintained entries; anonymous reads are served from the page cache until
    the data changes. One subclass per list kind of the registry (`for_kind`), routed in apps.api.urls."""

    serializer_class = serializers.ListEntrySerializer
    filterset_class = RankedListFilter
    list_kind: str

    @classmethod
    def for_kind(cls, kind: ListKind) -> type["RankedListViewSet"]:
        name = "".join(part.capitalize() for part in kind.slug.replace("-", " ").split()) + "ListViewSet"
        return type(name, (cls,), {"list_kind": kind.slug, "__doc__": f"{kind.title}: {kind.description}"})

    @classmethod
    def as_view(cls, actions=None, **initkwargs):
        return cache_page_until_data_changes(super().as_view(actions, **initkwargs))

    def get_queryset(self):
        return ListEntry.objects.listed(self.list_kind)

    def get_serializer_context(self):
        return {**super().get_serializer_context(), "list_kind": self.list_kind}

    def list(self, request, *args, **kwargs):
        """A page cut from the entries, then its runs' badges: as the HTML list does (no run row is read)."""
        filterset = self.filterset_class(request.query_params, queryset=self.get_queryset(), request=request)
        if not filterset.is_valid():
            raise ValidationError(filterset.errors)
        criteria, ordering = filterset.criteria()
        entries = ListEntry.objects.page_entries(self.list_kind, criteria, ordering)
        rows = load_listed(self.paginate_queryset(entries))
        return self.get_paginated_response(self.get_serializer(rows, many=True).data)


class EditionViewSet(ApiDefaults, viewsets.ReadOnlyModelViewSet):
    """Frozen lists ("ISC19"): their entries and scores never change after freezing."""

    filterset_class = EditionFilter
    lookup_value_regex = r"\d+"

    def get_queryset(self):
        editions = Edition.objects.annotate(entry_count=Count("entries")).order_by("-frozen_at", "pk")
        if self.action == "retrieve":
            entries = EditionEntry.objects.annotate(run_verification=F("run__verification")).order_by(
                F("rank").asc(nulls_last=True), F("score").desc(nulls_last=True), "pk"
            )
            editions = editions.prefetch_related(Prefetch("entries", queryset=entries))
        return editions

    def get_serializer_class(self):
        return serializers.EditionDetailSerializer if self.action == "retrieve" else serializers.EditionSerializer

    @extend_schema(request=serializers.FreezeSerializer, responses=serializers.EditionSerializer(many=True))
    @action(detail=False, methods=["post"], permission_classes=[IsAdminUser], filter_backends=[], pagination_class=None)
    def freeze(self, request):
        """Freeze an edition (staff only): every list kind frozen by default, or those named, all or none."""
        form = serializers.FreezeSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        try:
            frozen = freeze_lists(
                data["name"],
                data.get("lists"),
                title=data["title"],
                description=data["description"],
                rules_edition=data["rules_edition"],
            )
        except EditionError as error:
            raise ValidationError({"name": [str(error)]}) from error
        editions = (
            Edition.objects.filter(pk__in=[edition.pk for edition in frozen])
            .annotate(entry_count=Count("entries"))
            .order_by("list_kind")
        )
        return Response(serializers.EditionSerializer(editions, many=True).data, status=status.HTTP_201_CREATED)

    @extend_schema(responses=serializers.AwardSerializer(many=True))
    @action(detail=False, url_path=r"(?P<name>[-\w]+)/awards", filter_backends=[], pagination_class=None)
    def awards(self, request, name=None):
        """The 12 awards of an edition: overall, bandwidth and metadata on each of the four ranked lists,
        from its frozen lists."""
        if not Edition.objects.filter(name=name).exists():
            raise NotFound(f"no edition {name!r}")
        return Response(serializers.AwardSerializer(edition_awards(name), many=True).data)


class RulesEditionViewSet(ApiDefaults, viewsets.ModelViewSet):
    """Rules editions: the submission rules in force between two dates and their review checklist.
    Anyone may read them; staff write them."""

    serializer_class = serializers.RulesEditionSerializer
    queryset = RulesEdition.objects.order_by("since")
    lookup_field = "name"
    lookup_value_regex = r"[-\w]+"
    permission_classes = [IsAuthenticatedOrReadOnly, StaffWrites]


class CustomListViewSet(ApiDefaults, mixins.CreateModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Custom lists: a ranking equation over phase names (ior_easy_write, mdtest_hard_stat, ...) and score, bw,
    md, e.g. `sqrt(ior_easy_write * mdtest_easy_write)`, ranks a list's members. Saved lists are shared by
    their token. An equation outside the grammar is refused with 400 and the position of the error."""

    serializer_class = serializers.CustomListSerializer
    queryset = CustomList.objects.all()
    lookup_field = "token"
    lookup_value_regex = r"[-\w]+"

    def get_throttles(self):
        return [CustomListRateThrottle()] if self.action == "create" else super().get_throttles()

    @extend_schema(
        responses={201: serializers.CustomListSerializer, 400: OpenApiResponse(serializers.EquationErrorSerializer)}
    )
    def create(self, request, *args, **kwargs):
        """Save a list (signed in; `THROTTLE_CUSTOM_LISTS` per user, and at most IOBOARD_CUSTOM_LISTS_PER_USER kept:
        403 past it)."""
        form = self.get_serializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        try:
            custom = save_custom_list(data.get("name", ""), data["equation"], data["base_list"], owner=request.user)
        except EquationError as error:
            return Response({"equation": error.message, "position": error.position}, status=status.HTTP_400_BAD_REQUEST)
        except CustomListLimit as limit:
            raise PermissionDenied(str(limit)) from limit
        return Response(self.get_serializer(custom).data, status=status.HTTP_201_CREATED)

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def retrieve(self, request, *args, **kwargs):
        """The saved list and a page of its rows (`page`, `page_size` as on every list): rank (by the equation),
        the equation's value, the run; `count`, `next` and `previous` as on every paginated answer. A list just
        saved is filled by a background task: until then `complete` is false and `count` is below `members`,
        the size of its base list."""
        custom = self.get_object()
        entries = CustomListRows(custom)
        paginator = PageNumberPagination()
        page = paginator.paginate_queryset(entries, request, view=self)
        rows = serializers.CustomRowSerializer(page, many=True).data
        return Response(
            {
                **self.get_serializer(custom).data,
                "complete": entries.complete,
                "members": entries.members,
                "count": paginator.page.paginator.count,
                "next": paginator.get_next_link(),
                "previous": paginator.get_previous_link(),
                "rows": rows,
            }
        )


RETRY_AFTER = OpenApiParameter(
    "Retry-After",
    type=int,
    location=OpenApiParameter.HEADER,
    response=[200, 202],
    description="while the ingest is pending or processing: seconds to wait before asking for the status again",
)


def ask_again_later(response: Response, job: IngestJob) -> Response:
    """Tell a client polling an unfinished ingest when to ask again (Retry-After, in seconds).

    A client with no such hint polls as fast as it can: at a deadline, a few uploaders' polls outnumber the
    readers' pages, and on a shared server they take the CPU those pages need (bench/load_deadline.py)."""
    if not job.is_finished:
        response["Retry-After"] = str(settings.IOBOARD_UPLOAD_POLL_SECONDS)
    return response


class UploadViewSet(
    ApiDefaults,
    mixins.CreateModelMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    """Uploads of IO500 result archives, mdtest logs and IOR logs (kind=ior), and the state of their ingest.

    An upload (its declarations, its job's errors) is its uploader's: listing, reading and deleting see
    your own uploads only (staff see all); another account's upload is a 404, as if it did not exist.
    Deleting an upload removes the runs it created.
    """

    permission_classes = [IsAuthenticated, IsUploaderOrStaff]
    parser_classes = [MultiPartParser]
    filterset_class = UploadFilter
    # Through the upload's own id field, so an id past the integer range is a 404, not a database error.
    lookup_field = "upload__id"
    lookup_url_kwarg = "id"
    lookup_value_regex = r"\d+"

    def get_queryset(self):
        latest_job = IngestJob.objects.filter(upload=OuterRef("upload")).order_by("-pk").values("pk")[:1]
        jobs = (
            IngestJob.objects.filter(pk=Subquery(latest_job))
            .prefetch_related(self._created_runs())
            .order_by("-upload__created_at", "-pk")
        )
        return self._readable(jobs)

    def get_object(self):
        """One upload's latest job, the newest of that upload's own jobs.

        This is what a client polls while its upload is ingested (every upload of a deadline, every second or
        so), so it reads one row by the upload's index instead of the listing's latest-job subquery, and reads
        the job's runs only once it is done: `record_success` sets them with the outcome, so an unfinished job
        has none (`IngestJob.created_runs`)."""
        jobs = IngestJob.objects.filter(**{self.lookup_field: self.kwargs[self.lookup_url_kwarg]}).order_by("-pk")
        job = self._readable(jobs).first()
        if job is None:
            raise NotFound()
        self.check_object_permissions(self.request, job)
        if job.status == IngestJob.Status.DONE:
            prefetch_related_objects([job], self._created_runs())
        return job

    def _readable(self, jobs):
        """Jobs with their upload and uploader, the caller's own unless staff."""
        jobs = jobs.select_related("upload__uploader")
        return jobs if self.request.user.is_staff else jobs.filter(upload__uploader_id=self.request.user.pk)

    @staticmethod
    def _created_runs() -> Prefetch:
        runs = Run.objects.select_related("system__institution").without_large_fields().order_by("pk")
        return Prefetch("runs", queryset=runs)

    def get_serializer_class(self):
        return serializers.UploadFormSerializer if self.action == "create" else serializers.UploadStatusSerializer

    def get_throttles(self):
        return [UploadRateThrottle()] if self.action == "create" else super().get_throttles()

    @extend_schema(
        responses={
            202: serializers.UploadAcceptedSerializer,
            200: OpenApiResponse(
                serializers.UploadAcceptedSerializer,
                description="these bytes were uploaded before: the existing upload, not ingested again",
            ),
        },
        parameters=[RETRY_AFTER],
    )
    def create(self, request, *args, **kwargs):
        """Upload a .tar.gz/.tgz/.zip of an IO500 result directory or submission folder, or the files of another
        kind (``kind``: mdtest or IOR logs, a bottom-up campaign). The file is checked and kept, then ingested
        in the background: poll status_url, waiting the Retry-After seconds between polls."""
        try:
            refuse_oversized_request(int(request.META.get("CONTENT_LENGTH") or 0))
            form = self.get_serializer(data=request.data)
            form.is_valid(raise_exception=True)
            uploaded = form.validated_data["file"]
            received = receive_upload(
                uploaded,
                name=uploaded.name,
                kind=form.validated_data["kind"],
                uploader=request.user,
                metadata=form.metadata(),
            )
        except UploadRefused as refusal:
            raise ValidationError({"file": [str(refusal)]}) from refusal
        answer = serializers.UploadAcceptedSerializer(received, context=self.get_serializer_context())
        created = status.HTTP_202_ACCEPTED if received.created else status.HTTP_200_OK
        return ask_again_later(Response(answer.data, status=created), received.job)

    @extend_schema(parameters=[RETRY_AFTER])
    def retrieve(self, request, *args, **kwargs):
        """An upload and how its ingest went; while the ingest is unfinished, Retry-After says when to ask again."""
        job = self.get_object()
        return ask_again_later(Response(self.get_serializer(job).data), job)

    def perform_destroy(self, job):
        delete_upload(job.upload)
