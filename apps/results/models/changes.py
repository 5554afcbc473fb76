"""Detected changes in a system's history, the annotations people add, and the run-to-run noise
change detection measured.
"""

import math

from django.conf import settings
from django.db import models
from django.urls import reverse

from apps.results.models.querysets import AnnotationQuerySet, ChangeQuerySet
from apps.results.models.runs import Run
from apps.results.models.systems import StorageSystem


class Annotation(models.Model):
    """An expected change (e.g. "upgrade to 2.15") at a run: that run starts a new baseline for detection.

    Like conbench's distribution change: history before the run is not compared with history after
    it, and a step found exactly there is recorded as expected. A blank metric means every metric.
    """

    system = models.ForeignKey(StorageSystem, on_delete=models.CASCADE, related_name="annotations")
    run = models.ForeignKey(
        Run, on_delete=models.CASCADE, related_name="annotations", help_text="the first run of the new baseline"
    )
    metric = models.CharField(
        max_length=50, blank=True, help_text="phase name, score, score_bw or score_md; blank for every metric"
    )
    text = models.CharField(max_length=500)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = AnnotationQuerySet.as_manager()

    class Meta:
        ordering = ["system", "run"]

    def __str__(self) -> str:
        return self.text


class Change(models.Model):
    """A step or an outlier found in one metric of a system's history, with what changed at that moment."""

    class Kind(models.TextChoices):
        STEP = "step"
        OUTLIER = "outlier"

    class Direction(models.TextChoices):
        UP = "up"
        DOWN = "down"

    class Status(models.TextChoices):
        NEW = "new"
        ACKNOWLEDGED = "acknowledged"
        EXPECTED = "expected"
        INVALID = "invalid"

    #: What staff decide when they triage a change (`services.changes.history.triage`); every other field is
    #: what detection found, read-only in the admin and the API.
    TRIAGE_FIELDS = ("status", "note")
    #: A change as the admin and the API show it, in this order.
    SHOWN_FIELDS = (
        "system",
        "metric",
        "kind",
        "direction",
        "magnitude_pct",
        "confidence",
        "z",
        "p_value",
        "run_before",
        "run_after",
        "attribution",
        *TRIAGE_FIELDS,
        "triaged_by",
        "triaged_at",
        "detected",
        "detected_at",
    )

    system = models.ForeignKey(StorageSystem, on_delete=models.CASCADE, related_name="changes")
    metric = models.CharField(max_length=50, help_text="phase name, or score, score_bw, score_md")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    run_before = models.ForeignKey(
        Run,
        on_delete=models.CASCADE,
        related_name="+",
        help_text="last run at the old level; for an outlier, the outlying run",
    )
    run_after = models.ForeignKey(
        Run,
        on_delete=models.CASCADE,
        related_name="+",
        help_text="first run at the new level; for an outlier, the outlying run",
    )
    direction = models.CharField(max_length=4, choices=Direction.choices)
    magnitude_pct = models.FloatField(help_text="new level against the old one, in per cent")
    confidence = models.FloatField(help_text="1 - p of the shift against the series' own noise")
    z = models.FloatField(
        null=True,
        blank=True,
        help_text="the shift in standard errors of the series' own noise (a step: of its two levels' "
        "robust estimates; an outlier: of one run); 1 - confidence rounds to 0 past z = 4",
    )
    attribution = models.JSONField(
        default=list, blank=True, help_text='[{"field", "before", "after"}], most specific first; [] = unexplained'
    )
    status = models.CharField(max_length=15, choices=Status.choices, default=Status.NEW)
    note = models.TextField(blank=True)
    triaged_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    triaged_at = models.DateTimeField(null=True, blank=True)
    detected = models.BooleanField(
        default=True, help_text="false when the latest detection no longer finds it (kept because it was triaged)"
    )
    detected_at = models.DateTimeField(auto_now_add=True)

    objects = ChangeQuerySet.as_manager()

    class Meta:
        ordering = ["-run_after__run_timestamp", "system", "metric"]
        constraints = [
            models.UniqueConstraint(fields=["system", "metric", "kind", "run_after"], name="change_unique_place")
        ]
        indexes = [models.Index(fields=["status", "kind"], name="change_status_kind")]

    def __str__(self) -> str:
        return f"{self.kind} {self.direction} {self.magnitude_pct:+.1f} % in {self.metric} of {self.system.name}"

    def get_absolute_url(self) -> str:
        return reverse("system-history", args=[self.system_id]) + f"#change-{self.pk}"

    @property
    def p_value(self) -> float | None:
        """The two-sided p-value of `z` (a standard normal statistic): what `confidence` rounds away."""
        return None if self.z is None else math.erfc(abs(self.z) / math.sqrt(2))


class MetricNoise(models.Model):
    """A system's run-to-run noise in one metric, within one configuration class (>= 3 runs)."""

    system = models.ForeignKey(StorageSystem, on_delete=models.CASCADE, related_name="noise")
    metric = models.CharField(max_length=50)
    config_class = models.CharField(max_length=255, help_text="client nodes, kind and rules mode of the runs")
    sigma = models.FloatField(help_text="standard deviation of the log value (0.04 ≈ 4 %)")
    runs = models.PositiveIntegerField()

    class Meta:
        ordering = ["system", "metric", "config_class"]
        constraints = [models.UniqueConstraint(fields=["system", "metric", "config_class"], name="metricnoise_unique")]

    def __str__(self) -> str:
        return f"{self.metric} of {self.system.name}: ±{100 * self.sigma:.1f} %"
