"""The change log of io500.org's published record: what the site's corrective SQL migrations changed after a
release (renamed institutions and systems, vendor fixes, removed duplicates, moved entries), per edition name."""

from django.db import models


class PublishedChange(models.Model):
    """One value a migration replaced, or one row it removed or added, in the published record of a release."""

    class Action(models.TextChoices):
        UPDATE = "update", "changed"
        DELETE = "delete", "removed"
        INSERT = "insert", "added"

    edition_name = models.SlugField(max_length=50, help_text="the published editions (Edition.name) it concerns")
    file = models.CharField(max_length=255, help_text="the migration of io500.org's webpage repository")
    line = models.PositiveIntegerField()
    action = models.CharField(max_length=10, choices=Action.choices)
    table = models.CharField(max_length=100)
    submission_number = models.PositiveIntegerField(null=True, blank=True)
    field = models.CharField(max_length=100, blank=True, help_text="the column changed (updates)")
    before = models.TextField(blank=True)
    after = models.TextField(blank=True)

    class Meta:
        ordering = ["edition_name", "file", "line", "pk"]
        indexes = [models.Index(fields=["edition_name"], name="publishedchange_edition")]

    def __str__(self) -> str:
        return f"{self.edition_name} {self.file}:{self.line} {self.action} {self.submission_number} {self.field}"

    @property
    def is_rename(self) -> bool:
        return self.action == self.Action.UPDATE and self.field in {"information_system", "information_institution"}
