"""API for detected changes: steps and outliers in a system's history, and their triage by staff.

Reading is open; changing a change's ``status`` or ``note`` (PATCH) is for staff, and records who and when.
Everything else about a change is detection output (`python manage.py detect_changes`, or after an ingest).
"""

from __future__ import annotations

from rest_framework import mixins, viewsets
from rest_framework.permissions import SAFE_METHODS, BasePermission, IsAuthenticatedOrReadOnly

from apps.api.changes.filters import ChangeFilter
from apps.api.changes.serializers import ChangeSerializer
from apps.api.common.viewsets import ApiDefaults
from apps.results.models import Change


class IsStaffOrReadOnly(BasePermission):
    message = "Only staff may triage changes."

    def has_permission(self, request, view) -> bool:
        return request.method in SAFE_METHODS or bool(request.user and request.user.is_staff)


class ChangeViewSet(ApiDefaults, mixins.UpdateModelMixin, viewsets.ReadOnlyModelViewSet):
    """Steps and outliers found in every metric of each system's history, newest first, with what changed."""

    serializer_class = ChangeSerializer
    filterset_class = ChangeFilter
    permission_classes = [IsAuthenticatedOrReadOnly, IsStaffOrReadOnly]
    http_method_names = ["get", "patch", "head", "options"]
    lookup_value_regex = r"\d+"

    def get_queryset(self):
        return (
            Change.objects.visible()
            .select_related("system__institution", "triaged_by")
            .order_by("-run_after__run_timestamp", "system_id", "metric", "-pk")
        )
