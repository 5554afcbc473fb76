"""What a run's page shows, part by part: the run and its checks, where it is placed, what the committee found,
its configuration and charts. The view fetches the run; `RunPage` reads the rest, each part from one query or
from what the run's queryset prefetched (tests/leaderboard/runs/test_run_page.py holds the page to a fixed number).
"""

from apps.leaderboard.runs import charts
from apps.results.judgements.diff import flatten
from apps.results.judgements.submission_rules import rules_edition_of_date
from apps.results.models import ListState, Run, Stack
from apps.results.models.list_kinds import LIST_KINDS, PRIMARY_LIST, ListKind
from apps.results.models.querysets import entries_with_rank
from apps.results.services.citations import citations_from
from apps.results.services.published import published_placements
from apps.results.services.review import clause_outcomes, reproducibility_report


def _score_checks(run) -> list[dict]:
    """Computed against reported score; "agrees" is the run's print-precision rule (Run.score_agreement)."""
    agreement = run.score_agreement()
    checks = []
    for label, component, computed, reported in (
        ("Score", "total", run.score_total, run.reported_total),
        ("Bandwidth (GiB/s)", "bw", run.score_bw, run.reported_bw),
        ("Metadata (kIOPS)", "md", run.score_md, run.reported_md),
    ):
        percent = 100 * (computed / reported - 1) if computed is not None and reported else None
        checks.append(
            {
                "label": label,
                "computed": computed,
                "reported": reported,
                "percent": percent,
                "agrees": agreement.get(component, False),
            }
        )
    return checks


def _medians_list(run, placements) -> ListKind:
    """The list whose per-phase medians a run's phases are drawn against: one of its own track (a production run
    against production runs), keeping medians (ListKind.keeps_medians). The track is that of the run's first ranked
    placement, else production when the committee accepted its production declaration, else research."""
    track = next(
        (kind.track for kind, rank in placements if rank and kind.track),
        "production" if run.production_accepted else "research",
    )
    return next(
        (kind for kind in LIST_KINDS.values() if kind.track == track and kind.keeps_medians), LIST_KINDS[PRIMARY_LIST]
    )


class RunPage:
    """A run's page: `context()` is the template's context, built from the parts read here once."""

    def __init__(self, run: Run, *, staff: bool):
        self.run = run
        self.staff = staff
        self.phases = list(run.phases.all())
        self.ranks = {kind: rank for kind, rank in entries_with_rank().filter(run=run).values_list("kind", "rank")}
        self.placements = [(kind, self.ranks.get(kind.slug)) for kind in LIST_KINDS.values() if kind.on_run_pages]
        self.medians_list = _medians_list(run, self.placements)
        self.statistics = ListState.objects.filter(kind=self.medians_list.slug).first()
        self.edition_placements = list(run.edition_entries.select_related("edition").in_display_order())
        self.rules_edition, self.outcomes = clause_outcomes(run)
        self.stack = Stack.of_system(run.system_id)
        self.anomalies = list(run.anomalies.all())

    def context(self) -> dict:
        return {
            "run": self.run,
            "system": self.run.system,
            "phases": self.phases,
            "score_checks": _score_checks(self.run),
            **self.placement_parts(),
            **self.review_parts(),
            **self.detail_parts(),
            **self.chart_parts(),
            **self.stack_parts(),
        }

    def placement_parts(self) -> dict:
        """Where the run stands: its live lists' ranks, its frozen editions, where io500.org published it, and how
        to cite it."""
        return {
            "placements": self.placements,
            "ranked_placements": [(kind, rank) for kind, rank in self.placements if rank],
            "edition_entries": [entry for entry in self.edition_placements if not entry.edition.is_published],
            "published_placements": published_placements(self.run, self.edition_placements),
            "citations": citations_from(self.run, self.edition_placements, self.ranks),
        }

    def review_parts(self) -> dict:
        """What the rules and the committee say: anomalies, the rules' clauses, reproducibility."""
        run = self.run
        return {
            "list_edition": rules_edition_of_date(run.run_timestamp.date().isoformat()) if run.run_timestamp else None,
            "warnings": [anomaly for anomaly in self.anomalies if anomaly.severity == "warn"],
            "errors": [anomaly for anomaly in self.anomalies if anomaly.severity == "error"],
            "edition": self.rules_edition,
            "clause_outcomes": self.outcomes,
            "reproducibility": reproducibility_report(run, staff=self.staff),
        }

    def detail_parts(self) -> dict:
        """The run's configuration and system information, flattened to sorted (key, value) rows."""
        return {
            "config": sorted(flatten(self.run.config or {}).items()),
            "info_fields": sorted(flatten(self.run.info or {}).items()),
        }

    def chart_parts(self) -> dict:
        """The phases against the medians of the run's own track's list, and each rank's runtimes."""
        statistics = self.statistics
        return {
            "medians_list": self.medians_list,
            "statistics": statistics,
            "chart": charts.phases_against_median(
                self.phases, statistics.phase_medians if statistics else {}, self.medians_list.title
            ),
            "rank_charts": [(stats, charts.rank_runtimes(stats)) for stats in self.run.rank_stats.all()],
        }

    def stack_parts(self) -> dict:
        """The stack of the run's system, if one was measured, and how near its ceilings the run came."""
        return {
            "stack": self.stack,
            "hardware_efficiency": self.stack.run_efficiency(self.phases) if self.stack else [],
        }
