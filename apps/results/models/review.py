"""The submission rules' editions and the committee's review of a run: checks and notes."""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models

from apps.results.judgements.submission_rules import RULES_EDITIONS, Clause, clauses_for, manual_checklist
from apps.results.models.runs import ReviewStatus


def validate_rules_edition(name: str) -> None:
    """A rules edition is one of the rules checker's editions
    (apps.results.judgements.submission_rules.RULES_EDITIONS)."""
    if name not in RULES_EDITIONS:
        raise ValidationError(f"{name!r} is no edition of the submission rules; use one of {', '.join(RULES_EDITIONS)}")


class RulesEdition(models.Model):
    """The submission rules in force between two dates, with the review checklist of that edition.

    Named after an edition of the rules checker (apps.results.judgements.submission_rules), whose clauses say which
    rules applied: a new edition's checklist, unless given, is the edition's clauses that no submitted file shows
    (``not_checkable``), which a reviewer checks by hand; the others are checked from the files
    (apps.results.services.review.clause_report).
    """

    name = models.SlugField(
        max_length=50,
        unique=True,
        validators=[validate_rules_edition],
        help_text="an edition of the submission rules: sc17 … sc26",
    )
    since = models.DateField()
    until = models.DateField(null=True, blank=True, help_text="empty: still in force")
    notes = models.TextField(blank=True)
    checklist = models.JSONField(
        default=list,
        blank=True,
        help_text="what a reviewer checks, one item a string; empty: the edition's clauses that no file shows",
    )

    class Meta:
        ordering = ["-since"]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs):
        if self._state.adding and not self.checklist and self.name in RULES_EDITIONS:
            self.checklist = manual_checklist(self.name)
        super().save(*args, **kwargs)

    def clauses(self) -> list[Clause]:
        """The clauses of the submission rules in force under this edition."""
        return clauses_for(self.name) if self.name in RULES_EDITIONS else []


class ReviewCheck(models.Model):
    """One checklist item of a rules edition, checked for one run: who, when, with what outcome."""

    run = models.ForeignKey("Run", on_delete=models.CASCADE, related_name="review_checks")
    rules_edition = models.ForeignKey(RulesEdition, on_delete=models.CASCADE, related_name="checks")
    item = models.CharField(max_length=255)
    passed = models.BooleanField()
    note = models.TextField(blank=True)
    checked_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    checked_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["run_id", "rules_edition", "item"]
        constraints = [models.UniqueConstraint(fields=["run", "rules_edition", "item"], name="reviewcheck_unique")]

    def __str__(self) -> str:
        return f"{self.item}: {'passed' if self.passed else 'failed'}"


class ReviewNote(models.Model):
    """A reviewer's note on a run, with each status change it made. The committee's own unless `for_submitter`:
    only a note meant for the submitter is shown on their My submissions page and mailed with a decision."""

    run = models.ForeignKey("Run", on_delete=models.CASCADE, related_name="review_notes")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    text = models.TextField(blank=True)
    status = models.CharField(
        max_length=12,
        choices=ReviewStatus.choices,
        blank=True,
        help_text="the status the run was given with this note, if any",
    )
    for_submitter = models.BooleanField(
        default=False,
        help_text="meant for the submitter: shown on their My submissions page and mailed with the decision; "
        "otherwise read by the committee only",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["run_id", "created_at", "pk"]

    def __str__(self) -> str:
        return f"note on run {self.run_id}"
