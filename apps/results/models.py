"""The results domain: systems, runs, phases, Lustre provenance, anomalies, editions, scaling series.

Everything else in ioboard depends on this app and it depends on nothing else: ingest writes
these rows, leaderboard and api read them. `Upload` lives here rather than in ingest because a
run points at the upload it came from, and that arrow must not point from results to ingest.
"""

import hashlib
import re

from django.conf import settings
from django.db import models
from django.urls import reverse

from apps.results.freshness import bump_data_version_on_commit
from apps.results.querysets import RunQuerySet


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
    def resolve(cls, institution: str, name: str, filesystem: str, **defaults) -> "StorageSystem":
        """The canonical system for these spellings, following aliases, created when unknown."""
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
        if not created:
            missing = {field: value for field, value in defaults.items() if value and not getattr(system, field)}
            if missing:
                cls.objects.filter(pk=system.pk).update(**missing)
                bump_data_version_on_commit()
                for field, value in missing.items():
                    setattr(system, field, value)
        return system


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
    """A file exactly as it was received, content-addressed, so it can always be re-ingested."""

    class Kind(models.TextChoices):
        IO500 = "io500", "IO500"
        MDTEST = "mdtest", "mdtest"

    file = models.FileField(upload_to="uploads/%Y/%m/")
    sha256 = models.CharField(max_length=64, unique=True)
    original_name = models.CharField(max_length=500)
    size = models.BigIntegerField()
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.IO500)
    uploader = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="uploads"
    )
    declared_metadata = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.original_name} ({self.sha256[:12]})"

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


class Run(models.Model):
    """One benchmark execution, with its configuration, provenance, scores and verdicts."""

    class Kind(models.TextChoices):
        IO500 = "io500", "IO500"
        MDTEST = "mdtest", "mdtest"

    class Era(models.TextChoices):
        SCRIPT = "script", "io500.sh script (2017-2020)"
        CAPP = "capp", "C application (2020+)"
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

    objects = RunQuerySet.as_manager()

    class Meta:
        ordering = ["-score_total", "pk"]
        indexes = [
            models.Index(fields=["system", "-score_total"], name="run_system_score"),
            models.Index(fields=["-score_total"], name="run_score"),
            models.Index(fields=["client_nodes", "-score_total"], name="run_nodes_score"),
            # "Best eligible run per system", the first step of every ranked list, reads this index only
            # (no sort, no heap) instead of sorting all runs: 130 ms → 28 ms at 100k runs on PostgreSQL.
            models.Index(fields=["system", "-score_total", "id"], name="run_eligible_best",
                         condition=models.Q(exclusion_reason="", kind="io500", score_total__isnull=False)),
            # The same for the 10-node list, whose client_nodes filter the index above cannot answer: without
            # it both its queries scan the run table (seq scan, 274 ms at 100k runs; 72 ms with it).
            models.Index(fields=["system", "-score_total", "id"], name="run_ten_node_best",
                         condition=models.Q(exclusion_reason="", kind="io500", score_total__isnull=False,
                                            client_nodes=10)),
            # Counting a list by kind (the historic list's paginator) reads this index only: 79 ms → 30 ms.
            models.Index(fields=["kind", "system"], name="run_kind_system"),
        ]

    def __str__(self) -> str:
        return f"Run {self.pk} of {self.system.name}"

    def get_absolute_url(self) -> str:
        return reverse("run-detail", args=[self.pk])

    @property
    def is_ranked(self) -> bool:
        return not self.exclusion_reason and self.score_total is not None

    @staticmethod
    def make_identity(content_hash: str, source_path: str) -> str:
        return hashlib.sha256(f"{content_hash}\0{source_path}".encode()).hexdigest()

    def refresh_verdicts(self) -> None:
        """Recompute the denormalised ranking verdicts from the stored anomalies.

        An error-level anomaly (a run the benchmark marked invalid included) keeps the run off the
        ranked lists, with the rule's message as the reason; a warning only shows a badge.
        """
        anomalies = list(self.anomalies.all())
        reasons = [f"{a.rule}: {a.message}" for a in anomalies if a.severity == Anomaly.Severity.ERROR]
        if self.score_total is None:
            reasons.append("no score")
        self.exclusion_reason = "\n".join(reasons)
        self.flagged = any(a.severity == Anomaly.Severity.WARN for a in anomalies)
        Run.objects.filter(pk=self.pk).update(exclusion_reason=self.exclusion_reason, flagged=self.flagged)
        bump_data_version_on_commit()


class RunFile(models.Model):
    """A configuration or script file of a run, kept verbatim (config.ini, io500.sh, job scripts...)."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="files")
    name = models.CharField(max_length=500)
    content = models.TextField()

    class Meta:
        ordering = ["run", "name"]
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
        ordering = ["run", "position"]
        constraints = [models.UniqueConstraint(fields=["run", "name"], name="phase_unique_name")]

    def __str__(self) -> str:
        return f"{self.name} = {self.value} {self.unit}"


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
        ordering = ["run", "scope", "parameter"]

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
        ordering = ["run", "pk"]

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
        ordering = ["run", "severity", "rule"]
        verbose_name_plural = "anomalies"

    def __str__(self) -> str:
        return f"{self.rule} ({self.severity})"


class Edition(models.Model):
    """A list frozen under a name (e.g. "ISC19"): its membership and scores never change afterwards."""

    class ListKind(models.TextChoices):
        IO500 = "io500", "IO500"
        TEN_NODE = "ten-node", "10-node challenge"
        HISTORIC = "historic", "Historic"

    name = models.SlugField(max_length=50)
    list_kind = models.CharField(max_length=10, choices=ListKind.choices)
    title = models.CharField(max_length=255, blank=True)
    description = models.TextField(blank=True)
    frozen_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-frozen_at"]
        constraints = [models.UniqueConstraint(fields=["name", "list_kind"], name="edition_unique_list")]

    def __str__(self) -> str:
        return f"{self.name} ({self.get_list_kind_display()})"


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
    """A campaign of mdtest launches over MDT and client counts (a DNE scaling study)."""

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

    class Meta:
        ordering = ["series", "operation", "mdt_count", "tasks"]
        constraints = [
            models.UniqueConstraint(fields=["series", "log_hash", "launch_index", "block_index", "operation"],
                                    name="scalingpoint_unique_row"),
        ]

    def __str__(self) -> str:
        return f"{self.operation} @ {self.mdt_count} MDT, {self.tasks} tasks"
