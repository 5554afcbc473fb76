"""An index for every sort the list pages and the list API offer (ListEntryQuerySet.sort_listed), so a page
sorted by any column reads its 50 rows in order from an index instead of sorting the whole list.

A sort orders by its key (NULLs last, in either direction) and breaks ties by score (descending, NULLs last),
then run: every index ends with the same tie-breakers, or PostgreSQL still sorts each group of equal keys (at
1M runs, sorting the historic list by flagged runs sorted the 970,000 unflagged entries, 825 ms). One index per
direction: read backwards, an index reverses its tie-breakers and its NULLs too. Measured at 1M runs before
these indexes: the historic list sorted by institution 1,534 ms, by -procs 610 ms, by -score_per_node 631 ms.

The per-node and per-server sorts order by a ratio (apps.results.models.querysets.per_unit); their indexes are on the
same expression, which PostgreSQL and SQLite match against the query's ORDER BY. The id sort needs none: the run
is unique on a list, so it orders by run alone, from the (kind, run) unique index in either direction.

The bandwidth and metadata indexes of migration 0007 gain the tie-breakers and an ascending twin.
"""

from django.db import migrations

#: Sort key (apps.results.models.querysets.SORTS) → the column or expression it orders by, indexed in both directions.
SORTED = {
    "bw": "score_bw",
    "md": "score_md",
    "institution": "institution_name",
    "system": "system_name",
    "vendor": "storage_vendor",
    "filesystem": "filesystem",
    "procs": "client_procs",
    "year": "year",
    "flagged": "flagged",
    "score_per_node": "(score / NULLIF(client_nodes, 0))",
    "bw_per_node": "(score_bw / NULLIF(client_nodes, 0))",
    "md_per_node": "(score_md / NULLIF(client_nodes, 0))",
    "score_per_server": "(score / NULLIF(server_count, 0))",
    "bw_per_server": "(score_bw / NULLIF(server_count, 0))",
    "md_per_server": "(score_md / NULLIF(server_count, 0))",
}


def sort_indexes() -> list[tuple[str, str]]:
    """(name, columns) of the sort indexes, {nulls} standing for PostgreSQL's NULLS LAST.

    The score descending (rank) has listentry_order (migration 0007); ascending, its ties need only the run
    (the ORDER BY drops the repeated score), and node counts have migration 0017's indexes.
    """
    found = [("listentry_sort_score_asc", "kind, score{nulls}, run_id")]
    for key, column in SORTED.items():
        for suffix, direction in (("asc", ""), ("desc", " DESC")):
            found.append((f"listentry_sort_{key}_{suffix}",
                          f"kind, {column}{direction}{{nulls}}, score DESC{{nulls}}, run_id"))
    return found


#: Made by migration 0007 without tie-breakers; listentry_sort_bw_desc and listentry_sort_md_desc replace them.
REPLACED = {"listentry_bw": "kind, score_bw DESC{nulls}", "listentry_md": "kind, score_md DESC{nulls}"}


def _nulls(schema_editor) -> str:
    """SQLite cannot state NULLS LAST in an index (it orders NULLs first ascending, last descending)."""
    return " NULLS LAST" if schema_editor.connection.vendor == "postgresql" else ""


def create_sort_indexes(apps, schema_editor):
    nulls = _nulls(schema_editor)
    for name in REPLACED:
        schema_editor.execute(f"DROP INDEX IF EXISTS {name}")
    for name, columns in sort_indexes():
        schema_editor.execute(f"CREATE INDEX {name} ON results_listentry ({columns.format(nulls=nulls)})")


def drop_sort_indexes(apps, schema_editor):
    nulls = _nulls(schema_editor)
    for name, _ in sort_indexes():
        schema_editor.execute(f"DROP INDEX IF EXISTS {name}")
    for name, columns in REPLACED.items():
        schema_editor.execute(f"CREATE INDEX {name} ON results_listentry ({columns.format(nulls=nulls)})")


class Migration(migrations.Migration):
    dependencies = [("results", "0018_child_rows_ordered_by_run_id")]

    operations = [
        migrations.RunPython(create_sort_indexes, drop_sort_indexes),
        # Statistics of the ratio expressions (autovacuum may be off).
        migrations.RunSQL("ANALYZE results_listentry", migrations.RunSQL.noop),
    ]
