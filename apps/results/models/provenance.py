"""Lustre builds and their patches: what the servers and clients of a run ran."""

from django.db import models


class LustreBuild(models.Model):
    """The exact Lustre a run used: versions, base commit and the patches on top of it."""

    server_version = models.CharField(max_length=100, blank=True)
    client_version = models.CharField(max_length=100, blank=True)
    base_tag = models.CharField(max_length=255, blank=True)
    base_commit = models.CharField(max_length=64, blank=True)
    notes = models.TextField(blank=True, help_text="release-note style text the build was parsed from")
    fingerprint = models.CharField(max_length=64, unique=True, help_text="sha256 of versions, base and patches")

    def __str__(self) -> str:
        parts = [
            f"server {self.server_version}" if self.server_version else "",
            f"client {self.client_version}" if self.client_version else "",
            self.base_commit[:10],
        ]
        return "Lustre " + ", ".join(part for part in parts if part) if any(parts) else "Lustre (unknown)"


class LustrePatch(models.Model):
    class Status(models.TextChoices):
        APPLIED = "applied"
        REVERTED = "reverted"

    build = models.ForeignKey(LustreBuild, on_delete=models.CASCADE, related_name="patches")
    position = models.PositiveIntegerField(default=0)
    commit = models.CharField(max_length=64, blank=True)
    ticket = models.CharField(max_length=32, blank=True, help_text="e.g. LU-12345")
    component = models.CharField(max_length=100, blank=True)
    summary = models.TextField(blank=True)
    review_url = models.URLField(max_length=500, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.APPLIED)

    class Meta:
        ordering = ["build", "position"]

    def __str__(self) -> str:
        return f"{self.commit[:10]} {self.ticket} {self.summary}".strip()

    @property
    def ticket_url(self) -> str:
        return f"https://jira.whamcloud.com/browse/{self.ticket}" if self.ticket else ""
