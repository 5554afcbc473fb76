"""Uploads: receive an archive, answer 202 with the job to poll, and let its owner read or delete it."""

from django.conf import settings
from django.db.models import OuterRef, Prefetch, Subquery, prefetch_related_objects
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.exceptions import NotFound, Throttled, ValidationError
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from apps.api.common.inputs import MultiPartParser
from apps.api.common.permissions import IsUploaderOrStaff
from apps.api.common.throttles import UploadRateThrottle
from apps.api.common.viewsets import ApiDefaults
from apps.api.uploads.filters import UploadFilter
from apps.api.uploads.serializers import UploadAcceptedSerializer, UploadFormSerializer, UploadStatusSerializer
from apps.ingest.models import IngestJob
from apps.ingest.uploads import UploadQuotaExceeded, UploadRefused, receive_upload, refuse_oversized_request
from apps.results.models import Run
from apps.results.services.ownership import delete_upload

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
        return UploadFormSerializer if self.action == "create" else UploadStatusSerializer

    def get_throttles(self):
        return [UploadRateThrottle()] if self.action == "create" else super().get_throttles()

    @extend_schema(
        responses={
            202: UploadAcceptedSerializer,
            200: OpenApiResponse(
                UploadAcceptedSerializer,
                description="these bytes were uploaded before: the existing upload, not ingested again",
            ),
            429: OpenApiResponse(
                description="the account's uploads or bytes of the last 24 hours are at its daily limit, "
                "named in the message"
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
                edition=form.validated_data.get("edition", ""),
                embargo_until=form.validated_data.get("embargo_until"),
            )
        except UploadQuotaExceeded as refusal:
            raise Throttled(detail=str(refusal)) from refusal
        except UploadRefused as refusal:
            raise ValidationError({"file": [str(refusal)]}) from refusal
        answer = UploadAcceptedSerializer(received, context=self.get_serializer_context())
        created = status.HTTP_202_ACCEPTED if received.created else status.HTTP_200_OK
        return ask_again_later(Response(answer.data, status=created), received.job)

    @extend_schema(parameters=[RETRY_AFTER])
    def retrieve(self, request, *args, **kwargs):
        """An upload and how its ingest went; while the ingest is unfinished, Retry-After says when to ask again."""
        job = self.get_object()
        return ask_again_later(Response(self.get_serializer(job).data), job)

    def perform_destroy(self, job):
        delete_upload(job.upload, by=self.request.user)
