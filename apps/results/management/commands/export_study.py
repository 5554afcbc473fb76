"""export_study: print a parameter study, its points and the pairwise comparisons as JSON."""

from django.core.management.base import BaseCommand, CommandError

from apps.results.judgements.scaling.export import exact_json
from apps.results.judgements.studies.analysis import DEFAULT_ALPHA
from apps.results.judgements.studies.export import study_document
from apps.results.models import Study


class Command(BaseCommand):
    help = (
        "Print a parameter study: every point (max/min/mean/stddev and per-iteration MiB/s as IOR printed "
        "them, its axes and source) and, for every pair of values of every varying axis with the other "
        "independent axes fixed, Welch's t-test on the jobs (one log = one job; Holm-corrected p-value), "
        "the ratio with its 95 % interval, the jobs a side and the verdict (different, same, inconclusive, "
        "not_testable) with the study's margin."
    )

    def add_arguments(self, parser):
        parser.add_argument("name", help="the study name given to ingest --study")
        parser.add_argument("--format", choices=["json"], default="json")
        parser.add_argument(
            "--alpha",
            type=float,
            default=DEFAULT_ALPHA,
            help="family-wise error rate of each comparison group (default 0.05)",
        )

    def handle(self, *args, **options):
        study = Study.objects.filter(name=options["name"]).first()
        if study is None:
            known = ", ".join(Study.objects.values_list("name", flat=True)[:20]) or "none yet"
            raise CommandError(f"no study named {options['name']!r} (known: {known})")
        points = study.ordered_points(study.points.order_by("source", "test_index", "operation", "pk"))
        self.stdout.write(exact_json(study_document(study.name, points, alpha=options["alpha"], margin=study.margin)))
