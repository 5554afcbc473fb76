"""load_demo: demo data for `make run`. Safe to run again.

- A few real IO500 submissions from fixtures/demo.
- A DNE scaling series from fixtures/dne-scaling-demo (a slice of a generated mdtest campaign, with its manifest),
  so that the "DNE scaling" page is not empty.
- A small IOR parameter study from fixtures/demo-ior-study for the "Studies" page.
- A generated system's history from fixtures/demo-history (24 submissions; two changes of client nodes move
  its IOR phases; see its README), so that its history page shows detected changes. The system is
  fictional, so the demo acts as its committee: its runs are reviewed as Fully Reproducible production runs and
  the Production lists are not empty.
- An edition "demo" frozen from the live lists (its awards page), and a saved custom list.
- A bottom-up benchmarking campaign from fixtures/demo-stack (the stack-sample campaign) as the stack "beacon".
- io500.org's published record (fixtures/io500-webpage-sql, a verbatim copy of the public webpage repository's SQL
  files) and fifteen more public submissions on its lists (fixtures/demo-published, SC18 to ISC21), so the published
  editions, their audit and the lists beside them show real systems linked to their raw files.

The full public archive loads with `manage.py ingest ../shared/io500-corpus` and `manage.py import_published
../shared/io500-webpage-sql` (README.md).
"""

from django.conf import settings
from django.core.management.base import BaseCommand

from apps.ingest.published.importer import import_published
from apps.ingest.tools.io500.pipeline import ingest_path
from apps.ingest.tools.ior.pipeline import ingest_ior_paths
from apps.ingest.tools.mdtest.pipeline import ingest_mdtest_paths
from apps.ingest.tools.stack.pipeline import ingest_paths as ingest_stack_paths
from apps.results.judgements.reproducibility import FULLY_REPRODUCIBLE
from apps.results.models import CustomList, Edition, Run, Stack
from apps.results.services.custom_lists import save_custom_list
from apps.results.services.editions import freeze_lists
from apps.results.services.review import review_run

DEMO_ROOT = settings.BASE_DIR / "fixtures" / "demo"
DNE_DEMO_ROOT = settings.BASE_DIR / "fixtures" / "dne-scaling-demo"
DNE_DEMO_SERIES = "DNE scaling demo (generated)"
DEMO_STUDY_ROOT = settings.BASE_DIR / "fixtures" / "demo-ior-study"
DEMO_STUDY_NAME = "IOR MPI-IO hints: CephFS vs Lustre"
DEMO_HISTORY_ROOT = settings.BASE_DIR / "fixtures" / "demo-history"
DEMO_HISTORY_INSTITUTION = "Demo Centre (generated)"
DEMO_EDITION = "demo"
DEMO_STACK_ROOT = settings.BASE_DIR / "fixtures" / "demo-stack"
DEMO_STACK = "beacon"
DEMO_PUBLISHED_ROOT = settings.BASE_DIR / "fixtures" / "demo-published"
PUBLISHED_RECORD_ROOT = settings.BASE_DIR / "fixtures" / "io500-webpage-sql"
DEMO_CUSTOM_LIST = ("Easy write balance", "sqrt(ior_easy_write * mdtest_easy_write)")


class Command(BaseCommand):
    help = (
        "Ingest the demo submissions in fixtures/demo (copied from the public IO500 archive) and the demo "
        "DNE scaling series in fixtures/dne-scaling-demo and the demo IOR study in fixtures/demo-ior-study, and "
        "io500.org's published record (fixtures/io500-webpage-sql) with public submissions on its lists."
    )

    def handle(self, *args, **options):
        summary = ingest_path(DEMO_ROOT)
        self.stdout.write(f"demo data: {len(summary.created)} runs created, {len(summary.unchanged)} already present")
        for failure in summary.failed:
            self.stderr.write(f"FAILED {failure}")
        scaling = ingest_mdtest_paths(
            [DNE_DEMO_ROOT], series_name=DNE_DEMO_SERIES, manifest=DNE_DEMO_ROOT / "manifest.csv"
        )
        self.stdout.write(f"demo scaling data: {scaling}")
        for problem in scaling.problems:
            self.stderr.write(f"FAILED {problem}")
        study = ingest_ior_paths(
            [DEMO_STUDY_ROOT],
            study_name=DEMO_STUDY_NAME,
            notes="MPI-IO hint sets 4-9 at 8 and 16 nodes, 3 repetitions each.",
        )
        self.stdout.write(f"demo study: {len(study.stored)} IOR logs stored, {len(study.unchanged)} already present")
        for failure in study.failed:
            self.stderr.write(f"FAILED {failure}")
        history = ingest_path(DEMO_HISTORY_ROOT)
        self.stdout.write(
            f"demo history: {len(history.created)} runs created, {len(history.unchanged)} already present"
        )
        for failure in history.failed:
            self.stderr.write(f"FAILED {failure}")
        self.stdout.write(f"demo committee: {self.review_generated_runs()} generated runs accepted as production runs")
        if not Edition.objects.filter(name=DEMO_EDITION).exists():
            frozen = freeze_lists(DEMO_EDITION, title="Demo edition", description="frozen by load_demo")
            self.stdout.write(f"demo edition: {len(frozen)} lists frozen")
        name, equation = DEMO_CUSTOM_LIST
        if not CustomList.objects.filter(name=name, equation=equation).exists():
            custom = save_custom_list(name, equation, base_list="full")
            self.stdout.write(f"demo custom list: {custom.get_absolute_url()}")
        if not Stack.objects.filter(name=DEMO_STACK).exists():
            stack = ingest_stack_paths([DEMO_STACK_ROOT], {"name": DEMO_STACK})
            stack.write_report(self.stdout, self.stderr)
        self.load_published_record()

    def load_published_record(self) -> None:
        """The public submissions on the published lists, then the record itself, which links its entries to every
        ingested submission-N folder (the demo's own ones too)."""
        published = ingest_path(DEMO_PUBLISHED_ROOT)
        self.stdout.write(
            f"demo published submissions: {len(published.created)} runs created, "
            f"{len(published.unchanged)} already present"
        )
        for failure in published.failed:
            self.stderr.write(f"FAILED {failure}")
        _, result = import_published(PUBLISHED_RECORD_ROOT)
        self.stdout.write(
            f"published record: {result.editions} lists, {result.entries} rows"
            + (" already stored" if result.unchanged else f", {result.linked} entries linked to demo runs")
        )

    def review_generated_runs(self) -> int:
        """Accept the fictional system's runs as the committee would: Fully Reproducible, production declaration
        accepted. Only runs not reviewed so yet; never a real submission."""
        runs = Run.objects.filter(system__institution__name=DEMO_HISTORY_INSTITUTION, production_accepted=False)
        for run in runs:
            review_run(
                run,
                by=None,
                status="accepted",
                level=FULLY_REPRODUCIBLE,
                production_accepted=True,
                note="load_demo: a generated system, reviewed by the demo committee",
            )
        return len(runs)
