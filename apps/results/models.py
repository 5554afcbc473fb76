"""The results domain: systems, runs, phases, Lustre provenance, anomalies, editions, DNE scaling series.

Everything else in ioboard depends on this app and it depends on nothing else: ingest writes
these rows, leaderboard and api read them. `Upload` lives here rather than in ingest because a
run points at the upload it came from, and that arrow must not point from results to ingest.
"""

import hashlib
import math
import re

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models, transaction
from django.db.models import F
from django.db.models.functions import Upper
from django.urls import reverse

from apps.results.anomalies import PhaseFacts, RunFacts, ScoreFacts
from apps.results.anomalies.registry import resolve_thresholds
from apps.results.anomalies.rules import reproduced, score_reproduction
from apps.results.list_kinds import eligible_condition, is_eligible, is_ranked, list_kind_choices
from apps.results.querysets import ChangeQuerySet, ListEntryQuerySet, RunQuerySet, check_run_write
from apps.results.reproducibility import LEVELS, UNDEFINED
from apps.results.scaling.study import DNE_AXES, DNE_UNIT, dne_study_name, study_point_fields
from apps.results.scoring.generations import ERA_CAPP, ERA_SCRIPT
from apps.results.studies.analysis import DEFAULT_ALPHA, DEFAULT_MARGIN, compare
from apps.results.submission_rules import RULES_EDITIONS, Clause, clauses_for, manual_checklist


def identity_key(*parts: str) -> str:
    """Spelling-insensitive key: case, punctuation and runs of white space do not make a new system."""
    cleaned = [re.sub(r"[\W_]+", " ", (part or "").casefold()).strip() for part in parts]
    return "|".join(cleaned)


class Institution(models.Model):
    name = models.CharField(max_length=255)
    key = models.CharField(max_length=255, unique=True, help_text="normalised name; see identity_key")
    country = models.CharField(max_length=100, blank=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @classmethod
    def resolve(cls, name: str) -> "Institution":
        """The canonical institution for a spelling, following aliases, created when unknown."""
        name = (name or "").strip() or "Unknown"
        key = identity_key(name)
        alias = InstitutionAlias.objects.select_related("institution").filter(key=key).first()
        if alias:
            return alias.institution
        institution, _ = cls.objects.get_or_create(key=key, defaults={"name": name})
        return institution


class InstitutionAlias(models.Model):
    """Another spelling of an institution (e.g. "IBM Tuscon" for "IBM Tucson")."""

    institution = models.ForeignKey(Institution, on_delete=models.CASCADE, related_name="aliases")
    name = models.CharField(max_length=255)
    key = models.CharField(max_length=255, unique=True)

    def __str__(self) -> str:
        return f"{self.name} → {self.institution}"

    def save(self, *args, **kwargs):
        self.key = identity_key(self.name)
        super().save(*args, **kwargs)


class StorageSystem(models.Model):
    """The canonical identity of a storage system: institution + system name + file-system type.

    "Best result per system" and per-system history group on this row, never on a spelling.
    """

    institution = models.ForeignKey(Institution, on_delete=models.PROTECT, related_name="systems")
    name = models.CharField(max_length=255)
    filesystem = models.CharField(max_length=255, help_text="file-system type or product, e.g. Lustre, DAOS")
    key = models.CharField(max_length=800, unique=True, help_text="normalised identity; see identity_key")
    storage_vendor = models.CharField(max_length=255, blank=True)
    server_count = models.PositiveIntegerField(null=True, blank=True, help_text="storage servers, when known")
    description = models.TextField(blank=True)

    class Meta:
        ordering = ["institution__name", "name"]

    def __str__(self) -> str:
        return f"{self.institution} / {self.name} ({self.filesystem})"

    def get_absolute_url(self) -> str:
        return reverse("system-detail", args=[self.pk])

    @classmethod
    def resolve(cls, institution: str, name: str, filesystem: str, *, fill_blanks: bool = True,
                **defaults) -> "StorageSystem":
        """The canonical system for these spellings, following aliases, created when unknown (with `defaults`);
        a known system gets `defaults` where it has no value yet, unless `fill_blanks` is False."""
        institution_row = Institution.resolve(institution)
        name = (name or "").strip() or "Unknown system"
        filesystem = (filesystem or "").strip() or "unknown"
        alias_key = identity_key(institution_row.name, name, filesystem)
        alias = SystemAlias.objects.select_related("system").filter(key=alias_key).first()
        if alias:
            return alias.system
        key = identity_key(institution_row.key, name, filesystem)
        system, created = cls.objects.get_or_create(
            key=key,
            defaults={"institution": institution_row, "name": name, "filesystem": filesystem, **defaults},
        )
        if not created and fill_blanks:
            system.fill_blanks(**defaults)
        return system

    def fill_blanks(self, **values) -> None:
        """Set the given descriptive fields (storage_vendor, server_count) where the system has none yet. An
        upload that claims a system of another owner does not describe it (apps.results.ownership)."""
        missing = {field: value for field, value in values.items() if value and not getattr(self, field)}
        if missing:
            for field, value in missing.items():
                setattr(self, field, value)
            # The run write that follows (apps.results.runs) copies them into the system's list entries.
            self.save(update_fields=list(missing))


class SystemAlias(models.Model):
    """Another spelling of (institution, system, file system) that means an existing system."""

    system = models.ForeignKey(StorageSystem, on_delete=models.CASCADE, related_name="aliases")
    institution_name = models.CharField(max_length=255)
    name = models.CharField(max_length=255)
    filesystem = models.CharField(max_length=255)
    key = models.CharField(max_length=800, unique=True)

    class Meta:
        verbose_name_plural = "system aliases"

    def __str__(self) -> str:
        return f"{self.institution_name} / {self.name} ({self.filesystem}) → {self.system}"

    def save(self, *args, **kwargs):
        self.key = identity_key(self.institution_name, self.name, self.filesystem)
        super().save(*args, **kwargs)


class Upload(models.Model):
    """A file exactly as it was received, content-addressed, so it can always be re-ingested.

    ``kind`` names the benchmark tool whose pipeline ingests it. Its valid values are the upload kinds of
    the tool registry (``apps.ingest.tools``), checked where an upload is received: this app imports no
    other, and a new tool needs no migration."""

    file = models.FileField(upload_to="uploads/%Y/%m/")
    sha256 = models.CharField(max_length=64, unique=True)
    original_name = models.CharField(max_length=500)
    size = models.BigIntegerField()
    kind = models.CharField(max_length=40, default="io500", help_text="an upload kind of apps.ingest.tools")
    uploader = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="uploads"
    )
    declared_metadata = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.original_name} ({self.sha256[:12]})"

    @property
    def needs_review(self) -> bool:
        """Runs of this upload wait for the committee, unless its uploader may publish without review.

        A committee board ranks only accepted runs (issue: the lists as the IO500 publishes them); a site's
        own board gives its submitters the permission, and their uploads are ranked at the next read.
        """
        return not (self.uploader and self.uploader.has_perm("results.publish_without_review"))

    @staticmethod
    def hash_file(fileobj) -> str:
        digest = hashlib.sha256()
        for chunk in iter(lambda: fileobj.read(1024 * 1024), b""):
            digest.update(chunk)
        fileobj.seek(0)
        return digest.hexdigest()


class LustreBuild(models.Model):
    """The exact Lustre a run used: versions, base commit and the patches on top of it."""

    server_version = models.CharField(max_length=100, blank=True)
    client_version = models.CharField(max_length=100, blank=True)
    base_tag = models.CharField(max_length=255, blank=True)
    base_commit = models.CharField(max_length=64, blank=True)
    notes = models.TextField(blank=True, help_text="release-note style text the build was parsed from")
    fingerprint = models.CharField(max_length=64, unique=True, help_text="sha256 of versions, base and patches")

    def __str__(self) -> str:
        parts = [f"server {self.server_version}" if self.server_version else "",
                 f"client {self.client_version}" if self.client_version else "",
                 self.base_commit[:10]]
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
        IO500 = "io500", "IO500"
        MDTEST = "mdtest", "mdtest"

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
    lustre_build = models.ForeignKey(LustreBuild, null=True, blank=True, on_delete=models.SET_NULL,
                                     related_name="runs")

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
    verification = models.CharField(max_length=20, choices=Verification.choices,
                                    default=Verification.NOT_VERIFIABLE)
    config_hash_status = models.CharField(max_length=20, choices=Verification.choices,
                                          default=Verification.NOT_VERIFIABLE)
    exclusion_reason = models.TextField(
        blank=True, help_text="why the run is kept off ranked lists; empty when it is eligible"
    )
    flagged = models.BooleanField(default=False, help_text="has a warning-level anomaly")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    # The submission and its review (apps.results.review). Runs loaded from published archives were accepted
    # by the committee of their day, hence the default; uploads start as submitted (apps.ingest.tools.*.pipeline).
    reproducibility = models.JSONField(
        default=dict, blank=True,
        help_text="questionnaire, target level and list, production declaration, acknowledgements "
                  "(apps.results.reproducibility)")
    review_status = models.CharField(max_length=12, choices=ReviewStatus.choices, default=ReviewStatus.ACCEPTED,
                                     db_index=True, help_text="ranked lists show accepted runs only")
    reproducibility_level = models.CharField(max_length=20, choices=list(LEVELS.items()), default=UNDEFINED,
                                             help_text="assigned by the committee")
    production_accepted = models.BooleanField(default=False,
                                              help_text="the committee accepted the production declaration")
    system_claim = models.TextField(
        blank=True, help_text="the upload named an existing system that holds runs of another owner: the run "
                              "waits as submitted until the committee accepts the claim (apps.results.ownership)")

    objects = RunQuerySet.as_manager()

    class Meta:
        ordering = ["-score_total", "pk"]
        permissions = [("publish_without_review",
                        "Publish uploaded runs at once: a site's own submitters, on a board without a committee")]
        indexes = [
            models.Index(fields=["system", "-score_total"], name="run_system_score"),
            models.Index(fields=["-score_total"], name="run_score"),
            models.Index(fields=["client_nodes", "-score_total"], name="run_nodes_score"),
            # A system's best eligible run, which list upkeep re-derives for each written system
            # (apps.results.list_entries), reads this index only (no sort, no heap) instead of sorting its runs.
            # Eligibility, not review: a list's candidates are filtered on review_status from the heap, and almost
            # every run is accepted (published archives), so the index serves "visible as ranked" as well.
            models.Index(fields=["system", "-score_total", "id"], name="run_eligible_best",
                         condition=eligible_condition()),
            # The same for the 10-node list, whose client_nodes filter the index above cannot answer: without
            # it both its queries scan the run table.
            models.Index(fields=["system", "-score_total", "id"], name="run_ten_node_best",
                         condition=models.Q(client_nodes=10) & eligible_condition()),
            # Counting the runs (or systems) of one kind reads this index only. The list pages count from
            # ListState, never from the run table.
            models.Index(fields=["kind", "system"], name="run_kind_system"),
        ]

    def __str__(self) -> str:
        return f"Run {self.pk} of {self.system.name}"

    def save(self, *args, **kwargs):
        """Only inside a verb of apps.results.runs (as `delete` and the run queryset's writes)."""
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

    def derive_verdicts(self) -> None:
        """Recompute the denormalised ranking verdicts from the stored anomalies (saved by
        apps.results.runs.set_verdicts).

        An error-level anomaly (a run the benchmark marked invalid included) keeps the run off the
        ranked lists, with the rule's message as the reason; a warning only shows a badge.
        """
        anomalies = list(self.anomalies.all())
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


def validate_rules_edition(name: str) -> None:
    """A rules edition is one of the rules checker's editions (apps.results.submission_rules.RULES_EDITIONS)."""
    if name not in RULES_EDITIONS:
        raise ValidationError(f"{name!r} is no edition of the submission rules; use one of {', '.join(RULES_EDITIONS)}")


class RulesEdition(models.Model):
    """The submission rules in force between two dates, with the review checklist of that edition.

    Named after an edition of the rules checker (apps.results.submission_rules), whose clauses say which rules
    applied: a new edition's checklist, unless given, is the edition's clauses that no submitted file shows
    (``not_checkable``), which a reviewer checks by hand; the others are checked from the files
    (apps.results.review.clause_report).
    """

    name = models.SlugField(max_length=50, unique=True, validators=[validate_rules_edition],
                            help_text="an edition of the submission rules: sc17 … sc26")
    since = models.DateField()
    until = models.DateField(null=True, blank=True, help_text="empty: still in force")
    notes = models.TextField(blank=True)
    checklist = models.JSONField(default=list, blank=True,
                                 help_text="what a reviewer checks, one item a string; empty: the edition's clauses "
                                           "that no file shows")

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
    """A reviewer's note on a run, with each status change it made."""

    run = models.ForeignKey("Run", on_delete=models.CASCADE, related_name="review_notes")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    text = models.TextField(blank=True)
    status = models.CharField(max_length=12, choices=ReviewStatus.choices, blank=True,
                              help_text="the status the run was given with this note, if any")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["run_id", "created_at", "pk"]

    def __str__(self) -> str:
        return f"note on run {self.run_id}"


class CustomList(models.Model):
    """A reader's list: the members of a registered list kind ranked by an equation (apps.results.equations)."""

    token = models.SlugField(max_length=22, unique=True, help_text="the stable link: /lists/custom/<token>/")
    name = models.CharField(max_length=200)
    equation = models.CharField(max_length=500)
    base_list = models.CharField(max_length=20, choices=list_kind_choices, default="full")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE,
                              related_name="custom_lists",
                              help_text="the account that saved it; none for the demo's lists")
    created_at = models.DateTimeField(auto_now_add=True)
    entry_count = models.PositiveIntegerField(default=0, help_text="its entries (CustomListEntry), kept with them")

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("custom-list", args=[self.token])


class CustomListEntry(models.Model):
    """A member of a custom list's base list with the equation's value for it (apps.results.custom_lists).

    Kept so that a page of a custom list reads one index range, like the built-in lists, instead of evaluating
    the equation over every member on each read (seconds per page). A committed write to a run
    re-evaluates its storage system's members. `ranked` is False when the base list does not rank the run (the
    historic list's submitted or rejected runs) or the equation has no value for it (a phase missing, a division
    by zero): such runs are listed last, unranked.
    """

    custom_list = models.ForeignKey(CustomList, on_delete=models.CASCADE, related_name="entries")
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="+")
    system = models.ForeignKey(StorageSystem, on_delete=models.CASCADE, related_name="+")
    ranked = models.BooleanField()
    value = models.FloatField(null=True)

    class Meta:
        verbose_name_plural = "custom list entries"
        constraints = [models.UniqueConstraint(fields=["custom_list", "run"], name="customentry_unique_run")]
        # List order: ranked first, highest value first, then first stored. Unranked entries have no value, so
        # where the database puts NULLs in a descending index (PostgreSQL first, SQLite last) never matters.
        indexes = [models.Index(fields=["custom_list", "-ranked", "-value", "run"], name="customentry_order")]

    def __str__(self) -> str:
        return f"{self.custom_list_id}: run {self.run_id} = {self.value}"


class Edition(models.Model):
    """A list frozen under a name (e.g. "ISC19"): its membership and scores never change afterwards."""

    name = models.SlugField(max_length=50)
    list_kind = models.CharField(max_length=20, choices=list_kind_choices, help_text="apps.results.list_kinds")
    title = models.CharField(max_length=255, blank=True)
    description = models.TextField(blank=True)
    frozen_at = models.DateTimeField(auto_now_add=True)
    rules_edition = models.ForeignKey("RulesEdition", null=True, blank=True, on_delete=models.PROTECT,
                                      related_name="editions", help_text="the rules in force for this list")

    class Meta:
        ordering = ["-frozen_at"]
        constraints = [models.UniqueConstraint(fields=["name", "list_kind"], name="edition_unique_list")]

    def __str__(self) -> str:
        return f"{self.name} ({self.get_list_kind_display()})"


class ListEntry(models.Model):
    """A run's place on a live list, maintained on write (apps.results.list_entries), never computed per read.

    One row per (list kind, member run), with copies of the columns that list pages filter and sort
    on, so a page reads one narrow indexed table. The rank is `base_rank` plus the net count of
    ListRankShift rows after `shifts_after` whose score is higher: an insert or removal anywhere in the
    list costs one shift row instead of renumbering every entry below it, and a settle folds the
    shifts back into base ranks (see apps.results.list_entries).
    """

    kind = models.CharField(max_length=20, choices=list_kind_choices)
    run = models.ForeignKey("Run", on_delete=models.CASCADE, related_name="list_entries")
    system = models.ForeignKey(StorageSystem, on_delete=models.CASCADE, related_name="list_entries")
    ranked = models.BooleanField(help_text="gets a rank on this list (historic lists also show unranked runs)")
    score = models.FloatField(null=True)
    base_rank = models.PositiveIntegerField(null=True, help_text="the rank when shifts_after was the last shift")
    shifts_after = models.BigIntegerField(default=0)
    score_bw = models.FloatField(null=True)
    score_md = models.FloatField(null=True)
    client_nodes = models.PositiveIntegerField(null=True)
    client_procs = models.PositiveIntegerField(null=True)
    year = models.PositiveIntegerField(null=True)
    flagged = models.BooleanField(default=False)
    filesystem = models.CharField(max_length=255)
    storage_vendor = models.CharField(max_length=255, blank=True)
    institution_name = models.CharField(max_length=255)
    system_name = models.CharField(max_length=255)
    server_count = models.PositiveIntegerField(null=True)
    exclusion_reason = models.TextField(blank=True, help_text="why the run is kept off ranked lists (historic list)")
    verification = models.CharField(max_length=20, blank=True, help_text="of the run's score (cited placements)")

    objects = ListEntryQuerySet.as_manager()

    class Meta:
        verbose_name_plural = "list entries"
        constraints = [models.UniqueConstraint(fields=["kind", "run"], name="listentry_unique_run")]
        # The list-order indexes (kind, score DESC NULLS LAST, run) and (kind, score_bw/score_md DESC NULLS LAST)
        # are made by migration 0006 (SQLite cannot state NULLS LAST in an index; its DESC puts NULLs last anyway):
        # a list page in list order then reads its 50 index entries whatever the list's size.
        indexes = [
            # Neighbours of a new entry when its rank is computed (ascending, ranked entries only).
            models.Index(fields=["kind", "score"], name="listentry_ranked_score", condition=models.Q(ranked=True)),
            models.Index(fields=["kind", "system"], name="listentry_system"),
            # Sorting by node count and filtering by year, the commonest narrowing of the historic list, have
            # (kind, client_nodes, score DESC NULLS LAST, run) and (kind, year, client_nodes, score ..., run)
            # indexes, one per direction, from migration 0017: a page sorted by node count (ties by score)
            # reads its rows in order. Every other sort key has its pair from migration 0019, the per-node and
            # per-server ratios as expression indexes (ListEntryQuerySet.sort_listed).
            # The file system filter compares upper-cased values (iexact). Over a bare column PostgreSQL guesses
            # such a condition matches a tiny share of a list, so it sorted every Lustre entry on 10+ nodes of
            # the IO500 list rather than walk its bandwidth order for the 50 of a page. ANALYZE
            # gathers statistics on an index's expressions, so with this it estimates the real shares, and a
            # rare file system is read from its own index entries. The vendor filter compares the raw column
            # (ListEntryQuerySet.page_keys), whose statistics and sort indexes serve it.
            models.Index(F("kind"), Upper("filesystem"), name="listentry_filesystem"),
        ]

    def __str__(self) -> str:
        return f"{self.kind}: run {self.run_id}"


class ListRankShift(models.Model):
    """A ranked entry entered (+1) or left (-1) a list at `score`: every entry below it moves by `delta`."""

    kind = models.CharField(max_length=20, choices=list_kind_choices)
    score = models.FloatField()
    delta = models.SmallIntegerField()

    class Meta:
        indexes = [models.Index(fields=["kind", "score"], name="listrankshift_score")]

    def __str__(self) -> str:
        return f"{self.kind}: {self.delta:+d} at {self.score}"


class ListState(models.Model):
    """Per list kind: its counts and population statistics, kept with the entries.

    Counts change in the same transaction as the entries. The phase medians are refreshed after
    the commit by a task (apps.results.tasks): a median over a large list costs more than a whole
    upload may take; pages show `statistics_as_of` next to them.
    """

    kind = models.CharField(max_length=20, choices=list_kind_choices, primary_key=True)
    entry_count = models.PositiveIntegerField(default=0)
    ranked_count = models.PositiveIntegerField(default=0)
    pending_shifts = models.PositiveIntegerField(default=0, help_text="shift rows since the last settle")
    phase_medians = models.JSONField(default=dict, blank=True, help_text="{phase: median value} of ranked entries")
    filesystems = models.JSONField(default=list, blank=True, help_text="the file systems of the entries, sorted")
    statistics_stale = models.BooleanField(default=True)
    statistics_as_of = models.DateTimeField(null=True, blank=True)
    settled_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.kind}: {self.entry_count} entries"


class EditionEntry(models.Model):
    """A run's place on a frozen edition, with the numbers copied at freezing time."""

    edition = models.ForeignKey(Edition, on_delete=models.CASCADE, related_name="entries")
    run = models.ForeignKey(Run, null=True, on_delete=models.SET_NULL, related_name="edition_entries")
    system = models.ForeignKey(StorageSystem, null=True, on_delete=models.SET_NULL,
                               related_name="edition_entries")
    rank = models.PositiveIntegerField(null=True)
    institution_name = models.CharField(max_length=255)
    system_name = models.CharField(max_length=255)
    filesystem = models.CharField(max_length=255)
    storage_vendor = models.CharField(max_length=255, blank=True)
    client_nodes = models.PositiveIntegerField(null=True)
    client_procs = models.PositiveIntegerField(null=True)
    score = models.FloatField(null=True)
    score_bw = models.FloatField(null=True)
    score_md = models.FloatField(null=True)
    exclusion_reason = models.TextField(blank=True)

    class Meta:
        ordering = ["edition", "rank", "pk"]
        verbose_name_plural = "edition entries"

    def __str__(self) -> str:
        return f"{self.edition.name} #{self.rank} {self.system_name}"


class ScalingSeries(models.Model):
    """A campaign of mdtest launches over MDT and client counts (a DNE scaling series)."""

    name = models.CharField(max_length=255, unique=True)
    system = models.ForeignKey(StorageSystem, null=True, blank=True, on_delete=models.SET_NULL,
                               related_name="scaling_series")
    lustre_build = models.ForeignKey(LustreBuild, null=True, blank=True, on_delete=models.SET_NULL,
                                     related_name="scaling_series")
    upload = models.ForeignKey(Upload, null=True, blank=True, on_delete=models.SET_NULL,
                               related_name="scaling_series")
    notes = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name_plural = "scaling series"

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("scaling-detail", args=[self.pk])

    def ensure_study(self) -> "Study":
        """The series read as a parameter study (``apps.results.scaling.study``): created on first need and
        then filled from every point stored so far, in one transaction; it shows the series' system and build."""
        study = Study.objects.filter(scaling_series=self).first()
        if study is None:
            with transaction.atomic():
                name = dne_study_name(self.name, self.pk, lambda name: Study.objects.filter(name=name).exists())
                study = Study.objects.create(
                    name=name, scaling_series=self, unit=DNE_UNIT, axis_order=list(DNE_AXES), system_id=self.system_id,
                    lustre_build_id=self.lustre_build_id, upload_id=self.upload_id, notes=self.notes)
                study.store_scaling_points(self.points.all())
        else:
            mirrored = ("system_id", "lustre_build_id", "upload_id")
            if any(getattr(study, name) != getattr(self, name) for name in mirrored):
                for name in mirrored:
                    setattr(study, name, getattr(self, name))
                study.save(update_fields=[name.removesuffix("_id") for name in mirrored])
        return study

    @classmethod
    def with_counts(cls):
        """Series with their size and MDT range, for lists: one query however many series."""
        return cls.objects.select_related("system__institution", "lustre_build").annotate(
            point_count=models.Count("points"),
            log_count=models.Count("points__log_hash", distinct=True),
            min_mdt_count=models.Min("points__mdt_count"),
            max_mdt_count=models.Max("points__mdt_count"),
        )


class ScalingPoint(models.Model):
    """One operation's SUMMARY row of one mdtest task block, placed by MDT count and client count.

    Rates and times are decimals with mdtest's three printed places, so a stored value compares
    equal to the printed one; ``printed`` also keeps every string of the rows that belong to the
    point (rate, time and stonewall rows), e.g. ``{"rate": {"max": "846368.737", ...}}``.
    """

    class Striping(models.TextChoices):
        INHERITED = "inherited"
        NON_INHERITED = "non-inherited"
        UNKNOWN = "unknown"

    series = models.ForeignKey(ScalingSeries, on_delete=models.CASCADE, related_name="points")
    mdt_count = models.PositiveIntegerField()
    client_nodes = models.PositiveIntegerField(null=True, blank=True)
    tasks = models.PositiveIntegerField(null=True, blank=True)
    files_per_dir = models.PositiveBigIntegerField(null=True, blank=True,
                                                   help_text="the directory load: items per directory")
    striping = models.CharField(max_length=15, choices=Striping.choices, default=Striping.UNKNOWN)
    unique_dir = models.BooleanField(default=False, help_text="mdtest -u: a directory per task")
    operation = models.CharField(max_length=30)
    max = models.DecimalField(max_digits=24, decimal_places=3, null=True, blank=True,
                              help_text="ops/s, from the SUMMARY rate table")
    min = models.DecimalField(max_digits=24, decimal_places=3, null=True, blank=True)
    mean = models.DecimalField(max_digits=24, decimal_places=3, null=True, blank=True)
    stddev = models.DecimalField(max_digits=24, decimal_places=3, null=True, blank=True)
    printed = models.JSONField(default=dict, blank=True,
                               help_text="the strings of the point's rate, time and stonewall rows as printed")
    time_max = models.DecimalField(max_digits=24, decimal_places=3, null=True, blank=True,
                                   help_text="seconds, from the SUMMARY time table (whatever its unit label)")
    time_min = models.DecimalField(max_digits=24, decimal_places=3, null=True, blank=True)
    time_mean = models.DecimalField(max_digits=24, decimal_places=3, null=True, blank=True)
    time_stddev = models.DecimalField(max_digits=24, decimal_places=3, null=True, blank=True)
    iterations = models.PositiveIntegerField(null=True, blank=True)
    iteration_values = models.JSONField(default=list, blank=True,
                                        help_text="mdtest -v lines: [{iteration, seconds, rate}] as printed")
    label = models.CharField(max_length=255, blank=True)
    source_file = models.CharField(max_length=1000)
    launch_index = models.PositiveIntegerField(default=0)
    block_index = models.PositiveIntegerField(default=0, help_text="the '<n> tasks' block of a -f/-l/-s launch")
    log_hash = models.CharField(max_length=64, db_index=True)
    upload = models.ForeignKey(Upload, null=True, blank=True, on_delete=models.CASCADE, related_name="scaling_points",
                               help_text="the upload that stored the point; none: the operator (results.ownership)")

    class Meta:
        ordering = ["series", "operation", "mdt_count", "tasks"]
        constraints = [
            models.UniqueConstraint(fields=["series", "log_hash", "launch_index", "block_index", "operation"],
                                    name="scalingpoint_unique_row"),
        ]

    def __str__(self) -> str:
        return f"{self.operation} @ {self.mdt_count} MDT, {self.tasks} tasks"


class Study(models.Model):
    """A parameter study: IOR runs over named axes (api, hints, nodes, file system...), compared for
    significance across their repetitions. See ``apps.results.studies.analysis``."""

    name = models.CharField(max_length=255, unique=True)
    system = models.ForeignKey(StorageSystem, null=True, blank=True, on_delete=models.SET_NULL,
                               related_name="studies")
    filesystem = models.CharField(max_length=255, blank=True,
                                  help_text="file system under test, when the whole study has one")
    lustre_build = models.ForeignKey(LustreBuild, null=True, blank=True, on_delete=models.SET_NULL,
                                     related_name="studies")
    upload = models.ForeignKey(Upload, null=True, blank=True, on_delete=models.SET_NULL, related_name="studies")
    notes = models.TextField(blank=True)
    axis_order = models.JSONField(default=list, blank=True,
                                  help_text="axis names in the order ingest first met them: the manifest's columns, "
                                            "then the log's (PostgreSQL's jsonb does not keep a point's key order)")
    unit = models.CharField(max_length=20, default="MiB/s", help_text="the unit of the points' values")
    margin = models.FloatField(
        default=DEFAULT_MARGIN, validators=[MinValueValidator(0.001), MaxValueValidator(1.0)],
        help_text="the smallest difference that matters, as a fraction (0.05 = 5 %): a significant difference "
                  "smaller than this is not called different, and two configurations whose ratio's 90 % "
                  "interval lies within [1/(1+margin), 1+margin] are called the same")
    scaling_series = models.OneToOneField(
        ScalingSeries, null=True, blank=True, on_delete=models.CASCADE, related_name="study",
        help_text="the DNE scaling series this study is the parameter-study view of; its points are written "
                  "from the series' points (apps.results.scaling.study), never ingested on their own")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name_plural = "studies"

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("study-detail", args=[self.pk])

    def note_axes(self, names) -> bool:
        """Append axis names not met before, keeping the order they first came in; whether any was new."""
        new = [name for name in dict.fromkeys(names) if name not in self.axis_order]
        self.axis_order = [*self.axis_order, *new]
        return bool(new)

    def ordered_points(self, points=None) -> list:
        """The study's points with each point's axes in the study's axis order, for the analysis and the pages,
        whose sentences and columns follow that order whatever the database did to the keys."""
        rank = {name: index for index, name in enumerate(self.axis_order)}
        points = list(self.points.all() if points is None else points)
        for point in points:
            point.axes = dict(sorted(point.axes.items(), key=lambda item: (rank.get(item[0], len(rank)), item[0])))
        return points

    def compare(self, points=None, *, alpha: float = DEFAULT_ALPHA, axes=None) -> list:
        """The pairwise comparisons of ``points`` (default: all of the study's) along ``axes`` (default: every
        varying axis), judged with the study's margin."""
        return compare(self.ordered_points(points), alpha=alpha, margin=self.margin, axes=axes)

    def store_scaling_points(self, points, upload: "Upload | None" = None) -> None:
        """Write the study points of a DNE scaling series' points (records or rows), replacing the study points of
        their logs: called with each log the series stores, in that log's transaction. A study point belongs to
        the upload of its series point (a stored row's own, else `upload`: the one storing the records)."""
        points = list(points)
        self.points.filter(log_hash__in={point.log_hash for point in points}).delete()
        StudyPoint.objects.bulk_create(
            StudyPoint(study=self, upload_id=getattr(point, "upload_id", upload.pk if upload else None), **fields)
            for point, fields in zip(points, study_point_fields(points), strict=True))

    @classmethod
    def with_counts(cls):
        """Studies with their size, for lists: one query however many studies."""
        return cls.objects.select_related("system__institution").annotate(
            point_count=models.Count("points"),
            log_count=models.Count("points__log_hash", distinct=True),
        )


class StudyPoint(models.Model):
    """One operation of one IOR test: its axes, the Summary row's max/min/mean/stddev exactly as
    printed (strings: ``"3378.82"``, ``"NA"``), the per-iteration bandwidths as printed and its source."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="points")
    axes = models.JSONField(default=dict, help_text='e.g. {"api": "MPIIO", "nodes": 8, "config": "hint4"}')
    operation = models.CharField(max_length=20)
    max = models.CharField(max_length=40, blank=True, help_text="MiB/s as printed")
    min = models.CharField(max_length=40, blank=True)
    mean = models.CharField(max_length=40, blank=True)
    stddev = models.CharField(max_length=40, blank=True)
    iterations = models.JSONField(default=list, blank=True, help_text="per-iteration bw(MiB/s) as printed")
    source = models.CharField(max_length=1000, help_text="the log, relative to the ingested folder")
    source_line = models.PositiveIntegerField(null=True, blank=True, help_text="the Summary row, when printed")
    test_index = models.PositiveIntegerField(default=0, help_text="the test of a multi-test (-f) launch")
    log_hash = models.CharField(max_length=64, db_index=True)
    upload = models.ForeignKey(Upload, null=True, blank=True, on_delete=models.CASCADE, related_name="study_points",
                               help_text="the upload that stored the point; none: the operator (results.ownership)")

    class Meta:
        ordering = ["study", "source", "test_index", "operation"]
        constraints = [
            models.UniqueConstraint(fields=["study", "log_hash", "test_index", "operation"],
                                    name="studypoint_unique_row"),
        ]

    def __str__(self) -> str:
        return f"{self.operation} {self.axes}"


class Annotation(models.Model):
    """An expected change (e.g. "upgrade to 2.15") at a run: that run starts a new baseline for detection.

    Like conbench's distribution change: history before the run is not compared with history after
    it, and a step found exactly there is recorded as expected. A blank metric means every metric.
    """

    system = models.ForeignKey(StorageSystem, on_delete=models.CASCADE, related_name="annotations")
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="annotations",
                            help_text="the first run of the new baseline")
    metric = models.CharField(max_length=50, blank=True, help_text="phase name, score, score_bw or score_md; "
                                                                  "blank for every metric")
    text = models.CharField(max_length=500)
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                               related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

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

    system = models.ForeignKey(StorageSystem, on_delete=models.CASCADE, related_name="changes")
    metric = models.CharField(max_length=50, help_text="phase name, or score, score_bw, score_md")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    run_before = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="+",
                                   help_text="last run at the old level; for an outlier, the outlying run")
    run_after = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="+",
                                  help_text="first run at the new level; for an outlier, the outlying run")
    direction = models.CharField(max_length=4, choices=Direction.choices)
    magnitude_pct = models.FloatField(help_text="new level against the old one, in per cent")
    confidence = models.FloatField(help_text="1 - p of the shift against the series' own noise")
    z = models.FloatField(null=True, blank=True,
                          help_text="the shift in standard errors of the series' own noise (a step: of its two levels' "
                                    "robust estimates; an outlier: of one run); 1 - confidence rounds to 0 past z = 4")
    attribution = models.JSONField(default=list, blank=True,
                                   help_text='[{"field", "before", "after"}], most specific first; [] = unexplained')
    status = models.CharField(max_length=15, choices=Status.choices, default=Status.NEW)
    note = models.TextField(blank=True)
    triaged_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    triaged_at = models.DateTimeField(null=True, blank=True)
    detected = models.BooleanField(default=True, help_text="false when the latest detection no longer finds it "
                                                           "(kept because it was triaged)")
    detected_at = models.DateTimeField(auto_now_add=True)

    objects = ChangeQuerySet.as_manager()

    class Meta:
        ordering = ["-run_after__run_timestamp", "system", "metric"]
        constraints = [models.UniqueConstraint(fields=["system", "metric", "kind", "run_after"],
                                               name="change_unique_place")]
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
        constraints = [models.UniqueConstraint(fields=["system", "metric", "config_class"],
                                               name="metricnoise_unique")]

    def __str__(self) -> str:
        return f"{self.metric} of {self.system.name}: ±{100 * self.sigma:.1f} %"


from apps.results.stack_models import (  # noqa: E402, F401  (bottom-up campaigns: their own module)
    Stack,
    StackComponent,
    StackMeasurement,
    StackServer,
    StackSpec,
)
