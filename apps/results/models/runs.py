"""A run and what belongs to it alone: its files, phases, per-rank statistics, tunables, striping
and anomalies, and the review status it is in.
"""

import hashlib
from collections.abc import Iterable

from django.conf import settings
from django.db import models
from django.urls import reverse

from apps.results.judgements.anomalies import PhaseFacts, RunFacts, ScoreFacts
from apps.results.judgements.anomalies.registry import resolve_thresholds
from apps.results.judgements.anomalies.rules import reproduced, score_reproduction
from apps.results.judgements.reproducibility import LEVELS, UNDEFINED
from apps.results.judgements.scoring.generations import ERA_CAPP, ERA_SCRIPT
from apps.results.models.list_kinds import eligible_condition, is_eligible, is_ranked
from apps.results.models.provenance import LustreBuild
from apps.results.models.querysets import RunQuerySet, check_run_write
from apps.results.models.systems import StorageSystem
from apps.results.models.uploads import Upload


class ReviewStatus(models.TextChoices):
    """Where a submission stands with the committee."""

    SUBMITTED = "submitted"
    UNDER_REVIEW = "under_review", "under review"
    ACCEPTED = "accepted"
    REJECTED = "rejected"
    WITHDRAWN = "withdrawn"


class Run(models.Model):
    """One benchmark execution, with its configuration, provenance, scores and verdicts."""

    class Kind(models.TextChoices):
        """The benchmark a run is. IO500 alone: mdtest and IOR logs become points of a scaling series or a
        study, never runs (the `mdtest` choice nothing wrote went in migration 0035)."""

        IO500 = "io500", "IO500"

    class Era(models.TextChoices):
        SCRIPT = ERA_SCRIPT, "io500.sh script (2017-2020)"
        CAPP = ERA_CAPP, "C application (2020+)"
        NONE = "", "n/a"

    class Verification(models.TextChoices):
        VERIFIED = "verified"
        HASH_MISMATCH = "hash_mismatch"
        NOT_VERIFIABLE = "not_verifiable"

    system = models.ForeignKey(StorageSystem, on_delete=models.PROTECT, related_name="runs")
    upload = models.ForeignKey(Upload, null=True, blank=True, on_delete=models.SET_NULL, related_name="runs")
    identity = models.CharField(max_length=64, unique=True, help_text="sha256 of content hash + source path")
    content_hash = models.CharField(max_length=64, db_index=True, help_text="sha256 of the result files")
    source_path = models.CharField(max_length=1000, blank=True, help_text="result directory, relative")
    submission_id = models.CharField(max_length=50, blank=True)
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.IO500)
    benchmark_version = models.CharField(max_length=255, blank=True)
    era = models.CharField(max_length=10, choices=Era.choices, blank=True)
    generation = models.CharField(max_length=50, blank=True)
    run_timestamp = models.DateTimeField(null=True, blank=True)
    year = models.PositiveIntegerField(null=True, blank=True, db_index=True)
    client_nodes = models.PositiveIntegerField(null=True, blank=True)
    client_procs = models.PositiveIntegerField(null=True, blank=True)
    procs_per_node = models.PositiveIntegerField(null=True, blank=True)
    config = models.JSONField(default=dict, blank=True)
    info = models.JSONField(default=dict, blank=True, help_text="system description fields (io500_info_*)")
    facts = models.JSONField(default=dict, blank=True, help_text="evidence the anomaly rules read")
    lustre_build = models.ForeignKey(LustreBuild, null=True, blank=True, on_delete=models.SET_NULL, related_name="runs")

    score_bw = models.FloatField(null=True, blank=True, help_text="recomputed, GiB/s")
    score_md = models.FloatField(null=True, blank=True, help_text="recomputed, kIOPS")
    score_total = models.FloatField(null=True, blank=True, help_text="recomputed")
    reported_bw = models.FloatField(null=True, blank=True)
    reported_md = models.FloatField(null=True, blank=True)
    reported_total = models.FloatField(null=True, blank=True)
    score_formula = models.CharField(max_length=10, default="sqrt")
    extended_scores = models.JSONField(default=dict, blank=True, help_text="[SCOREX]: computed and reported")

    valid = models.BooleanField(default=True, help_text="as the benchmark itself marked the run")
    invalid_reasons = models.JSONField(default=list, blank=True)
    verification = models.CharField(max_length=20, choices=Verification.choices, default=Verification.NOT_VERIFIABLE)
    config_hash_status = models.CharField(
        max_length=20, choices=Verification.choices, default=Verification.NOT_VERIFIABLE
    )
    exclusion_reason = models.TextField(
        blank=True, help_text="why the run is kept off ranked lists; empty when it is eligible"
    )
    flagged = models.BooleanField(default=False, help_text="has a warning-level anomaly")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    # The submission and its review (apps.results.services.review). Runs loaded from published archives were accepted
    # by the committee of their day, hence the default; uploads start as submitted (apps.ingest.tools.*.pipeline).
    reproducibility = models.JSONField(
        default=dict,
        blank=True,
        help_text="questionnaire, target level and list, production declaration, acknowledgements "
        "(apps.results.judgements.reproducibility)",
    )
    review_status = models.CharField(
        max_length=12,
        choices=ReviewStatus.choices,
        default=ReviewStatus.ACCEPTED,
        db_index=True,
        help_text="ranked lists show accepted runs only",
    )
    reproducibility_level = models.CharField(
        max_length=20, choices=list(LEVELS.items()), default=UNDEFINED, help_text="assigned by the committee"
    )
    production_accepted = models.BooleanField(
        default=False, help_text="the committee accepted the production declaration"
    )
    system_claim = models.TextField(
        blank=True,
        help_text="the upload named an existing system that holds runs of another owner: the run "
        "waits as submitted until the committee accepts the claim "
        "(apps.results.services.ownership)",
    )
    embargoed = models.BooleanField(
        default=False,
        help_text="private until released: its upload's edition is not frozen yet, or its embargo date has not "
        "passed; only its account and staff see it (apps.results.models.visibility)",
    )

    objects = RunQuerySet.as_manager()

    class Meta:
        ordering = ["-score_total", "pk"]
        permissions = [
            (
                "publish_without_review",
                "Publish uploaded runs at once: a site's own submitters, on a board without a committee",
            )
        ]
        indexes = [
            models.Index(fields=["system", "-score_total"], name="run_system_score"),
            models.Index(fields=["-score_total"], name="run_score"),
            models.Index(fields=["client_nodes", "-score_total"], name="run_nodes_score"),
            # A system's best eligible run, which list upkeep re-derives for each written system
            # (apps.results.services.list_entries), reads this index only (no sort, no heap) instead of
            # sorting its runs.
            # Eligibility, not review: a list's candidates are filtered on review_status from the heap, and almost
            # every run is accepted (published archives), so the index serves "visible as ranked" as well.
            models.Index(
                fields=["system", "-score_total", "id"], name="run_eligible_best", condition=eligible_condition()
            ),
            # The same for the 10-node list, whose client_nodes filter the index above cannot answer: without
            # it both its queries scan the run table.
            models.Index(
                fields=["system", "-score_total", "id"],
                name="run_ten_node_best",
                condition=models.Q(client_nodes=10) & eligible_condition(),
            ),
            # Counting the runs (or systems) of one kind reads this index only. The list pages count from
            # ListState, never from the run table.
            models.Index(fields=["kind", "system"], name="run_kind_system"),
            # The systems holding an embargoed run, probed for each system a page shows a reader who is not staff
            # (`visibility.system_visible_condition`); almost no run is embargoed, so the index is a few pages.
            models.Index(fields=["system"], name="run_embargoed_system", condition=models.Q(embargoed=True)),
        ]

    def __str__(self) -> str:
        return f"Run {self.pk} of {self.system.name}"

    def save(self, *args, **kwargs):
        """Only inside a verb of apps.results.services.runs (as `delete` and the run queryset's writes)."""
        check_run_write("Run.save()")
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        return reverse("run-detail", args=[self.pk])

    def delete(self, *args, **kwargs):
        check_run_write("Run.delete()")
        return super().delete(*args, **kwargs)

    @property
    def is_eligible(self) -> bool:
        """May be ranked by its files and verdicts (`list_kinds.eligible_condition`), whatever its review."""
        return is_eligible(self)

    @property
    def is_ranked(self) -> bool:
        """Visible as ranked: eligible and accepted by review (`list_kinds.ranked_condition`)."""
        return is_ranked(self)

    def score_agreement(self) -> dict[str, bool]:
        """{"bw"|"md"|"total": whether the reported value agrees with the recomputed one}.

        Agreement is the print-precision model of ``anomalies.rules.score_reproduction`` (the rule
        ``reported_score_mismatch`` applies), on the stored facts, or on the run's own columns for
        runs stored without facts. A component without both numbers is left out; TOTAL is left out
        for product-formula runs, whose printed TOTAL is not comparable.
        """
        facts = RunFacts.from_dict(self.facts) if self.facts else self._score_facts()
        safety = float(resolve_thresholds(settings.IOBOARD_ANOMALY_THRESHOLDS)["score_tolerance_safety_factor"])
        return {component: reproduced(item) for component, item in score_reproduction(facts, safety).items()}

    def _score_facts(self) -> RunFacts:
        return RunFacts(
            era=self.era,
            generation=self.generation,
            score_formula=self.score_formula,
            phases={p.name: PhaseFacts(value=p.value, printed_value=p.printed_value) for p in self.phases.all()},
            reported_score=ScoreFacts(bw=self.reported_bw, md=self.reported_md, total=self.reported_total),
            computed_score=ScoreFacts(bw=self.score_bw, md=self.score_md, total=self.score_total),
        )

    @staticmethod
    def make_identity(content_hash: str, source_path: str) -> str:
        return hashlib.sha256(f"{content_hash}\0{source_path}".encode()).hexdigest()

    #: The columns `derive_verdicts` sets.
    VERDICT_FIELDS = ["exclusion_reason", "flagged"]

    def derive_verdicts(self, anomalies: "Iterable[Anomaly] | None" = None) -> None:
        """Recompute the denormalised ranking verdicts from the stored anomalies, or from `anomalies` when the
        caller has just stored them all (saved by apps.results.services.runs.set_verdicts).

        An error-level anomaly (a run the benchmark marked invalid included) keeps the run off the
        ranked lists, with the rule's message as the reason; a warning only shows a badge.
        """
        anomalies = list(self.anomalies.all() if anomalies is None else anomalies)
        reasons = [f"{a.rule}: {a.message}" for a in anomalies if a.severity == Anomaly.Severity.ERROR]
        if self.score_total is None:
            reasons.append("no score")
        self.exclusion_reason = "\n".join(reasons)
        self.flagged = any(a.severity == Anomaly.Severity.WARN for a in anomalies)


class RunFile(models.Model):
    """A configuration or script file of a run, kept verbatim (config.ini, io500.sh, job scripts...)."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="files")
    name = models.CharField(max_length=500)
    content = models.TextField()

    class Meta:
        ordering = ["run_id", "name"]
        constraints = [models.UniqueConstraint(fields=["run", "name"], name="runfile_unique_name")]

    def __str__(self) -> str:
        return self.name


class PhaseResult(models.Model):
    """One phase of a run: value in its true unit, wall time and the exact command line."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="phases")
    name = models.CharField(max_length=50)
    position = models.PositiveIntegerField(default=0)
    value = models.FloatField(null=True, blank=True)
    unit = models.CharField(max_length=10)
    seconds = models.FloatField(null=True, blank=True)
    printed_value = models.CharField(max_length=50, blank=True)
    printed_unit = models.CharField(max_length=20, blank=True)
    score_group = models.CharField(max_length=10, default="none")
    command = models.TextField(blank=True)
    invalid = models.BooleanField(default=False)
    source_file = models.CharField(max_length=1000, blank=True)
    source_line = models.PositiveIntegerField(null=True, blank=True)
    details = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["run_id", "position"]
        constraints = [models.UniqueConstraint(fields=["run", "name"], name="phase_unique_name")]

    def __str__(self) -> str:
        return f"{self.name} = {self.value} {self.unit}"


class PhaseRankStats(models.Model):
    """How evenly the ranks of one phase worked, from the C app's per-rank CSV (``rank_stats``).

    ``per_rank`` keeps ``[rank, runtime, throughput]`` rows for the run page's chart; runtime is the
    CSV's ``runtime`` column for IOR phases and ``time-<op>`` for mdtest phases, throughput bytes/s
    (IOR) or ops/s (mdtest).
    """

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="rank_stats")
    phase = models.CharField(max_length=50)
    tool = models.CharField(max_length=10)
    ranks = models.PositiveIntegerField()
    slowest_rank = models.PositiveIntegerField()
    fastest_rank = models.PositiveIntegerField()
    runtime_max = models.FloatField()
    runtime_min = models.FloatField()
    runtime_median = models.FloatField()
    imbalance = models.FloatField(null=True, blank=True, help_text="runtime_max / runtime_min")
    cv = models.FloatField(null=True, blank=True, help_text="coefficient of variation of per-rank throughput")
    slow_tail = models.JSONField(default=list, blank=True, help_text="ranks > median runtime by the straggler cut")
    stonewall_pairs = models.JSONField(default=dict, blank=True, help_text="IOR: pairs accessed min/max")
    per_rank = models.JSONField(default=list, blank=True)
    source_file = models.CharField(max_length=1000, blank=True)

    class Meta:
        ordering = ["run_id", "phase"]
        constraints = [models.UniqueConstraint(fields=["run", "phase"], name="rank_stats_unique_phase")]

    def __str__(self) -> str:
        return f"{self.phase}: {self.ranks} ranks, imbalance {self.imbalance}"

    def to_export(self) -> dict:
        """The ``ranks`` entry of a run's export (``export_runs --format json``)."""
        return {
            "ranks": self.ranks,
            "slowest_rank": self.slowest_rank,
            "fastest_rank": self.fastest_rank,
            "runtime_max": self.runtime_max,
            "runtime_min": self.runtime_min,
            "imbalance": self.imbalance,
            "cv": self.cv,
        }


class Tunable(models.Model):
    class Scope(models.TextChoices):
        CLIENT = "client"
        SERVER = "server"
        UNKNOWN = "unknown"

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="tunables")
    parameter = models.CharField(max_length=255)
    value = models.CharField(max_length=500)
    scope = models.CharField(max_length=10, choices=Scope.choices, default=Scope.UNKNOWN)
    source_file = models.CharField(max_length=1000, blank=True)
    source_line = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["run_id", "scope", "parameter"]

    def __str__(self) -> str:
        return f"{self.parameter}={self.value}"


class Striping(models.Model):
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="stripings")
    path_role = models.CharField(max_length=255, blank=True, help_text="e.g. ior_easy, mdtest_hard, or the path")
    stripe_count = models.IntegerField(null=True, blank=True, help_text="-1 = all OSTs")
    stripe_size = models.CharField(max_length=50, blank=True)
    overstriping = models.BooleanField(default=False)
    dir_stripe_count = models.IntegerField(null=True, blank=True)
    inherited = models.BooleanField(default=False, help_text="-D: default layout inherited by subdirectories")
    command = models.TextField(blank=True)
    source_file = models.CharField(max_length=1000, blank=True)
    source_line = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["run_id", "pk"]

    def __str__(self) -> str:
        return self.command or self.path_role


class Anomaly(models.Model):
    """A finding of a named rule, with the evidence (values compared, file and line) behind it."""

    class Severity(models.TextChoices):
        ERROR = "error"
        WARN = "warn"
        INFO = "info"

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="anomalies")
    rule = models.CharField(max_length=50, db_index=True)
    severity = models.CharField(max_length=10, choices=Severity.choices)
    phase = models.CharField(max_length=50, blank=True)
    message = models.TextField(blank=True)
    evidence = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["run_id", "severity", "rule"]
        verbose_name_plural = "anomalies"

    def __str__(self) -> str:
        return f"{self.rule} ({self.severity})"
