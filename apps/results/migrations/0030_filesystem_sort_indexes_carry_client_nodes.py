"""The file system sort indexes (migration 0019) carry each entry's client node count (PostgreSQL's INCLUDE), so a
list page filtered by file system and client nodes counts its matches from that index alone.

The page turns the file system filter into "filesystem IN (the list's spellings)" (ListEntryQuerySet.page_entries),
which these indexes answer; without the node count in them, counting the Lustre entries on 10+ nodes read each
match's heap row too. A separate (kind, filesystem, client_nodes) index would count as well, but would also offer
PostgreSQL the file system order: on small or stale estimates it chose that index and an incremental sort over
each file system's entries for a page sorted by file system, instead of reading the sort index in order.

An included column is stored in the index's leaf entries and takes no part in its order, so the sorts are as
before. SQLite has no INCLUDE: its indexes stay as migration 0019 made them.
"""

from django.db import migrations

SORT_INDEXES = {
    "listentry_sort_filesystem_asc": "kind, filesystem NULLS LAST, score DESC NULLS LAST, run_id",
    "listentry_sort_filesystem_desc": "kind, filesystem DESC NULLS LAST, score DESC NULLS LAST, run_id",
}


def _recreate(schema_editor, include: str) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    for name, columns in SORT_INDEXES.items():
        schema_editor.execute(f"DROP INDEX IF EXISTS {name}")
        schema_editor.execute(f"CREATE INDEX {name} ON results_listentry ({columns}){include}")


def carry_client_nodes(apps, schema_editor):
    _recreate(schema_editor, " INCLUDE (client_nodes)")


def carry_nothing(apps, schema_editor):
    _recreate(schema_editor, "")


class Migration(migrations.Migration):
    dependencies = [("results", "0029_upload_kind_from_tool_registry")]

    operations = [migrations.RunPython(carry_client_nodes, carry_nothing)]
