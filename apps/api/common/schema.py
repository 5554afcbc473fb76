"""OpenAPI generation: DRF's error responses documented next to each operation's success.

drf-spectacular only documents the success response; clients (and schemathesis) also need to know
that a bad token gives 401, an unknown id or a page past the end gives 404, a bad filter value
gives 400 and a throttled client gets 429. Explicit ``@extend_schema(responses=...)`` entries win.
"""

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse
from rest_framework.permissions import SAFE_METHODS, IsAuthenticated

from apps.api.common.serializers import ErrorSerializer

VALIDATION_ERROR = OpenApiResponse(OpenApiTypes.OBJECT, description="invalid input: a message per field")
UNAUTHENTICATED = OpenApiResponse(ErrorSerializer, description="missing or invalid credentials")
FORBIDDEN = OpenApiResponse(ErrorSerializer, description="not allowed for this user")
NOT_FOUND = OpenApiResponse(ErrorSerializer, description="no such object, or a page past the end")
THROTTLED = OpenApiResponse(ErrorSerializer, description="too many requests; retry after the given delay")


class ApiSchema(AutoSchema):
    def get_operation(self, *args, **kwargs):
        operation = super().get_operation(*args, **kwargs)
        if operation is not None:
            for code, response in self._error_responses().items():
                operation["responses"].setdefault(str(code), self._get_response_for_code(response, str(code)))
        return operation

    def _error_responses(self) -> dict:
        unsafe = self.method not in SAFE_METHODS
        has_path_parameters = "{" in self.path
        errors = {401: UNAUTHENTICATED, 429: THROTTLED}
        if unsafe or IsAuthenticated in self.view.permission_classes:
            errors[403] = FORBIDDEN
        if unsafe or not has_path_parameters:
            errors[400] = VALIDATION_ERROR
        if has_path_parameters or not unsafe:
            errors[404] = NOT_FOUND
        return errors
