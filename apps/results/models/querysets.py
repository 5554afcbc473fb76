"""Querysets: runs, and the live lists read from their maintained entries.

A list page never ranks runs: membership, rank and the columns a list filters and sorts on are
kept in ListEntry rows, written in the same transaction as the run (apps.results.services.list_entries).
A page filters and sorts those rows on their own indexes, cuts a page of (run id, rank) keys and
then loads the page's runs; at a million runs the first page reads 50 index entries.

Filtering a list keeps the global rank. A reader who narrows the IO500 list to "Lustre, 10 to
100 nodes" still sees each system's place on the whole list (#3, #17, #40...), because that
place is what the list publishes; re-numbering the survivors 1, 2, 3 would invent ranks that no
list has. With stored ranks a filter is a plain WHERE, and sorting by any column never changes
the rank either.

Usage, the same for HTML pages, exports and the API::

    ListEntry.objects.listed("io500").filter_listed(filesystem="Lustre", nodes_min=10).sort_listed("-bw")
"""

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from itertools import islice

from django.apps import apps
from django.db import connections, models
from django.db.models import (
    Case,
    Count,
    F,
    IntegerField,
    OuterRef,
    Prefetch,
    Q,
    Subquery,
    Sum,
    Value,
    When,
    Window,
)
from django.db.models.functions import Coalesce, NullIf, RowNumber

from apps.results.models.list_columns import (
    COLUMNS_BY_KEY,
    CRITERIA_BY_PARAMETER,
    column_field,
    criteria_condition,
    sort_column,
)
from apps.results.models.list_kinds import (
    ACCEPTED_CONDITIONS,
    ELIGIBLE,
    EVERY_RUN_LIST,
    RANKED,
    list_kind,
    ranked_condition,
)
from apps.results.models.run_details import Relation
from apps.results.models.visibility import run_visible_condition

#: The run columns only a run's own page reads: its configuration, info and anomaly facts (JSON of kilobytes
#: each), its extended scores and the benchmark's reasons. Every view of many runs (lists, system pages, exports,
#: the API's run lists) defers them (`RunQuerySet.without_large_fields`).
LARGE_RUN_FIELDS = ("config", "info", "facts", "extended_scores", "invalid_reasons")

SEVERITY_ORDER = Case(When(severity="error", then=Value(0)), When(severity="warn", then=Value(1)), default=Value(2))
#: The order of a run's anomalies wherever they are listed: errors first, then warnings, then by rule.
BADGE_ORDER = (SEVERITY_ORDER, "rule", "pk")


def anomalies_in_order():
    """Anomalies errors first (BADGE_ORDER), as every list of a run's anomalies shows them."""
    return apps.get_model("results", "Anomaly").objects.order_by(*BADGE_ORDER)


def badges():
    """The anomalies a row of a list shows as badges: in order, without their evidence (JSON a row never reads)."""
    return anomalies_in_order().defer("evidence")


def per_unit(numerator: str, denominator: str):
    """``numerator / denominator`` in SQL, NULL where the denominator is 0 or unknown (score per node,
    per server): the live lists and the frozen editions annotate the same ratios."""
    return F(numerator) / NullIf(F(denominator), 0)


def normalised_scores(*, total: str, nodes: str, servers: str) -> dict:
    """The six per-node and per-server score annotations every list shows, for a model whose total score,
    client-node count and server count are the named fields (runs, list entries, edition entries)."""
    scores = {"score": total, "bw": "score_bw", "md": "score_md"}
    return {
        **{f"{name}_per_node": per_unit(field, nodes) for name, field in scores.items()},
        **{f"{name}_per_server": per_unit(field, servers) for name, field in scores.items()},
    }


#: True while a verb of apps.results.services.runs writes runs: only then may a run be saved, updated or deleted.
_run_writes_open: ContextVar[bool] = ContextVar("run_writes_open", default=False)


class RunWriteOutsideVerbs(RuntimeError):
    """A run was written without a verb of apps.results.services.runs, so nothing would bring the lists in line."""


@contextmanager
def run_writes_open() -> Iterator[None]:
    """Let the block write runs (apps.results.services.runs opens it around each verb, and nothing else should)."""
    token = _run_writes_open.set(True)
    try:
        yield
    finally:
        _run_writes_open.reset(token)


def check_run_write(what: str) -> None:
    """Refuse a write of runs outside a verb of apps.results.services.runs.

    Why at run time and not only a scan of the source: `x.save()`, `queryset.update()` and `bulk_create` say
    nothing of their model to a reader of the source, while here every ORM write of a run passes, whatever
    its spelling; the test suite, which exercises every writer, fails on the first one that bypasses the
    verbs (tests/results/services/test_explicit_writes.py checks each form).
    """
    if not _run_writes_open.get():
        raise RunWriteOutsideVerbs(
            f"{what} outside apps.results.services.runs: write runs through its verbs, "
            "which bring the list entries, custom lists and data version in line"
        )


class RunQuerySet(models.QuerySet):
    """Runs. Every write (update, delete, bulk create or update) goes through apps.results.services.runs."""

    def update(self, **kwargs):
        check_run_write("Run update()")
        return super().update(**kwargs)

    def delete(self):
        check_run_write("Run delete()")
        return super().delete()

    def bulk_create(self, *args, **kwargs):
        check_run_write("Run bulk_create()")
        return super().bulk_create(*args, **kwargs)

    def bulk_update(self, *args, **kwargs):
        check_run_write("Run bulk_update()")
        return super().bulk_update(*args, **kwargs)

    def io500(self):
        return self.filter(kind="io500")

    def visible_to(self, user):
        """The runs `user` may see (None: an anonymous reader): public runs, their own embargoed ones, all for
        staff (`apps.results.models.visibility`). Every surface reads runs through this."""
        return self.filter(run_visible_condition(user))

    def eligible(self):
        """Runs that may be ranked: valid, not excluded by an error-level anomaly, with a score."""
        return self.filter(ELIGIBLE)

    def ranked(self):
        """Runs visible as ranked: eligible and accepted by review (`list_kinds.ranked_condition`). What the API's
        `ranked` flag and filter, a system's best score and change detection read; lists read their entries."""
        return self.filter(RANKED)

    def of_owner_of(self, run):
        """Runs of the same owner as `run` (apps.results.services.ownership): the same upload or another of its
        account, or, for the operator's run (no upload), the operator's."""
        if run.upload_id is None:
            return self.filter(upload__isnull=True)
        uploader_id = run.upload.uploader_id
        same_account = Q(upload__uploader_id=uploader_id) if uploader_id else Q(pk__in=[])
        return self.filter(Q(upload=run.upload_id) | same_account)

    def without_pending_claims(self, reader=None):
        """Runs shown under their system's name: all but an upload's claim on a system of another owner that the
        committee has not accepted (`Run.system_claim`). Such a run is listed on the historic list (unranked) and
        on its own page only, so a fabricated run named after an existing system appears nowhere as that
        system's until accepted: not among the newest runs, the system's runs or the compare picker. Its
        uploader and staff (`reader`; None: nobody's claims) still find it under the system in the API."""
        if reader is not None and reader.is_authenticated and reader.is_staff:
            return self
        shown = Q(system_claim="") | Q(**ACCEPTED_CONDITIONS)
        if reader is not None and reader.is_authenticated:
            shown |= Q(upload__uploader=reader)
        return self.filter(shown)

    def with_normalised(self):
        """Scores per client node and per storage server (NULL where the count is unknown or zero)."""
        return self.annotate(
            **normalised_scores(total="score_total", nodes="client_nodes", servers="system__server_count")
        )

    def with_badges(self):
        """Each run's anomalies (without their evidence) in `run.badges`, errors first: one extra query."""
        return self.prefetch_related(Prefetch("anomalies", queryset=badges(), to_attr="badges"))

    def without_large_fields(self):
        """Runs without the columns only a run page reads (LARGE_RUN_FIELDS)."""
        return self.defer(*LARGE_RUN_FIELDS)

    def with_details(self, *, files: bool = True):
        """Everything a run page and diff_runs() read, in a constant number of queries (anomalies errors first).

        ``files=False`` leaves the files (their whole contents) to be read by whoever asks for them: for many
        runs held at once of which only a few are diffed (change detection).
        """
        return self.select_related("system__institution", "upload").with_related_rows(
            *[relation for relation in DETAIL_RELATIONS if files or relation.accessor != "files"]
        )

    def with_related_rows(self, *relations):
        """The runs' related rows of these `run_details.Relation`s, prefetched so that `run.phases.all()` and the
        rest run no query: one query per relation. A relation of the Lustre build (its patches) reads the build
        with the run."""
        runs = self.select_related("lustre_build") if any(r.owner == "lustre_build" for r in relations) else self
        return runs.prefetch_related(*[relation.prefetch() for relation in relations])

    def with_list_columns(self):
        return (
            self.select_related("system__institution", "lustre_build")
            .without_large_fields()
            .with_normalised()
            .with_badges()
        )

    def load_rows(self, keys) -> list:
        """The list rows of (pk, rank) keys, in the keys' order with their rank: two queries (rows, badges)."""
        keys = list(keys)
        found = self.model.objects.filter(pk__in=[pk for pk, _ in keys]).with_list_columns().in_bulk()
        rows = []
        for pk, rank in keys:
            row = found[pk]
            row.rank = rank
            rows.append(row)
        return rows

    def total(self) -> int:
        """How many runs there are, without counting a million rows: the historic list's maintained count
        holds every run (all are IO500 runs, Run.Kind)."""
        state = apps.get_model("results", "ListState").objects.filter(kind=EVERY_RUN_LIST).first()
        return state.entry_count if state else 0

    def phase_medians(self) -> dict[str, float]:
        """{phase name: median value} over these runs, in one query on any database.

        Each phase's values are numbered within the phase; the middle one (or the mean of the two
        middle ones) is the median. Integer division picks them: positions (n+1)/2 and (n+2)/2.
        """
        phases = self.model._meta.get_field("phases").related_model.objects
        middle = (
            phases.filter(run__in=self.values("pk"), value__isnull=False)
            .annotate(
                position_in_phase=Window(RowNumber(), partition_by=[F("name")], order_by=[F("value"), F("pk")]),
                phase_count=Window(Count("pk"), partition_by=[F("name")]),
            )
            .filter(Q(position_in_phase=(F("phase_count") + 1) / 2) | Q(position_in_phase=(F("phase_count") + 2) / 2))
        )
        found: dict[str, list[float]] = {}
        for name, value in middle.values_list("name", "value"):
            found.setdefault(name, []).append(value)
        return {name: sum(values) / len(values) for name, values in found.items()}


#: What `RunQuerySet.with_details` reads with each run.
DETAIL_RELATIONS = (
    Relation("phases", "PhaseResult"),
    Relation("tunables", "Tunable"),
    Relation("stripings", "Striping"),
    Relation("files", "RunFile"),
    Relation("anomalies", "Anomaly", order=BADGE_ORDER),
    Relation("patches", "LustrePatch", link="build", owner="lustre_build"),
)


class AnnotationQuerySet(models.QuerySet):
    def of_system(self, system_id: int):
        """One system's annotations in the model's order (by run: best score first). As `ChangeQuerySet.of_system`:
        the order's system part is constant within one system, and joining institution and system to sort by it
        cost 1.3 of the query's 1.4 ms to plan (PostgreSQL, 1M runs)."""
        return self.filter(system_id=system_id).order_by("-run__score_total", "run_id")


class ChangeQuerySet(models.QuerySet):
    def visible(self):
        """Changes between runs visible as ranked (both ends): what public pages, feeds, exports and the API show.
        Detection reads ranked runs only; this keeps a triaged change off them once a run of it is rejected or
        withdrawn (a triaged change outlives the detection that no longer finds it)."""
        return self.filter(ranked_condition("run_before__") & ranked_condition("run_after__"))

    def of_system(self, system_id: int):
        """One system's visible changes in the model's order (newest first, then by metric). The order's system
        part (institution, then system name) is the same for every change of one system, so it is left out: it
        joined both tables only to sort by constants, and planning those joins cost 1.5 of the query's 1.75 ms
        (PostgreSQL, 1M runs; docs/performance.md)."""
        return self.visible().filter(system_id=system_id).order_by("-run_after__run_timestamp", "metric")


class EditionEntryQuerySet(models.QuerySet):
    """Entries of frozen editions and of io500.org's published lists (apps.results.models.EditionEntry).

    Each order is total (its last key is the id), and says where NULLs go (an edition frozen here has no release
    date, an unranked entry no rank): where PostgreSQL puts them by default, which SQLite would put at the other
    end. After a restore, whose rows come back in another physical order, or on the other database, a page
    answers as before."""

    def in_display_order(self):
        """The order a run's or a system's entries are shown in (its page, the API's citations): the newest
        edition first (frozen, then released: undated first), then by edition name, list, rank (unranked last)
        and id."""
        return self.order_by(
            "-edition__frozen_at",
            F("edition__released_on").desc(nulls_first=True),
            "edition__name",
            "edition__list_kind",
            F("rank").asc(nulls_last=True),
            "pk",
        )

    def in_published_order(self):
        """The order of io500.org's published lists, row by row (the published entries' API, the audit): the
        newest release first (undated first), then by release name, list, rank (unranked last) and id."""
        return self.order_by(
            F("edition__released_on").desc(nulls_first=True),
            "edition__name",
            "edition__list_kind",
            F("rank").asc(nulls_last=True),
            "pk",
        )


class ListEntryQuerySet(models.QuerySet):
    """The maintained entries of the live lists (apps.results.models.ListEntry)."""

    def listed(self, kind: str):
        """The entries of list `kind` in list order (score, then run id), each with its current `rank`: a whole
        list (call it on ListEntry.objects; filter what it returns)."""
        return self._whole_list(kind)

    def _whole_list(self, kind: str):
        """List `kind`'s entries in list order with their rank. A filtered `self` would be silently widened to the
        whole list, so it is refused."""
        list_kind(kind)
        if self.query.where:
            raise TypeError("a whole list is read from ListEntry.objects; filter what listed() returns instead")
        return self.with_rank().filter(kind=kind).order_by(*LIST_ORDER)

    def with_rank(self):
        """rank = base_rank + the net shifts stored after it above its score (ListEntry's docstring).

        The subquery reads the few shift rows since the last settle, and only for the rows a page
        returns: PostgreSQL evaluates it after the LIMIT, and `cut` keeps an OFFSET from evaluating it for
        every row a later page skips.
        """
        shifts = (
            apps.get_model("results", "ListRankShift")
            .objects.filter(kind=OuterRef("kind"), pk__gt=OuterRef("shifts_after"), score__gt=OuterRef("score"))
            .order_by()
            .values("kind")
            .annotate(net=Sum("delta"))
            .values("net")
        )
        return self.annotate(
            rank=Case(
                When(base_rank__isnull=False, then=F("base_rank") + Coalesce(Subquery(shifts), Value(0))),
                default=None,
                output_field=IntegerField(),
            )
        )

    def with_normalised(self):
        """Scores per client node and per storage server (NULL where the count is unknown or zero)."""
        return self.annotate(**normalised_scores(total="score", nodes="client_nodes", servers="server_count"))

    def with_run_timestamp(self):
        """Each entry's run's `run_timestamp` (a list page names each run by its date; an entry keeps the year).

        A scalar subquery by primary key rather than a join: like the rank's, PostgreSQL evaluates it only for
        the rows a page returns, and it cannot change how the list's sort index is walked. It replaced a query of
        its own per page (the runs' dates by primary key)."""
        run_model = self.model._meta.get_field("run").related_model
        return self.annotate(
            run_timestamp=Subquery(
                run_model.objects.filter(pk=OuterRef("run_id")).order_by().values("run_timestamp")[:1]
            )
        )

    def filter_listed(self, **criteria):
        """Narrow a list without re-ranking it (ranks are stored) by the criteria of `list_columns.CRITERIA`
        (filesystem, institution, vendor, system (id), search, year, nodes_min, nodes_max, flagged, run (id)).
        Unset values are ignored."""
        return self.filter(criteria_condition(criteria))

    def sort_listed(self, key: str | None):
        """Order a list by a public sort key of `list_columns` ("score", "-bw"...), NULLs last, ties by score then
        run (each sort has an index in this order: migrations 0007, 0017 and 0019)."""
        column, descending = sort_column(key)
        if column is None:
            return self
        if column.sort_reversed:
            descending = not descending
        queryset = self.with_normalised() if column.normalised and column.key not in self.query.annotations else self
        expression = F(column.sort_field)
        if column.unique:
            return queryset.order_by(expression.desc() if descending else expression.asc())
        primary = expression.desc(nulls_last=True) if descending else expression.asc(nulls_last=True)
        return queryset.order_by(primary, F("score").desc(nulls_last=True), "run_id")

    def ranked_keys(self):
        """(run id, rank) of the listed entries, in list order: what a page is cut from."""
        return self.values_list("run_id", "rank")

    def cut(self, start: int, stop: int):
        """Rows `start` to `stop` of this ordered view, as `self[start:stop]` gives them.

        Past the first page the page's runs are found first, from the sort index alone, and only their rows are
        then read: with a plain OFFSET, PostgreSQL computes the select list of every row it skips, the rank's
        subquery included (`with_rank`), so the cost grows with the page number.

        The page's run ids are read in a query of their own, not as an `IN (subquery)`: on statistics that
        call the entry table empty, PostgreSQL planned that as a nested loop re-running the LIMIT subquery for
        every entry of the list (quadratic in the list; the figures are in docs/performance.md).
        """
        if not start:
            return self[start:stop]
        page = list(self.values_list("run_id", flat=True)[start:stop])
        return self.filter(run_id__in=page)

    def page_keys(self, kind: str, criteria: Mapping, sort: str | None):
        """The (run id, rank) keys of a list page view, counted as `page_entries` counts them."""
        entries = self.page_entries(kind, criteria, sort)
        return CountedKeys(entries.keys.ranked_keys(), entries.count(), capped=entries.capped)

    def page_entries(self, kind: str, criteria: Mapping, sort: str | None, state=None):
        """The entries of a list page view, with their rank, normalised scores and run timestamp, and a count
        that never scans a whole list. A page renders from these rows alone (plus its runs' badges, `load_listed`):
        loading the page's 50 wide run rows and their systems was half of a list page's time.

        Unfiltered, the count is the list's maintained one. Filtered, counting is stopped at
        COUNT_CAP + 1 matches: a reader pages through the first COUNT_CAP rows and is told there are
        more, and a broad filter on a million-entry list costs a bounded scan instead of a full one.

        The capped count is unordered. Ordered by the list (as it was), PostgreSQL walked the list's order
        index past every non-match or, once the bulk paths VACUUM the entries (apps.results.services.bulk.vacuum),
        read every match from an index and sorted them. Unordered, with the pages all-visible, it reads the
        matches from the filter's own index alone. The risk of the unordered form is a sequential scan
        through other lists first (their entries are stored together); PostgreSQL costs the index-only path
        below it on all-visible pages. The measurements are in docs/performance.md.

        `state`: the list's ListState, when the caller has read it already (for its file systems).

        A text filter on a column in INDEXED_TEXT (a vendor that contains "ddn", the file system "lustre" in any
        case) becomes "column IN (the list's values that match it, compared upper-cased)": a LIKE '%DDN%' cannot
        use an index. The values come from skipping through the column's sort index (`_distinct_values`), and
        the count then reads the matching entries from that same index alone. Compared as UPPER(column) IN
        (...) or UPPER(column) = ... instead, PostgreSQL walked the (kind, column) sort index past every other
        value's entries for the same count (an UPPER() condition is only a filter on that index).
        """
        indexed = {name: value for name, value in criteria.items() if name in INDEXED_TEXT and value}
        entries = (
            self._whole_list(kind)
            .with_normalised()
            .with_run_timestamp()
            .filter_listed(**{n: v for n, v in criteria.items() if n not in indexed})
        )
        for name, needle in indexed.items():
            column, matches = INDEXED_TEXT[name]
            wanted = str(needle).upper()
            values = [value for value in self._distinct_values(kind, column) if matches(value.upper(), wanted)]
            entries = entries.filter(**{f"{column}__in": values})
        keys = entries.sort_listed(sort)
        if criteria_condition(criteria):
            return capped_count(keys, entries)
        if state is None:
            state = apps.get_model("results", "ListState").objects.filter(kind=kind).first()
        return CountedKeys(keys, state.entry_count if state else 0)

    def _distinct_values(self, kind: str, column: str) -> list[str]:
        """The distinct values of `column` on list `kind`, one index probe each (a "loose index scan" through the
        column's ascending sort index, migration 0019), never a read of the list's entries."""
        connection = connections[self.db]  # the replica's, when the router sends this read there
        table, column = self.model._meta.db_table, connection.ops.quote_name(column)
        with connection.cursor() as cursor:
            cursor.execute(
                f"""WITH RECURSIVE found(value) AS (
                        SELECT * FROM (SELECT {column} FROM {table} WHERE kind = %s
                                       ORDER BY {column} LIMIT 1) AS first
                        UNION ALL
                        SELECT (SELECT {column} FROM {table} WHERE kind = %s AND {column} > found.value
                                ORDER BY {column} LIMIT 1)
                        FROM found WHERE found.value IS NOT NULL)
                    SELECT value FROM found WHERE value IS NOT NULL""",
                [kind, kind],
            )
            return [value for (value,) in cursor.fetchall()]

    def placement(self, **criteria) -> Mapping[int, int | None]:
        """{run id: rank} of the entries that match the criteria: one query."""
        return dict(self.filter_listed(**criteria).ranked_keys())

    def runs(self, chunk_size: int = 1000) -> Iterator:
        """The listed runs in list order, with their rank and list columns, loaded a chunk at a time."""
        keys = self.ranked_keys().iterator(chunk_size=chunk_size)
        run_model = self.model._meta.get_field("run").related_model
        while chunk := list(islice(keys, chunk_size)):
            yield from run_model.objects.load_rows(chunk)


#: The order of a live list: score, best first, then run id (ListEntryQuerySet.listed).
LIST_ORDER = (F("score").desc(nulls_last=True), "run_id")


def entries_with_rank():
    """Every list entry with its current `rank` (`ListEntryQuerySet.with_rank`): filter it. What the run, system and
    front pages read their places from."""
    return apps.get_model("results", "ListEntry").objects.with_rank()


def load_listed(entries) -> list:
    """A page of list entries with their runs' anomaly badges (`badges`, as RunQuerySet.with_badges gives
    them): two queries, neither of which reads a run row."""
    entries = list(entries)
    by_run: dict[int, list] = {}
    for anomaly in badges().filter(run_id__in=[entry.run_id for entry in entries]):
        by_run.setdefault(anomaly.run_id, []).append(anomaly)
    for entry in entries:
        entry.badges = by_run.get(entry.run_id, [])
    return entries


#: How a stored value matches a text criterion's value, both upper-cased, by the criterion's lookup.
_TEXT_MATCHES = {"icontains": str.__contains__, "iexact": str.__eq__}
#: Text criteria on a column with a (kind, column) sort index → that ListEntry column and how a value matches
#: (ListEntryQuerySet.page_entries).
INDEXED_TEXT = {
    name: (column_field(COLUMNS_BY_KEY[criterion.columns[0]]), _TEXT_MATCHES[criterion.lookup])
    for name, criterion in CRITERIA_BY_PARAMETER.items()
    if name in ("vendor", "filesystem")
}

#: A filtered list is counted up to this many matches (ListEntryQuerySet.page_keys): 40 pages of 50 rows.
#: Counting stops there because the count of a broad filter is the one read that grows with the list.
COUNT_CAP = 2000


def capped_count(keys, matches) -> "CountedKeys":
    """`keys` counted by `matches` up to COUNT_CAP + 1 rows, unordered: the count of a broad filter costs a bounded
    read at any size of the data; past COUNT_CAP, the keys are `capped`."""
    found = matches.order_by().values("pk")[: COUNT_CAP + 1].count()
    return CountedKeys(keys, min(found, COUNT_CAP), capped=found > COUNT_CAP)


class CountedKeys:
    """Keys whose count is known already (maintained, or capped): paginators slice them and never COUNT.

    `capped`: there are more rows than `count`; pages stop at `count`.
    """

    def __init__(self, keys, count: int, capped: bool = False):
        self.keys = keys
        self._count = count
        self.capped = capped

    def count(self) -> int:
        return self._count

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, index):
        if isinstance(index, slice) and isinstance(self.keys, ListEntryQuerySet):
            return self.keys.cut(index.start or 0, index.stop)
        return self.keys[index]
