"""DNE scaling series and parameter studies, with their points."""

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models, transaction
from django.urls import reverse

from apps.results.judgements.scaling.study import DNE_AXES, DNE_UNIT, dne_study_name, study_point_fields
from apps.results.judgements.studies.analysis import DEFAULT_ALPHA, DEFAULT_MARGIN, compare
from apps.results.models.provenance import LustreBuild
from apps.results.models.systems import StorageSystem
from apps.results.models.uploads import Upload
from apps.results.models.visibility import owned_visible_condition


def stored_by_upload(related_name: str) -> models.ForeignKey:
    """A point's upload: its account owns the point (apps.results.services.ownership), and the point goes with
    the upload. None: the operator stored it from the command line."""
    return models.ForeignKey(
        Upload,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name=related_name,
        help_text="the upload that stored the point; none: the operator (results.ownership)",
    )


class ScalingSeries(models.Model):
    """A campaign of mdtest launches over MDT and client counts (a DNE scaling series)."""

    name = models.CharField(max_length=255, unique=True)
    system = models.ForeignKey(
        StorageSystem, null=True, blank=True, on_delete=models.SET_NULL, related_name="scaling_series"
    )
    lustre_build = models.ForeignKey(
        LustreBuild, null=True, blank=True, on_delete=models.SET_NULL, related_name="scaling_series"
    )
    upload = models.ForeignKey(Upload, null=True, blank=True, on_delete=models.SET_NULL, related_name="scaling_series")
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
        """The series read as a parameter study (``apps.results.judgements.scaling.study``): created on first need and
        then filled from every point stored so far, in one transaction; it shows the series' system and build."""
        study = Study.objects.filter(scaling_series=self).first()
        if study is None:
            with transaction.atomic():
                name = dne_study_name(self.name, self.pk, lambda name: Study.objects.filter(name=name).exists())
                study = Study.objects.create(
                    name=name,
                    scaling_series=self,
                    unit=DNE_UNIT,
                    axis_order=list(DNE_AXES),
                    system_id=self.system_id,
                    lustre_build_id=self.lustre_build_id,
                    upload_id=self.upload_id,
                    notes=self.notes,
                )
                study.store_scaling_points(self.points.all())
        else:
            mirrored = ("system_id", "lustre_build_id", "upload_id")
            if any(getattr(study, name) != getattr(self, name) for name in mirrored):
                for name in mirrored:
                    setattr(study, name, getattr(self, name))
                study.save(update_fields=[name.removesuffix("_id") for name in mirrored])
        return study

    @classmethod
    def with_counts(cls, reader):
        """Series with the size and MDT range `reader` sees (`points_seen_by`), for lists: one query however
        many series."""
        seen = owned_visible_condition(reader, "points__")
        return cls.objects.select_related("system__institution", "lustre_build").annotate(
            point_count=models.Count("points", filter=seen),
            log_count=models.Count("points__log_hash", filter=seen, distinct=True),
            min_mdt_count=models.Min("points__mdt_count", filter=seen),
            max_mdt_count=models.Max("points__mdt_count", filter=seen),
        )

    def points_seen_by(self, reader) -> models.QuerySet:
        """The points `reader` may see: those its account added by an upload still embargoed (to an edition not
        yet released) are its own and staff's only, even in a series published before."""
        return self.points.filter(owned_visible_condition(reader))


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
    files_per_dir = models.PositiveBigIntegerField(
        null=True, blank=True, help_text="the directory load: items per directory"
    )
    striping = models.CharField(max_length=15, choices=Striping.choices, default=Striping.UNKNOWN)
    unique_dir = models.BooleanField(default=False, help_text="mdtest -u: a directory per task")
    operation = models.CharField(max_length=30)
    max = models.DecimalField(
        max_digits=24, decimal_places=3, null=True, blank=True, help_text="ops/s, from the SUMMARY rate table"
    )
    min = models.DecimalField(max_digits=24, decimal_places=3, null=True, blank=True)
    mean = models.DecimalField(max_digits=24, decimal_places=3, null=True, blank=True)
    stddev = models.DecimalField(max_digits=24, decimal_places=3, null=True, blank=True)
    printed = models.JSONField(
        default=dict, blank=True, help_text="the strings of the point's rate, time and stonewall rows as printed"
    )
    time_max = models.DecimalField(
        max_digits=24,
        decimal_places=3,
        null=True,
        blank=True,
        help_text="seconds, from the SUMMARY time table (whatever its unit label)",
    )
    time_min = models.DecimalField(max_digits=24, decimal_places=3, null=True, blank=True)
    time_mean = models.DecimalField(max_digits=24, decimal_places=3, null=True, blank=True)
    time_stddev = models.DecimalField(max_digits=24, decimal_places=3, null=True, blank=True)
    iterations = models.PositiveIntegerField(null=True, blank=True)
    iteration_values = models.JSONField(
        default=list, blank=True, help_text="mdtest -v lines: [{iteration, seconds, rate}] as printed"
    )
    label = models.CharField(max_length=255, blank=True)
    source_file = models.CharField(max_length=1000)
    launch_index = models.PositiveIntegerField(default=0)
    block_index = models.PositiveIntegerField(default=0, help_text="the '<n> tasks' block of a -f/-l/-s launch")
    log_hash = models.CharField(max_length=64, db_index=True)
    upload = stored_by_upload(related_name="scaling_points")

    class Meta:
        ordering = ["series", "operation", "mdt_count", "tasks"]
        constraints = [
            models.UniqueConstraint(
                fields=["series", "log_hash", "launch_index", "block_index", "operation"],
                name="scalingpoint_unique_row",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.operation} @ {self.mdt_count} MDT, {self.tasks} tasks"


class Study(models.Model):
    """A parameter study: IOR runs over named axes (api, hints, nodes, file system...), compared for
    significance across their repetitions. See ``apps.results.judgements.studies.analysis``."""

    name = models.CharField(max_length=255, unique=True)
    system = models.ForeignKey(StorageSystem, null=True, blank=True, on_delete=models.SET_NULL, related_name="studies")
    filesystem = models.CharField(
        max_length=255, blank=True, help_text="file system under test, when the whole study has one"
    )
    lustre_build = models.ForeignKey(
        LustreBuild, null=True, blank=True, on_delete=models.SET_NULL, related_name="studies"
    )
    upload = models.ForeignKey(Upload, null=True, blank=True, on_delete=models.SET_NULL, related_name="studies")
    notes = models.TextField(blank=True)
    axis_order = models.JSONField(
        default=list,
        blank=True,
        help_text="axis names in the order ingest first met them: the manifest's columns, "
        "then the log's (PostgreSQL's jsonb does not keep a point's key order)",
    )
    unit = models.CharField(max_length=20, default="MiB/s", help_text="the unit of the points' values")
    margin = models.FloatField(
        default=DEFAULT_MARGIN,
        validators=[MinValueValidator(0.001), MaxValueValidator(1.0)],
        help_text="the smallest difference that matters, as a fraction (0.05 = 5 %): a significant difference "
        "smaller than this is not called different, and two configurations whose ratio's 90 % "
        "interval lies within [1/(1+margin), 1+margin] are called the same",
    )
    scaling_series = models.OneToOneField(
        ScalingSeries,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="study",
        help_text="the DNE scaling series this study is the parameter-study view of; its points are written "
        "from the series' points (apps.results.judgements.scaling.study), never ingested on their own",
    )
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
            for point, fields in zip(points, study_point_fields(points), strict=True)
        )

    @classmethod
    def with_counts(cls, reader):
        """Studies with the size `reader` sees (`points_seen_by`), for lists: one query however many studies."""
        seen = owned_visible_condition(reader, "points__")
        return cls.objects.select_related("system__institution").annotate(
            point_count=models.Count("points", filter=seen),
            log_count=models.Count("points__log_hash", filter=seen, distinct=True),
        )

    def points_seen_by(self, reader) -> models.QuerySet:
        """The points `reader` may see: those its account added by an upload still embargoed are its own and
        staff's only, even in a study published before."""
        return self.points.filter(owned_visible_condition(reader))


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
    upload = stored_by_upload(related_name="study_points")

    class Meta:
        ordering = ["study", "source", "test_index", "operation"]
        constraints = [
            models.UniqueConstraint(
                fields=["study", "log_hash", "test_index", "operation"], name="studypoint_unique_row"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.operation} {self.axes}"
