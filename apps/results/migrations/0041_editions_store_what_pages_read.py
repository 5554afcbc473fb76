"""An edition's pages read a page of its entries, never all of them (issue 41).

An edition never changes once frozen, so what its pages read of every entry is stored on the edition when its
entries are written (Edition.record_entries): their count (the editions' index, the
API's editions, an edition's unfiltered page) and their file systems (the filter's suggestions). The data step
records them for the editions already stored.

And an index for every sort of an edition's page by a column its entries store (services.editions.edition_entries),
in the sort's exact order: the key (NULLS LAST, either direction), then rank, score (descending, NULLS LAST) and
id, one index per direction as for the live lists (migration 0019). Measured at 1M runs before: the frozen IO500
list sorted by bandwidth 48x /healthz, its awards (the best of three keys per list) 51x. A sort by the run's year
or flag or a ratio per storage server orders by a joined row's column, which no index of the entries holds.
"""

from django.db import migrations, models

#: Sort key (apps.results.models.list_columns) → the EditionEntry column or expression it orders by.
SORTED = {
    "rank": "rank",
    "score": "score",
    "bw": "score_bw",
    "md": "score_md",
    "institution": "institution_name",
    "system": "system_name",
    "vendor": "storage_vendor",
    "filesystem": "filesystem",
    "nodes": "client_nodes",
    "procs": "client_procs",
    "id": "run_id",
    "score_per_node": "(score / NULLIF(client_nodes, 0))",
    "bw_per_node": "(score_bw / NULLIF(client_nodes, 0))",
    "md_per_node": "(score_md / NULLIF(client_nodes, 0))",
}
#: The tie-breakers of every sort (the rank order), by the column they order by.
TIE_BREAKERS = {"rank": "rank{nulls}", "score": "score DESC{nulls}", "id": "id"}


def sort_indexes() -> list[tuple[str, str]]:
    """(name, columns) of the sort indexes, {nulls} standing for PostgreSQL's NULLS LAST. Sorted by the rank or
    the score, the tie-breaker on that column repeats the key, which PostgreSQL drops from the order: so does
    the index."""
    found = []
    for key, column in SORTED.items():
        ties = ", ".join(tie for name, tie in TIE_BREAKERS.items() if name != column)
        for suffix, direction in (("asc", ""), ("desc", " DESC")):
            found.append((f"editionentry_sort_{key}_{suffix}", f"edition_id, {column}{direction}{{nulls}}, {ties}"))
    return found


def _nulls(schema_editor) -> str:
    """SQLite cannot state NULLS LAST in an index (it orders NULLs first ascending, last descending)."""
    return " NULLS LAST" if schema_editor.connection.vendor == "postgresql" else ""


def create_sort_indexes(apps, schema_editor):
    nulls = _nulls(schema_editor)
    for name, columns in sort_indexes():
        schema_editor.execute(f"CREATE INDEX {name} ON results_editionentry ({columns.format(nulls=nulls)})")


def drop_sort_indexes(apps, schema_editor):
    for name, _ in sort_indexes():
        schema_editor.execute(f"DROP INDEX IF EXISTS {name}")


def record_entries(apps, schema_editor):
    """Each stored edition's entry count and file systems, as Edition.record_entries records them."""
    Edition = apps.get_model("results", "Edition")
    EditionEntry = apps.get_model("results", "EditionEntry")
    for pk in Edition.objects.values_list("pk", flat=True):
        entries = EditionEntry.objects.filter(edition_id=pk)
        Edition.objects.filter(pk=pk).update(
            entry_count=entries.count(),
            filesystems=list(entries.order_by("filesystem").values_list("filesystem", flat=True).distinct()),
        )


class Migration(migrations.Migration):
    dependencies = [("results", "0040_pages_read_a_page_not_the_table")]

    operations = [
        migrations.AddField(
            model_name="edition",
            name="entry_count",
            field=models.PositiveIntegerField(default=0, help_text="its entries, counted when they were written"),
        ),
        migrations.AddField(
            model_name="edition",
            name="filesystems",
            field=models.JSONField(
                blank=True,
                default=list,
                help_text="the file systems of its entries, sorted (the filter's suggestions)",
            ),
        ),
        migrations.RunPython(record_entries, migrations.RunPython.noop),
        migrations.RunPython(create_sort_indexes, drop_sort_indexes),
    ]
