"""load_demo: demo data for `make run`. Safe to run again.

A few real IO500 submissions from fixtures/demo, and a DNE scaling series from fixtures/dne-scaling-demo
(a slice of a generated mdtest campaign, with its manifest) so that the "DNE scaling" page is not empty,
and a small IOR parameter study from fixtures/demo-ior-study for the "Studies" page.
"""

from django.conf import settings
from django.core.management.base import BaseCommand

from apps.ingest.pipelines.io500 import ingest_path
from apps.ingest.pipelines.ior import ingest_ior_paths
from apps.ingest.pipelines.mdtest import ingest_mdtest_paths

DEMO_ROOT = settings.BASE_DIR / "fixtures" / "demo"
DNE_DEMO_ROOT = settings.BASE_DIR / "fixtures" / "dne-scaling-demo"
DNE_DEMO_SERIES = "DNE scaling demo (generated)"
DEMO_STUDY_ROOT = settings.BASE_DIR / "fixtures" / "demo-ior-study"
DEMO_STUDY_NAME = "IOR MPI-IO hints: CephFS vs Lustre"


class Command(BaseCommand):
    help = ("Ingest the demo submissions in fixtures/demo (copied from the public IO500 archive) and the demo "
            "DNE scaling series in fixtures/dne-scaling-demo and the demo IOR study in fixtures/demo-ior-study.")

    def handle(self, *args, **options):
        summary = ingest_path(DEMO_ROOT)
        self.stdout.write(f"demo data: {len(summary.created)} runs created, {len(summary.unchanged)} already present")
        for failure in summary.failed:
            self.stderr.write(f"FAILED {failure}")
        scaling = ingest_mdtest_paths([DNE_DEMO_ROOT], series_name=DNE_DEMO_SERIES,
                                      manifest=DNE_DEMO_ROOT / "manifest.csv")
        self.stdout.write(f"demo scaling data: {scaling}")
        for problem in scaling.problems:
            self.stderr.write(f"FAILED {problem}")
        study = ingest_ior_paths([DEMO_STUDY_ROOT], study_name=DEMO_STUDY_NAME,
                                 notes="MPI-IO hint sets 4-9 at 8 and 16 nodes, 3 repetitions each.")
        self.stdout.write(f"demo study: {len(study.stored)} IOR logs stored, {len(study.unchanged)} already present")
        for failure in study.failed:
            self.stderr.write(f"FAILED {failure}")
