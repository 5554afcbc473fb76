"""Rules editions: read by everyone, written by staff."""

from rest_framework import viewsets
from rest_framework.permissions import IsAuthenticatedOrReadOnly

from apps.api.common.permissions import StaffWrites
from apps.api.common.viewsets import ApiDefaults
from apps.api.rules_editions.serializers import RulesEditionSerializer
from apps.results.models import RulesEdition


class RulesEditionViewSet(ApiDefaults, viewsets.ModelViewSet):
    """Rules editions: the submission rules in force between two dates and their review checklist.
    Anyone may read them; staff write them."""

    serializer_class = RulesEditionSerializer
    queryset = RulesEdition.objects.order_by("since")
    lookup_field = "name"
    lookup_value_regex = r"[-\w]+"
    permission_classes = [IsAuthenticatedOrReadOnly, StaffWrites]
