"""Custom lists: save an equation over a base list, read its ranked rows by the list's token."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.exceptions import PermissionDenied
from rest_framework.response import Response

from apps.api.common.pagination import PageNumberPagination
from apps.api.common.throttles import CustomListRateThrottle
from apps.api.common.viewsets import ApiDefaults
from apps.api.custom_lists.serializers import CustomListSerializer, CustomRowSerializer, EquationErrorSerializer
from apps.results.judgements.equations import EquationError
from apps.results.models import CustomList
from apps.results.services.custom_lists import CustomListLimit, CustomListRows, save_custom_list


class CustomListViewSet(ApiDefaults, mixins.CreateModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Custom lists: a ranking equation over phase names (ior_easy_write, mdtest_hard_stat, ...) and score, bw,
    md, e.g. `sqrt(ior_easy_write * mdtest_easy_write)`, ranks a list's members. Saved lists are shared by
    their token. An equation outside the grammar is refused with 400 and the position of the error."""

    serializer_class = CustomListSerializer
    queryset = CustomList.objects.all()
    lookup_field = "token"
    lookup_value_regex = r"[-\w]+"

    def get_throttles(self):
        return [CustomListRateThrottle()] if self.action == "create" else super().get_throttles()

    @extend_schema(responses={201: CustomListSerializer, 400: OpenApiResponse(EquationErrorSerializer)})
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
        rows = CustomRowSerializer(page, many=True).data
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
