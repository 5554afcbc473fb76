"""io500.org's published record, read-only: its editions (one per list of a release) with their change log and
their audit against the raw files, their entries as published, and the audit's summary across the record."""

from drf_spectacular.utils import extend_schema
from rest_framework import viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from apps.api.common.viewsets import ApiDefaults
from apps.api.published.filters import PublishedEditionFilter, PublishedEntryFilter
from apps.api.published.serializers import (
    AuditedEntrySerializer,
    AuditSummarySerializer,
    PublishedChangeSerializer,
    PublishedEditionSerializer,
    PublishedEntrySerializer,
)
from apps.results.models import Edition, EditionEntry
from apps.results.services.published import change_log, published_editions
from apps.results.services.published_audit import audit_summary, list_audit


class PublishedEditionViewSet(ApiDefaults, viewsets.ReadOnlyModelViewSet):
    """The lists io500.org published since SC17, one edition per list of a release, newest release first."""

    serializer_class = PublishedEditionSerializer
    filterset_class = PublishedEditionFilter
    lookup_value_regex = r"\d+"

    def get_queryset(self):
        return published_editions()

    @extend_schema(responses=PublishedChangeSerializer(many=True))
    @action(detail=True, filter_backends=[], pagination_class=None)
    def changes(self, request, pk=None):
        """What io500.org's corrective migrations changed in this edition's release, in the order applied."""
        return Response(PublishedChangeSerializer(change_log(self.get_object().name), many=True).data)

    @extend_schema(responses=AuditedEntrySerializer(many=True))
    @action(detail=True, filter_backends=[], pagination_class=None)
    def audit(self, request, pk=None):
        """Each entry in published order: its differences from its raw files (null when they were not ingested)
        and its place when the list is ranked by the runs' recomputed scores."""
        return Response(AuditedEntrySerializer(list_audit(self.get_object()), many=True).data)

    @extend_schema(responses=AuditSummarySerializer(many=True))
    @action(detail=False, url_path="audit-summary", filter_backends=[], pagination_class=None)
    def audit_summary(self, request):
        """Per published list: its entries, those with raw files, those that agree and those that differ."""
        return Response(AuditSummarySerializer(audit_summary(), many=True).data)


class PublishedEntryViewSet(ApiDefaults, viewsets.ReadOnlyModelViewSet):
    """Every row of the published lists as io500.org published it, with the run of its submission-N folder."""

    serializer_class = PublishedEntrySerializer
    filterset_class = PublishedEntryFilter
    lookup_value_regex = r"\d+"

    def get_queryset(self):
        return (
            EditionEntry.objects.filter(edition__source=Edition.Source.PUBLISHED)
            .select_related("edition")
            .in_published_order()
        )
