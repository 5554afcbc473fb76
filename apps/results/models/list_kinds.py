"""The list-kind registry: every ranked or historic list ioboard publishes, in one place.

A list kind is a membership rule over runs plus how it is shown. Model choices (Edition.list_kind,
ListEntry.kind), the maintained list entries (apps.results.services.list_entries), the URL converter of the
pages, the page titles and default sorts, the exports and the API routes all read this registry, so
adding a list is one `ListKind(...)` entry in LIST_KINDS plus its tests.

A kind's membership is stated as conditions over Run columns (not as code that reads rows) because
the same rule is applied two ways: to one storage system's runs when a run is written, and to the
whole run table in one INSERT ... SELECT when the entries are rebuilt after a bulk load.
"""

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time

from django.db.models import Expression, F, Q

from apps.results.models.visibility import PUBLIC_CONDITIONS

#: The conditions of an *eligible* run: an IO500 run, not excluded (the benchmark's verdict and the error-level
#: anomaly rules, `Run.derive_verdicts`), with a score. The partial indexes of the run table use them too.
ELIGIBLE_CONDITIONS = {"kind": "io500", "exclusion_reason": "", "score_total__isnull": False}
#: The committee's acceptance (apps.results.services.review): published archives ingested by the operator are accepted.
ACCEPTED_CONDITIONS = {"review_status": "accepted"}
#: Visible as ranked: eligible, accepted, and public (an embargoed run joins the lists at its release,
#: apps.results.models.visibility).
RANKED_CONDITIONS = {**ELIGIBLE_CONDITIONS, **ACCEPTED_CONDITIONS, **PUBLIC_CONDITIONS}


def eligible_condition(prefix: str = "") -> Q:
    """Runs that may be ranked, as a condition on the run reached through `prefix` (e.g. "run_after__")."""
    return Q(**{prefix + name: value for name, value in ELIGIBLE_CONDITIONS.items()})


def ranked_condition(prefix: str = "") -> Q:
    """Runs *visible as ranked*: eligible AND accepted by review AND not embargoed. The one definition every ranked
    list, custom list, API flag and filter, best score, change detection and change feed reads (`Run.is_ranked`
    says the same of one run)."""
    return Q(**{prefix + name: value for name, value in RANKED_CONDITIONS.items()})


def _holds(conditions: dict, run) -> bool:
    """Whether a run in memory meets conditions written as lookups ("field" or "field__isnull"): the conditions
    are the one definition, applied in SQL by the querysets and partial indexes and here to one run."""
    return all(_meets(run, lookup, wanted) for lookup, wanted in conditions.items())


def _meets(run, lookup: str, wanted) -> bool:
    name, _, operator = lookup.partition("__")
    value = getattr(run, name)
    if operator == "isnull":
        return (value is None) == wanted
    return value == wanted


def is_eligible(run) -> bool:
    """`eligible_condition()` of one run in memory (tests/results/models/test_visible_as_ranked.py keeps the
    two in step)."""
    return _holds(ELIGIBLE_CONDITIONS, run)


def is_ranked(run) -> bool:
    """`ranked_condition()` of one run in memory."""
    return _holds(RANKED_CONDITIONS, run)


#: Runs that may be ranked: valid, not excluded by an error-level anomaly, with a score.
ELIGIBLE = eligible_condition()


@dataclass(frozen=True)
class ListKind:
    """One published list.

    slug: the stored value and the URL segment (/lists/<slug>/, /api/v1/lists/<slug>/).
    members: which runs are on the list.
    ranked: which members get a rank (the others are listed without one, as on the historic list).
    best_per_system: keep only each storage system's best member (highest score, then first stored).
    rank_by: the run expression a list ranks by and stores as its entries' score (the IO500 score;
        a list ranked by an equation over the phases would give its own).
    """

    slug: str
    title: str
    description: str
    members: Q
    ranked: Q = field(default_factory=lambda: ELIGIBLE)
    best_per_system: bool = True
    rank_by: Expression = field(default_factory=lambda: F("score_total"))
    default_sort: str = "rank"
    #: Shown with frozen editions and in the edition choices ("IO500", "10-node challenge").
    short_title: str = ""
    #: Run and system pages show a run's place on this list.
    on_run_pages: bool = True
    #: "research" or "production" for the four lists the IO500 gives awards on (overall, bandwidth, metadata);
    #: citations of runs from lists of different tracks must not be compared.
    track: str = ""
    #: The list's name before the research/production split, said on its page.
    renamed_from: str = ""
    #: Keep the per-phase medians of this list (run pages compare a run's phases with them). A median over
    #: every run of a million-run list costs tens of seconds per refresh, so only lists a page shows keep one.
    keeps_medians: bool = False

    @property
    def label(self) -> str:
        return self.short_title or self.title


#: Ranked lists take only runs the committee accepted (apps.results.services.review); the historic list shows every run.
ACCEPTED = Q(**ACCEPTED_CONDITIONS)
#: The IO500 split its ranked list into a Research and a Production list at SC21 (November 2021): every valid
#: run before this date belongs to the research lists, as io500.org's "The Lists" says.
SPLIT_DATE = date(2021, 11, 1)
SPLIT_EDITION = "SC21"
#: A production run: after the split, at the highest reproducibility level, its production declaration accepted.
PRODUCTION = Q(
    run_timestamp__gte=datetime.combine(SPLIT_DATE, time(), tzinfo=UTC),
    reproducibility_level="fully_reproducible",
    production_accepted=True,
)
RANKED = ranked_condition()
#: Runs anybody may see: the historic list holds these only, so no list entry shows an embargoed run.
PUBLIC = Q(**PUBLIC_CONDITIONS)
TEN_NODES = Q(client_nodes=10)

LIST_KINDS: dict[str, ListKind] = {
    kind.slug: kind
    for kind in (
        # The slugs "io500" and "ten-node" are the URLs and stored editions of the lists before the split: the
        # IO500 list became the Research list, so those URLs keep working and show the research lists.
        ListKind(
            "io500",
            "Research list",
            "Each storage system's best accepted research run, ranked by total "
            "score; every valid run from before the split (SC21) is a research run.",
            members=RANKED & ~PRODUCTION,
            ranked=RANKED,
            short_title="Research",
            track="research",
            renamed_from="IO500 list",
            keeps_medians=True,
        ),
        ListKind(
            "ten-node",
            "10 client-node Research list",
            "Each storage system's best accepted research run among runs on exactly 10 client nodes.",
            members=RANKED & ~PRODUCTION & TEN_NODES,
            ranked=RANKED,
            short_title="10-node Research",
            track="research",
            renamed_from="10-node challenge",
        ),
        ListKind(
            "production",
            "Production list",
            "Each storage system's best accepted production run: highest reproducibility level, production "
            "declaration accepted by the committee.",
            members=RANKED & PRODUCTION,
            ranked=RANKED,
            short_title="Production",
            track="production",
            keeps_medians=True,
        ),
        ListKind(
            "ten-node-production",
            "10 client-node Production list",
            "Each storage system's best accepted production run among runs on exactly 10 client nodes.",
            members=RANKED & PRODUCTION & TEN_NODES,
            ranked=RANKED,
            short_title="10-node Production",
            track="production",
        ),
        ListKind(
            "full",
            "Full list",
            "Every accepted run valid under the rules in force, ranked by total score.",
            members=RANKED,
            ranked=RANKED,
            best_per_system=False,
            short_title="Full",
            on_run_pages=False,
        ),
        ListKind(
            "historic",
            "Historic list",
            "Every IO500 run. Runs kept off the ranked lists are marked, with the reason.",
            members=Q(kind="io500") & PUBLIC,
            ranked=RANKED,
            best_per_system=False,
            default_sort="-score",
            short_title="Historic",
            on_run_pages=False,
        ),
    )
}

#: The four ranked lists the IO500 gives awards on (overall, bandwidth, metadata each).
AWARD_LISTS = [kind.slug for kind in LIST_KINDS.values() if kind.track]

#: The list whose medians a run page compares its phases with, and the default of pages that show one list.
PRIMARY_LIST = "io500"
#: The list that holds every IO500 run: its maintained count is the count of IO500 runs (RunQuerySet.total).
EVERY_RUN_LIST = "historic"


class UnknownListKind(ValueError):
    pass


def list_kind(slug: str) -> ListKind:
    try:
        return LIST_KINDS[slug]
    except KeyError:
        raise UnknownListKind(f"unknown list kind {slug!r}; choose one of {', '.join(LIST_KINDS)}") from None


def list_kind_choices() -> list[tuple[str, str]]:
    """(slug, label) pairs for model and form choices."""
    return [(kind.slug, kind.label) for kind in LIST_KINDS.values()]


def url_pattern() -> str:
    """The regular expression of a list-kind URL segment."""
    return "|".join(LIST_KINDS)


#: The slugs alone, as one named choice set (the API schema's ListKindEnum).
LIST_KIND_SLUGS = tuple(LIST_KINDS)
