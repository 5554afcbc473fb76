"""export_scaling: print a DNE scaling series, its points and the saturation analysis (JSON or CSV)."""

from django.core.management.base import BaseCommand, CommandError

from apps.results.judgements.scaling.analysis import (
    DEFAULT_DECLINE_TOLERANCE,
    DEFAULT_SATURATION_THRESHOLD,
    DEFAULT_VARIATION_THRESHOLD,
    analyse_points,
)
from apps.results.judgements.scaling.export import POINT_FIELDS, TIME_FIELDS, exact_json, series_document
from apps.results.models import ScalingSeries
from apps.results.services.export import FormulaSafeWriter


class Command(BaseCommand):
    help = (
        "Print a DNE scaling series: every point (rates in ops/s as printed by mdtest, the time table in "
        "separate fields) and the saturation MDT count per operation, files per directory and striping."
    )

    def add_arguments(self, parser):
        parser.add_argument("name", help="the series name given to ingest --series")
        parser.add_argument("--format", choices=["json", "csv"], default="json")
        parser.add_argument(
            "--saturation-threshold",
            type=float,
            default=DEFAULT_SATURATION_THRESHOLD,
            help="the next MDT count must gain at least this fraction (default 0.10)",
        )
        parser.add_argument("--decline-tolerance", type=float, default=DEFAULT_DECLINE_TOLERANCE)
        parser.add_argument("--variation-threshold", type=float, default=DEFAULT_VARIATION_THRESHOLD)

    def handle(self, *args, **options):
        series = ScalingSeries.objects.filter(name=options["name"]).first()
        if series is None:
            known = ", ".join(ScalingSeries.objects.values_list("name", flat=True)[:20]) or "none yet"
            raise CommandError(f"no DNE scaling series named {options['name']!r} (known: {known})")
        points = list(series.points.order_by("operation", "files_per_dir", "striping", "mdt_count", "tasks", "pk"))
        if options["format"] == "csv":
            self.write_csv(points)
            return
        analysis = analyse_points(
            points,
            saturation_threshold=options["saturation_threshold"],
            decline_tolerance=options["decline_tolerance"],
            variation_threshold=options["variation_threshold"],
        )
        self.stdout.write(exact_json(series_document(series.name, points, analysis)))

    def write_csv(self, points):
        columns = [*POINT_FIELDS, "source", *TIME_FIELDS, "unique_dir", "label", "launch", "block"]
        writer = FormulaSafeWriter(self.stdout, lineterminator="\n")
        writer.writerow(columns)
        for point in points:
            values = {
                **{name: getattr(point, name) for name in (*POINT_FIELDS, *TIME_FIELDS)},
                "source": point.source_file,
                "unique_dir": point.unique_dir,
                "label": point.label,
                "launch": point.launch_index,
                "block": point.block_index,
            }
            writer.writerow(["" if values[name] is None else values[name] for name in columns])
