"""What every viewset of the API shares: documented errors, django-filter, read throttles."""

from django.db.models import F
from django_filters.rest_framework import DjangoFilterBackend

from apps.api.common.schema import ApiSchema
from apps.api.common.throttles import READ_THROTTLES

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
