"""Object permissions: reading is open, changing what an upload created is not."""

from rest_framework.permissions import SAFE_METHODS, BasePermission

from apps.results.services.ownership import account_may_change


class IsUploaderOrStaff(BasePermission):
    """Only the user who uploaded it (or staff) may change or delete a run or an upload.

    Works on any object with an ``upload`` attribute (runs and ingest jobs); runs that were not
    uploaded (ingested from the command line) can only be changed by staff.
    """

    message = "Only the uploader or staff may change or delete what an upload created."

    def has_object_permission(self, request, view, obj) -> bool:
        return request.method in SAFE_METHODS or account_may_change(request.user, obj)


class StaffWrites(BasePermission):
    """Anyone may read; only staff may write (rules editions)."""

    message = "Only staff may change this."

    def has_permission(self, request, view) -> bool:
        return request.method in SAFE_METHODS or request.user.is_staff
