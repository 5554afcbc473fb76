"""List entries keep their run's exclusion reason and score verification, so list pages and the list API
render their rows from the entries alone; and indexes on their upper-cased file system and vendor, whose
statistics let PostgreSQL estimate the lists' text filters (see ListEntry.Meta).

The node-count indexes gain the sort's tie-breakers (score DESC NULLS LAST, run): with the node count
alone, a page sorted by nodes had to read and sort every entry of its first node count (at 1M runs, the
6,635 single-node runs of 2020 on the historic list, 10 ms) before its first row, and sorted by nodes
descending (the first click on the column) it sorted the whole list (622 ms on the historic list).

The column is filled from the runs in one UPDATE ... FROM (PostgreSQL, and SQLite from 3.33 on).
"""

import django.db.models.functions.text
from django.db import migrations, models


#: (name, columns) of the node-count indexes, {nulls} standing for PostgreSQL's NULLS LAST. One per direction:
#: both directions put unknown node counts last and break ties by score, which one index read backwards cannot.
NODE_ORDER_INDEXES = [
    ("listentry_nodes_order", "kind, client_nodes{nulls}, score DESC{nulls}, run_id"),
    ("listentry_nodes_desc", "kind, client_nodes DESC{nulls}, score DESC{nulls}, run_id"),
    ("listentry_year_nodes_order", "kind, year, client_nodes{nulls}, score DESC{nulls}, run_id"),
    ("listentry_year_nodes_desc", "kind, year, client_nodes DESC{nulls}, score DESC{nulls}, run_id"),
]


def create_node_order_indexes(apps, schema_editor):
    """SQLite cannot state NULLS LAST in an index (it orders NULLs first ascending, last descending)."""
    nulls = " NULLS LAST" if schema_editor.connection.vendor == "postgresql" else ""
    for name, columns in NODE_ORDER_INDEXES:
        schema_editor.execute(f"CREATE INDEX {name} ON results_listentry ({columns.format(nulls=nulls)})")


def drop_node_order_indexes(apps, schema_editor):
    for name, _ in NODE_ORDER_INDEXES:
        schema_editor.execute(f"DROP INDEX IF EXISTS {name}")


class Migration(migrations.Migration):
    dependencies = [("results", "0016_custom_list_entries_rules_editions")]

    operations = [
        migrations.AddField(
            model_name="listentry",
            name="exclusion_reason",
            field=models.TextField(blank=True, default="",
                                   help_text="why the run is kept off ranked lists (historic list)"),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="listentry",
            name="verification",
            field=models.CharField(blank=True, default="", max_length=20,
                                   help_text="of the run's score (cited placements)"),
            preserve_default=False,
        ),
        migrations.RunSQL(
            """UPDATE results_listentry SET exclusion_reason = run.exclusion_reason, verification = run.verification
               FROM results_run AS run WHERE results_listentry.run_id = run.id""",
            migrations.RunSQL.noop,
        ),
        migrations.AddIndex(
            model_name="listentry",
            index=models.Index(models.F("kind"), django.db.models.functions.text.Upper("filesystem"),
                               name="listentry_filesystem"),
        ),
        migrations.AddIndex(
            model_name="listentry",
            index=models.Index(models.F("kind"), django.db.models.functions.text.Upper("storage_vendor"),
                               name="listentry_vendor"),
        ),
        migrations.RemoveIndex(model_name="listentry", name="listentry_nodes"),
        migrations.RemoveIndex(model_name="listentry", name="listentry_year_nodes"),
        migrations.RunPython(create_node_order_indexes, drop_node_order_indexes),
        # Statistics of the new index expressions, and of the rewritten rows (autovacuum may be off).
        migrations.RunSQL("ANALYZE results_listentry", migrations.RunSQL.noop),
    ]
