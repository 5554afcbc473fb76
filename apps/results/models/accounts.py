"""A submitter's account beyond Django's user: the profile, and the API tokens it signs uploads with.

The API authenticates with these tokens (``apps.api.common.authentication``) and the account pages manage them,
so they live in the ground both front ends build on.
"""

import hashlib
import secrets
from datetime import timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone


class Profile(models.Model):
    """What a submitter tells of themselves, and whether they want mail about their uploads."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile")
    name = models.CharField(max_length=200, blank=True)
    institution = models.CharField(max_length=255, blank=True)
    notify_by_email = models.BooleanField(
        default=True, help_text="mail when an upload finishes or fails and when the committee decides"
    )

    def __str__(self) -> str:
        return self.name or str(self.user)

    @classmethod
    def of(cls, user) -> "Profile":
        profile, _ = cls.objects.get_or_create(user=user)
        return profile


class ApiTokenQuerySet(models.QuerySet):
    def usable(self):
        """Tokens that still sign requests: not revoked, not expired, of an active account."""
        now = timezone.now()
        return self.filter(revoked_at__isnull=True, user__is_active=True).filter(
            models.Q(expires_at__isnull=True) | models.Q(expires_at__gt=now)
        )


class ApiToken(models.Model):
    """A named API token. Only the sha256 of its key is kept: the key is shown once, when it is made.

    A key is 40 hex characters, the shape of the DRF tokens ioboard handed out before, whose keys the migration
    0035 hashed into this table, so they keep working. A random key of 160 bits needs no salt or slow hash:
    nobody can guess one from its digest."""

    KEY_BYTES = 20

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100)
    digest = models.CharField(max_length=64, unique=True)
    prefix = models.CharField(max_length=8, help_text="the key's first characters, to tell tokens apart")
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    objects = ApiTokenQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @staticmethod
    def digest_of(key: str) -> str:
        return hashlib.sha256(key.encode()).hexdigest()

    @classmethod
    def issue(cls, user, name: str, expires_at=None) -> tuple["ApiToken", str]:
        """A new token and its key: the only time the key exists outside the caller's hands."""
        key = secrets.token_hex(cls.KEY_BYTES)
        token = cls.objects.create(
            user=user, name=name, digest=cls.digest_of(key), prefix=key[:8], expires_at=expires_at
        )
        return token, key

    @classmethod
    def authenticate(cls, key: str) -> "ApiToken | None":
        """The usable token of this key, its use recorded (at most once a minute, so polling costs no writes)."""
        token = cls.objects.usable().select_related("user").filter(digest=cls.digest_of(key)).first()
        if token is None:
            return None
        now = timezone.now()
        if token.last_used_at is None or now - token.last_used_at > timedelta(minutes=1):
            cls.objects.filter(pk=token.pk).update(last_used_at=now)
            token.last_used_at = now
        return token

    def revoke(self) -> None:
        if self.revoked_at is None:
            self.revoked_at = timezone.now()
            self.save(update_fields=["revoked_at"])

    @property
    def state(self) -> str:
        if self.revoked_at:
            return "revoked"
        if self.expires_at and self.expires_at <= timezone.now():
            return "expired"
        return "active"
