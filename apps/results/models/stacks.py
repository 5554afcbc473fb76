"""A bottom-up benchmarking campaign ("stack") as data: its inventory, its measurements and what they mean.

The inventory (servers and their roles, vendor and link specs, components of every layer from the
drives to the OSTs and the LNet interfaces, and which components lie below which) and one row per
measured component and operation, plus the file-system runs. What the measurements mean
(``expected``, ``efficiency``, outliers, the ceiling and over-ceiling runs) is computed once, when a
campaign is stored, by the plain-Python ``apps.results.judgements.stacks.semantics``, and kept on the rows, so
pages, the API, the export and the anomaly rule read one answer. Exported by ``apps.results.models``.
"""

from __future__ import annotations

from django.db import models
from django.urls import reverse

from apps.results.judgements.scoring import BW_PHASES, WRITE_PHASES
from apps.results.judgements.stacks.semantics import GIB_PER_S_IN_MB_PER_S, LAYERS, OVER_CEILING_FACTOR
from apps.results.models.visibility import owned_visible_condition

LAYER_CHOICES = [(layer, layer.replace("_", " ")) for layer in LAYERS]


class Stack(models.Model):
    """One campaign: the hardware under a file system, measured layer by layer; names its storage system."""

    name = models.SlugField(max_length=100, unique=True)
    file_system_name = models.CharField(max_length=255)
    file_system = models.JSONField(default=dict, blank=True, help_text="stack.yaml's file_system mapping")
    system = models.ForeignKey(
        "results.StorageSystem",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="stacks",
        help_text="the storage system whose runs meet the ceiling",
    )
    upload = models.ForeignKey(
        "results.Upload",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="stacks",
        help_text="its owner, who may replace it (None: the command "
        "line); the account is the upload's uploader (apps.results.services.ownership)",
    )
    ceiling_read = models.FloatField(null=True, blank=True)
    ceiling_write = models.FloatField(null=True, blank=True)
    limited_by = models.JSONField(default=dict, blank=True, help_text='{"read": "storage", "write": "network"}')
    storage_sum = models.JSONField(default=dict, blank=True, help_text="operation -> MB/s of the storage servers")
    network_sum = models.JSONField(default=dict, blank=True, help_text="operation -> MB/s of their networks")
    storage_sources = models.JSONField(default=dict, blank=True, help_text="operation -> server -> layer counted")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("stack-detail", args=[self.name])

    @classmethod
    def ceiling_for(cls, run) -> Stack | None:
        """The stack whose ceiling `run` is held to: its system's latest of the operator's (no upload) or of the
        run's own account. An account's stack describes the account's runs only: the first writer of a system
        with no runs yet may not hold the runs others store there later to a ceiling of its choosing."""
        if run.system_id is None:
            return None
        owners = models.Q(upload__isnull=True)
        if run.upload_id is not None:
            owners |= models.Q(upload=run.upload_id)
            if run.upload.uploader_id is not None:
                owners |= models.Q(upload__uploader_id=run.upload.uploader_id)
        return cls.objects.filter(owners, system_id=run.system_id).order_by("-created_at", "-pk").first()

    @classmethod
    def operator_ceilings(cls, system_ids) -> dict[int, Stack | None]:
        """`ceiling_for` of the operator's runs (no upload) of many systems, in one query: {system id: its latest
        stack of the operator's, or None}."""
        wanted = set(system_ids)
        latest: dict[int, Stack | None] = dict.fromkeys(wanted)
        for stack in cls.objects.filter(upload__isnull=True, system_id__in=wanted).order_by("created_at", "pk"):
            latest[stack.system_id] = stack
        return latest

    @classmethod
    def of_system(cls, system_id: int | None) -> Stack | None:
        """The stack whose ceiling a storage system's runs are held to: its latest."""
        if system_id is None:
            return None
        return cls.objects.filter(system_id=system_id).order_by("-created_at", "-pk").first()

    def run_efficiency(self, phases) -> list[dict]:
        """A run's IOR bandwidth phases (GiB/s) against this stack's ceiling: one row per phase with
        the phase in MB/s, the ceiling of its direction, their ratio and whether it is over the ceiling."""
        rows = []
        for phase in phases:
            if phase.name not in BW_PHASES or not phase.value:
                continue
            operation = "write" if phase.name in WRITE_PHASES else "read"
            limit = self.ceiling(operation)
            measured = phase.value * GIB_PER_S_IN_MB_PER_S
            rows.append(
                {
                    "phase": phase.name,
                    "operation": operation,
                    "measured": measured,
                    "ceiling": limit,
                    "efficiency": measured / limit if limit else None,
                    "over_ceiling": bool(limit) and measured > OVER_CEILING_FACTOR * limit,
                    "limited_by": self.limited_by.get(operation, ""),
                }
            )
        return rows

    def ior_points_against_ceiling(self, reader, limit: int = 50) -> list[dict]:
        """The IOR parameter-study points of this stack's storage system (``Max`` in MiB/s) that `reader` may see
        (apps.results.models.visibility) against the ceiling, the fastest first, at most ``limit`` per operation."""
        if self.system_id is None:
            return []
        StudyPoint = self._meta.apps.get_model("results", "StudyPoint")
        rows = []
        for operation in ("write", "read"):
            limit_mb = self.ceiling(operation)
            points = StudyPoint.objects.filter(
                owned_visible_condition(reader),
                owned_visible_condition(reader, "study__"),
                study__system_id=self.system_id,
                study__unit="MiB/s",
                operation=operation,
            ).select_related("study")
            measured = []
            for point in points.only("max", "source", "axes", "study__name", "study__unit", "operation")[:5000]:
                try:
                    value = float(point.max) * 2**20 / 10**6
                except ValueError:
                    continue
                measured.append((value, point))
            for value, point in sorted(measured, key=lambda pair: -pair[0])[:limit]:
                rows.append(
                    {
                        "study": point.study,
                        "source": point.source,
                        "operation": operation,
                        "measured": value,
                        "ceiling": limit_mb,
                        "efficiency": value / limit_mb if limit_mb else None,
                        "over_ceiling": bool(limit_mb) and value > OVER_CEILING_FACTOR * limit_mb,
                    }
                )
        return rows

    def ceiling(self, operation: str) -> float | None:
        return {"read": self.ceiling_read, "write": self.ceiling_write}.get(operation)

    def ceiling_evidence(self) -> dict:
        """The ceiling as the anomaly rule and the run page read it (plain data)."""
        return {
            "stack": self.name,
            "read": self.ceiling_read,
            "write": self.ceiling_write,
            "limited_by": self.limited_by,
            "storage": self.storage_sum,
            "network": self.network_sum,
        }


class StackServer(models.Model):
    stack = models.ForeignKey(Stack, on_delete=models.CASCADE, related_name="servers")
    name = models.CharField(max_length=255)
    roles = models.JSONField(default=list, blank=True)
    attributes = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["stack", "name"]
        constraints = [models.UniqueConstraint(fields=["stack", "name"], name="stackserver_unique")]

    def __str__(self) -> str:
        return self.name

    @property
    def is_storage(self) -> bool:
        return "oss" in self.roles


class StackSpec(models.Model):
    """A vendor (drive) or link figure: MB/s for read/write, IOPS for randread/randwrite; None = unknown."""

    stack = models.ForeignKey(Stack, on_delete=models.CASCADE, related_name="specs")
    key = models.CharField(max_length=255)
    kind = models.CharField(max_length=10, choices=[("drive", "drive"), ("link", "link")])
    model = models.CharField(max_length=500, blank=True)
    read = models.FloatField(null=True, blank=True)
    write = models.FloatField(null=True, blank=True)
    randread = models.FloatField(null=True, blank=True)
    randwrite = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["stack", "key"]
        constraints = [models.UniqueConstraint(fields=["stack", "key"], name="stackspec_unique")]

    def __str__(self) -> str:
        return self.key


class StackComponent(models.Model):
    """A drive, group of drives, block device, local file system, OST, link or LNet interface."""

    stack = models.ForeignKey(Stack, on_delete=models.CASCADE, related_name="components")
    server = models.ForeignKey(StackServer, on_delete=models.CASCADE, related_name="components")
    name = models.CharField(max_length=255)
    layer = models.CharField(max_length=20, choices=LAYER_CHOICES)
    spec = models.CharField(max_length=255, help_text="a spec key (devices, links) or a configuration label")
    attributes = models.JSONField(default=dict, blank=True)
    below = models.ManyToManyField("self", symmetrical=False, related_name="above", blank=True)

    class Meta:
        ordering = ["stack", "name"]
        constraints = [models.UniqueConstraint(fields=["stack", "name"], name="stackcomponent_unique")]

    def __str__(self) -> str:
        return self.name


class StackMeasurement(models.Model):
    """One log's figure for one component (or the file system) and operation, and what it means."""

    stack = models.ForeignKey(Stack, on_delete=models.CASCADE, related_name="measurements")
    component = models.ForeignKey(
        StackComponent,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="measurements",
        help_text="None for file-system runs",
    )
    layer = models.CharField(max_length=20, choices=LAYER_CHOICES)
    operation = models.CharField(max_length=10)
    measured = models.FloatField(help_text="MB/s (10^6 bytes/s) or IOPS")
    unit = models.CharField(max_length=10)
    expected = models.FloatField(null=True, blank=True, help_text="file system: the ceiling")
    efficiency = models.FloatField(null=True, blank=True)
    peer_median = models.FloatField(null=True, blank=True)
    is_outlier = models.BooleanField(default=False)
    over_ceiling = models.BooleanField(default=False)
    tool = models.CharField(max_length=30)
    tool_version = models.CharField(max_length=60, blank=True)
    source = models.CharField(max_length=1000, help_text="the log's path as in the manifest")
    source_line = models.PositiveIntegerField(null=True, blank=True)
    printed = models.CharField(max_length=200, blank=True, help_text="the figure as the tool printed it")
    position = models.PositiveIntegerField(help_text="the export's order")

    class Meta:
        ordering = ["stack", "position"]
        indexes = [models.Index(fields=["stack", "layer", "operation"], name="stackmeasurement_layer")]

    def __str__(self) -> str:
        return f"{self.component or self.stack.file_system_name} {self.operation}: {self.measured:.6g} {self.unit}"
