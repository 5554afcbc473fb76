"""API tokens: `Authorization: Token <key>` (as DRF's tokens were sent) or `Authorization: Bearer <key>`.

The keys are kept hashed (`apps.results.models.ApiToken`); a revoked or expired token, or one of an inactive
account, is refused with 401 like an unknown one.
"""

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header

from apps.results.models import ApiToken

KEYWORDS = (b"token", b"bearer")


class ApiTokenAuthentication(BaseAuthentication):
    def authenticate(self, request):
        parts = get_authorization_header(request).split()
        if not parts or parts[0].lower() not in KEYWORDS:
            return None
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed("Invalid token header: give the key after the keyword, no spaces.")
        try:
            key = parts[1].decode("ascii")
        except UnicodeDecodeError as error:
            raise exceptions.AuthenticationFailed("Invalid token.") from error
        token = ApiToken.authenticate(key)
        if token is None:
            raise exceptions.AuthenticationFailed("Invalid, revoked or expired token.")
        return token.user, token

    def authenticate_header(self, request) -> str:
        return "Token"


class ApiTokenScheme(OpenApiAuthenticationExtension):
    """The schema's name for the scheme (tokenAuth, as DRF's token authentication was named in it)."""

    target_class = ApiTokenAuthentication
    name = "tokenAuth"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "`Token <key>` or `Bearer <key>`, a key from the account's API tokens page",
        }
