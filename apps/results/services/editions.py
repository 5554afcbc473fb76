"""Editions: a live list frozen under a name ("ISC19"), its membership, ranks and scores copied.

An edition never changes after it is frozen: the entries hold copies of the numbers, not
references to them, so a later re-scoring or re-ingest of a run moves the live lists but not the
edition. The entry keeps a link to its run and system for navigation only (SET_NULL on delete).

Editions are made with `manage.py freeze_edition NAME --list io500`, `POST /api/v1/editions/freeze/`, or in the admin
by adding an Edition: all through `freeze()`. Freezing an edition releases the uploads submitted to it
(apps.results.services.embargo) before its lists are copied.
"""

from itertools import islice

from django.core.exceptions import ValidationError
from django.core.validators import validate_slug
from django.db import transaction
from django.db.models import F, Prefetch
from django.utils import timezone

from apps.results.models import Edition, EditionEntry, ListEntry, RulesEdition
from apps.results.models.list_columns import LIST_COLUMNS, column_field, criteria_condition, sort_column
from apps.results.models.list_kinds import LIST_KINDS
from apps.results.models.querysets import (
    LARGE_RUN_FIELDS,
    CountedKeys,
    badges,
    capped_count,
    normalised_scores,
)
from apps.results.services.embargo import release_edition
from apps.results.services.freshness import bump_data_version_on_commit
from apps.results.services.list_entries import BULK_RUNS, analyze
from apps.results.services.review import rules_edition_on


class EditionError(Exception):
    """An edition cannot be frozen (it exists already, or its name or list is not valid)."""


def freeze_edition(
    name: str, list_kind: str, title: str = "", description: str = "", rules_edition: RulesEdition | None = None
) -> Edition:
    """Create edition `name` of the list `list_kind` from the live list, in one transaction, under the rules
    edition given or else the one in force today."""
    return freeze(
        Edition(name=name, list_kind=list_kind, title=title, description=description, rules_edition=rules_edition)
    )


def freeze(edition: Edition) -> Edition:
    """Save the unsaved `edition` (its name, list kind, title, description, and a rules edition or none) frozen
    from the live list, in one transaction: first the release of the uploads submitted to its name, so the
    frozen list holds their runs; without a rules edition, under the one in force today. The one way an edition
    is made (the command, the API and the admin), so none of them freezes without releasing."""
    name, list_kind = edition.name, edition.list_kind
    try:
        validate_slug(name)
    except ValidationError as exc:
        raise EditionError(f"{name!r} is not a valid edition name: letters, digits, - and _ only") from exc
    if list_kind not in LIST_KINDS:
        raise EditionError(f"unknown list {list_kind!r}; choose one of {', '.join(LIST_KINDS)}")
    with transaction.atomic():
        if Edition.objects.filter(name=name, list_kind=list_kind).exists():
            raise EditionError(f"edition {name} of the {list_kind} list exists already; editions never change")
        release_edition(name)  # the release: the runs submitted to it are public and on the list it freezes
        if edition.rules_edition is None:
            edition.rules_edition = rules_edition_on(timezone.localdate())
        edition.save()
        freeze_entries(edition)
    return edition


def freeze_lists(
    name: str,
    list_kinds: list[str] | None = None,
    title: str = "",
    description: str = "",
    rules_edition: RulesEdition | None = None,
) -> list[Edition]:
    """Freeze edition `name` of every list kind (or of `list_kinds`): all of them, or none. The historic list is
    frozen too, as the IO500 publishes a historical list with every edition."""
    kinds = list_kinds or list(LIST_KINDS)
    with transaction.atomic():
        return [
            freeze_edition(name, kind, title=title, description=description, rules_edition=rules_edition)
            for kind in kinds
        ]


def freeze_entries(edition: Edition, chunk_size: int = 1000) -> int:
    """Copy the live list of the edition's kind into its entries, a chunk at a time (the historic list holds
    every run); an edition is frozen only once."""
    copied = frozen_copies()
    frozen = 0
    with transaction.atomic():
        if edition.entries.exists():
            raise EditionError(f"edition {edition} is frozen already; editions never change")
        rows = ListEntry.objects.listed(edition.list_kind).values_list(*copied.values()).iterator(chunk_size)
        while chunk := list(islice(rows, chunk_size)):
            EditionEntry.objects.bulk_create(
                EditionEntry(edition=edition, **dict(zip(copied, row, strict=True))) for row in chunk
            )
            frozen += len(chunk)
        edition.record_entries()
        if frozen >= BULK_RUNS:
            # A bulk write, planned on statistics gathered now (list_entries.analyze_after_bulk_write): with none,
            # PostgreSQL guesses fifty rows an edition and sorts a 125,000-entry one for each page (77 ms at 1M
            # runs) instead of reading its first fifty from the sort's index.
            analyze(EditionEntry)
        bump_data_version_on_commit()
    return frozen


def frozen_copies() -> dict[str, str]:
    """{EditionEntry field: the ListEntry field it copies}: every list column an edition stores (`list_columns`;
    the year and the anomaly flag are read from the run, the ratios computed), and the reason a run is kept off."""
    stored = {field.attname for field in EditionEntry._meta.concrete_fields}
    return {
        **{column.edition_field: column.entry_field for column in LIST_COLUMNS if column.edition_field in stored},
        "exclusion_reason": "exclusion_reason",
    }


def edition_page_entries(edition: Edition, criteria: dict, sort: str | None) -> CountedKeys:
    """The ids of the entries of an edition's page view, in its order (`ordered_entries`), counted without reading
    them all: unfiltered, by the edition's stored count; filtered, up to COUNT_CAP matches, as a live list's
    filters are counted. A page loads its rows by id (`load_entries`).

    The ids are read from the entries alone: sorted without an index (a filter the sort's index does not serve,
    or a column of a joined row), PostgreSQL joined every matching entry to its run and system before the sort
    (at 1M runs, 56,000 Lustre entries of the frozen IO500 list: 2.2 s); now it sorts narrow rows and joins 50."""
    keys = ordered_entries(edition, criteria, sort).values_list("pk", flat=True)
    condition = criteria_condition(criteria, frozen=True)
    if not condition:
        return CountedKeys(keys, edition.entry_count)
    return capped_count(keys, EditionEntry.objects.filter(edition=edition).filter(condition))


def load_entries(pks) -> list[EditionEntry]:
    """The entries of ids `pks` in that order, as `edition_entries` gives them: two queries (rows, badges)."""
    pks = list(pks)
    found = with_list_columns(EditionEntry.objects.filter(pk__in=pks).order_by()).in_bulk()
    return [found[pk] for pk in pks]


def edition_entries(edition: Edition, criteria: dict | None = None, sort: str | None = None):
    """An edition's entries with the live lists' columns, filters and sort keys (`list_columns`, over the frozen
    fields); badges are the run's current ones."""
    return with_list_columns(ordered_entries(edition, criteria, sort))


def with_list_columns(entries):
    """Entries with what a list row shows beyond their own columns: their run and system, the run's badges."""
    return (
        entries.select_related("run", "system")
        .defer(*[f"run__{name}" for name in LARGE_RUN_FIELDS])
        .prefetch_related(Prefetch("run__anomalies", queryset=badges(), to_attr="badges"))
        .annotate(**normalised_scores(total="score", nodes="client_nodes", servers="system__server_count"))
    )


def ordered_entries(edition: Edition, criteria: dict | None = None, sort: str | None = None):
    """An edition's entries narrowed by the criteria and in the order of the sort key (the rank order without one).
    Sorted by a column the entries store, they are read in order from the sort's index (migration 0041)."""
    entries = EditionEntry.objects.filter(edition=edition).filter(criteria_condition(criteria or {}, frozen=True))
    column, descending = sort_column(sort)
    rank_order = [F("rank").asc(nulls_last=True), F("score").desc(nulls_last=True), "pk"]
    if column is None:
        return entries.order_by(*rank_order)
    if column.normalised:
        ratios = normalised_scores(total="score", nodes="client_nodes", servers="system__server_count")
        entries = entries.annotate(**{column.key: ratios[column.key]})
    expression = F(column_field(column, frozen=True))
    return entries.order_by(
        expression.desc(nulls_last=True) if descending else expression.asc(nulls_last=True), *rank_order
    )
