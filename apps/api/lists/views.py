"""The live ranked lists (one endpoint per list kind) and the frozen editions with their awards."""

from django.db.models import F, Prefetch
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.permissions import IsAdminUser
from rest_framework.response import Response

from apps.api.common.throttles import refuse_throttled_read
from apps.api.common.viewsets import ApiDefaults
from apps.api.lists.filters import EditionFilter, RankedListFilter
from apps.api.lists.serializers import (
    AwardSerializer,
    EditionDetailSerializer,
    EditionSerializer,
    FreezeSerializer,
    ListEntrySerializer,
)
from apps.results.models import Edition, EditionEntry, ListEntry
from apps.results.models.list_kinds import ListKind
from apps.results.models.querysets import load_listed
from apps.results.services.awards import edition_awards
from apps.results.services.editions import EditionError, freeze_lists
from apps.web.page_cache import cache_page_until_data_changes


class RankedListViewSet(ApiDefaults, mixins.ListModelMixin, viewsets.GenericViewSet):
    """A live list, read from its maintained entries; anonymous reads are served from the page cache until
    the data changes. One subclass per list kind of the registry (`for_kind`), routed in apps.api.urls."""

    serializer_class = ListEntrySerializer
    filterset_class = RankedListFilter
    list_kind: str

    @classmethod
    def for_kind(cls, kind: ListKind) -> type["RankedListViewSet"]:
        name = "".join(part.capitalize() for part in kind.slug.replace("-", " ").split()) + "ListViewSet"
        return type(name, (cls,), {"list_kind": kind.slug, "__doc__": f"{kind.title}: {kind.description}"})

    @classmethod
    def as_view(cls, actions=None, **initkwargs):
        return cache_page_until_data_changes(
            super().as_view(actions, **initkwargs), parameters=cls.read_parameters(), refuse=refuse_throttled_read
        )

    @classmethod
    def read_parameters(cls) -> list[str]:
        """What a list reads of its query: its filters and ordering, the page, its size and the format."""
        pagination = cls.pagination_class
        return [
            *cls.filterset_class.base_filters,
            pagination.page_query_param,
            pagination.page_size_query_param,
            "format",
        ]

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
        editions = Edition.objects.order_by("-frozen_at", "pk")
        if self.action == "retrieve":
            entries = EditionEntry.objects.annotate(run_verification=F("run__verification")).order_by(
                F("rank").asc(nulls_last=True), F("score").desc(nulls_last=True), "pk"
            )
            editions = editions.prefetch_related(Prefetch("entries", queryset=entries))
        return editions

    def get_serializer_class(self):
        return EditionDetailSerializer if self.action == "retrieve" else EditionSerializer

    @extend_schema(request=FreezeSerializer, responses=EditionSerializer(many=True))
    @action(detail=False, methods=["post"], permission_classes=[IsAdminUser], filter_backends=[], pagination_class=None)
    def freeze(self, request):
        """Freeze an edition (staff only): every list kind frozen by default, or those named, all or none."""
        form = FreezeSerializer(data=request.data)
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
        editions = Edition.objects.filter(pk__in=[edition.pk for edition in frozen]).order_by("list_kind")
        return Response(EditionSerializer(editions, many=True).data, status=status.HTTP_201_CREATED)

    @extend_schema(responses=AwardSerializer(many=True))
    @action(detail=False, url_path=r"(?P<name>[-\w]+)/awards", filter_backends=[], pagination_class=None)
    def awards(self, request, name=None):
        """The 12 awards of an edition: overall, bandwidth and metadata on each of the four ranked lists,
        from its frozen lists."""
        if not Edition.objects.filter(name=name).exists():
            raise NotFound(f"no edition {name!r}")
        return Response(AwardSerializer(edition_awards(name), many=True).data)
