"""A run's related rows read in one query, on PostgreSQL (`RunQuerySet.with_related_rows`, which `with_details` and
the history page read through).

A run page, a comparison and the API's run detail read six relations of each run: its phases, tunables, striping,
files and anomalies, and its Lustre build's patches. Through `prefetch_related` that is one query per relation, and
Django builds and compiles each of them again on every request. Here the relations come in one statement, a UNION ALL
of one `JSONB_AGG(JSONB_BUILD_ARRAY(<the row's columns>) ORDER BY <the relation's order>)` per relation, written with
Django's own `JSONBAgg` and `JSONArray` and compiled once per process for each number of runs (`_statement`): at a
million runs the six relations of a run page cost about 4.4 ms through prefetch_related and 0.7 ms this way
(docs/performance.md, "The cold-path bound depends on the host"). Compiled on every request instead, as annotations
of the runs' own query, the statement cost more than the queries it replaced.

The rows are built as `Model.from_db` builds them (`Relation.attach`), and stored where `prefetch_related` stores
its rows: `run.phases.all()`, `run.lustre_build.patches.all()` and the rest read them without a query. PostgreSQL's
JSON keeps every float exactly (shortest round-trip digits); NaN and the infinities come back as strings, which
`FloatField.to_python` reads. SQLite (the embedded mode) keeps `prefetch_related`.

Three places reach inside Django: building a row without `Model.__init__` (`Relation.attach` says why), storing
the rows in the cache `prefetch_related` itself fills (`_prefetched_objects_cache`, and a queryset's
`_result_cache`), and setting the runs' queryset's iterable class (`_iterable_class`, as `values()` does). A spec
test reads runs both ways and compares every value of every row (tests/results/models/test_run_details.py).
"""

import json
from dataclasses import dataclass
from functools import cache, cached_property, lru_cache

from django.apps import apps
from django.contrib.postgres.aggregates import JSONBAgg
from django.db import connections
from django.db.models import F, Prefetch, Value
from django.db.models.base import ModelState
from django.db.models.functions import JSONArray
from django.db.models.query import ModelIterable

#: Stand-ins for the owners' ids while a statement is compiled (`_statement`): no row has a negative id.
_PLACEHOLDER_BASE = -(10**15)


@dataclass(frozen=True)
class Relation:
    """Rows of `model_name` whose foreign key `link` points at a run (`owner` "run") or at a run's Lustre build
    (`owner` "lustre_build"), read through the owner's reverse accessor `accessor`, sorted by `order` (the model's
    own ordering when empty), as `prefetch_related` would have read them. `fields` reads only those columns (and
    the id and link), the others deferred, as `.only()` would."""

    accessor: str
    model_name: str
    link: str = "run"
    owner: str = "run"
    order: tuple = ()
    fields: tuple = ()

    @property
    def model(self):
        return apps.get_model("results", self.model_name)

    @property
    def path(self) -> str:
        """The `prefetch_related` lookup from a run: "phases", "lustre_build__patches"."""
        return self.accessor if self.owner == "run" else f"{self.owner}__{self.accessor}"

    @cached_property
    def link_field(self):
        """The rows' foreign key to their owner."""
        return self.model._meta.get_field(self.link)

    @cached_property
    def columns(self) -> list:
        """The model's concrete fields this relation reads, in the model's order (worked out once: every run a page
        reads builds its rows with them)."""
        link = self.link_field.attname
        return [
            field
            for field in self.model._meta.concrete_fields
            if not self.fields or field.primary_key or field.attname == link or field.attname in self.fields
        ]

    def prefetch(self):
        """The same rows as a `prefetch_related` lookup (where they cannot be read in one query)."""
        if not (self.order or self.fields):
            return self.path
        rows = self.model.objects.all()
        if self.order:
            rows = rows.order_by(*self.order)
        if self.fields:
            rows = rows.only(*[field.attname for field in self.columns])
        return Prefetch(self.path, queryset=rows)

    def owner_of(self, run):
        return run if self.owner == "run" else getattr(run, self.owner)

    def grouped(self, position: int, owner_ids: list[int]):
        """(position, owner id, the owner's rows as a JSONB array of arrays of the model's concrete columns)."""
        model = self.model
        link = self.link_field.attname
        columns = JSONArray(*[F(field.attname) for field in self.columns])
        return (
            model._base_manager.filter(**{f"{link}__in": owner_ids})
            .order_by()
            .values(link)
            .annotate(
                rows_of_relation=Value(position),  # a name no model's field has ("position" is a phase's)
                rows=JSONBAgg(columns, order_by=self.order or tuple(model._meta.ordering)),
            )
            .values_list("rows_of_relation", link, "rows")
        )

    @cached_property
    def attnames(self) -> list[str]:
        return [field.attname for field in self.columns]

    def attach(self, owner, rows: list, database: str) -> None:
        """Build the rows as the ORM builds them and store them where `prefetch_related` would.

        Built as `Model.from_db` leaves an instance (its column values in `__dict__`, a deferred column absent,
        `_state` of a row read from `database`, the link back to its owner cached), without `Model.__init__`:
        its per-field walk and descriptor sets were most of a history page's reading (seven runs, 150 rows).
        `__init__` also sends `pre_init` and `post_init`; no receiver listens to these models
        (tests/results/models/test_run_details.py checks both)."""
        model, fields, attnames, link_cache = self.model, self.columns, self.attnames, self.link_field.cache_name
        built = []
        for row in rows:
            instance = model.__new__(model)
            state = instance._state = ModelState()
            state.adding, state.db = False, database
            values = [None if v is None else f.to_python(v) for f, v in zip(fields, row, strict=True)]
            instance.__dict__.update(zip(attnames, values, strict=True))
            state.fields_cache[link_cache] = owner  # the link back to the owner, as prefetch_related sets it
            built.append(instance)
        cached = getattr(owner, self.accessor).get_queryset()
        cached._result_cache = built
        cached._prefetch_done = True
        if not hasattr(owner, "_prefetched_objects_cache"):
            owner._prefetched_objects_cache = {}
        owner._prefetched_objects_cache[self.accessor] = cached


def reads_related_rows_in_one_query(database: str) -> bool:
    """Whether the database aggregates JSON as `Relation.grouped` writes it (PostgreSQL)."""
    return connections[database].vendor == "postgresql"


@lru_cache(maxsize=256)
def _statement(relations: tuple[Relation, ...], owners: tuple[int, ...], database: str) -> tuple[str, list]:
    """The SQL of every relation's rows for `owners[i]` ids of its owner kind, and its parameters with placeholders
    where the ids go: compiled once per number of ids, the rest of a statement never changes."""
    parts, placeholders = [], []
    for position, (relation, count) in enumerate(zip(relations, owners, strict=True)):
        ids = [_PLACEHOLDER_BASE - len(placeholders) - index for index in range(count)]
        placeholders += ids
        parts.append(relation.grouped(position, ids))
    union = parts[0].union(*parts[1:], all=True) if len(parts) > 1 else parts[0]
    sql, params = union.query.get_compiler(database).as_sql()
    return sql, list(params)


def load_related_rows(runs: list, relations: tuple[Relation, ...], database: str) -> None:
    """Read `relations` of `runs` in one query and store them on each run (or its Lustre build)."""
    owners_by_relation = []
    for relation in relations:
        owners = {}
        for run in runs:
            owner = relation.owner_of(run)
            if owner is not None:
                owners.setdefault(owner.pk, []).append(owner)
        owners_by_relation.append(owners)
    ids = [sorted(owners) for owners in owners_by_relation]
    if not any(ids):
        return
    sql, params = _statement(relations, tuple(len(found) for found in ids), database)
    actual = {_PLACEHOLDER_BASE - index: pk for index, pk in enumerate(pk for found in ids for pk in found)}
    found_rows: dict[tuple[int, int], list] = {}
    with connections[database].cursor() as cursor:
        cursor.execute(sql, [actual.get(param, param) if isinstance(param, int) else param for param in params])
        for position, owner_id, rows in cursor.fetchall():
            found_rows[position, owner_id] = json.loads(rows) if isinstance(rows, str) else rows
    for position, (relation, owners) in enumerate(zip(relations, owners_by_relation, strict=True)):
        for owner_id, instances in owners.items():
            for owner in instances:
                relation.attach(owner, found_rows.get((position, owner_id), []), database)


@cache
def runs_with_related_rows(relations: tuple[Relation, ...]) -> type[ModelIterable]:
    """The iterable class of a run queryset that reads `relations` with its runs, one query for all of them.

    An iterable class, because Django keeps a queryset's iterable class on every clone (`.get()`, `.in_bulk()`, a
    further `.filter()`), as `values()` keeps its own."""

    class RunsWithRelatedRows(ModelIterable):
        def __iter__(self):
            runs = list(super().__iter__())
            if runs:
                load_related_rows(runs, relations, self.queryset.db)
            yield from runs

    return RunsWithRelatedRows
