"""Bulk loads: build a table's indexes and check its foreign keys once after the load, not row by row.

Used by `seed_synthetic` (runs and their children) and by `list_entries.rebuild` of every list (a
million runs make two million entries): on PostgreSQL, inserting into a table with a dozen indexes
cost most of a rebuild, and building each index from the loaded table once is far cheaper.
"""

from contextlib import contextmanager

from django.db import connection


@contextmanager
def checked_afterwards(*models_to_load):
    """On PostgreSQL, drop the tables' non-unique indexes and foreign keys for the load, add them after it.

    Building an index from sorted data once is far cheaper than a million random insertions into
    it (a run has indexes on two random hashes). Django's foreign keys are deferred: each loaded row
    queued a trigger that probed its parent at commit, twelve million probes for a million runs'
    phases (about a fifth of the load); added back, each key is validated by one join instead.
    Unique indexes stay, so a clash still fails at once.

    Only outside a transaction: inside one, the dropped indexes would stay locked away from readers
    until its end, and PostgreSQL refuses to drop a foreign key with checks still pending.
    """
    if connection.vendor != "postgresql" or connection.in_atomic_block:
        yield
        return
    tables = [model._meta.db_table for model in models_to_load]
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT tab.relname, con.conname, pg_get_constraintdef(con.oid) FROM pg_constraint con
               JOIN pg_class tab ON tab.oid = con.conrelid WHERE tab.relname = ANY(%s) AND con.contype = 'f'""",
            [tables],
        )
        keys = cursor.fetchall()
        cursor.execute(
            """SELECT index.relname, pg_get_indexdef(index.oid) FROM pg_index
               JOIN pg_class index ON index.oid = pg_index.indexrelid
               JOIN pg_class tab ON tab.oid = pg_index.indrelid
               WHERE tab.relname = ANY(%s) AND NOT pg_index.indisunique AND NOT pg_index.indisprimary""",
            [tables],
        )
        indexes = cursor.fetchall()
        for table, name, _ in keys:
            cursor.execute(f"ALTER TABLE {quote(table)} DROP CONSTRAINT {quote(name)}")
        for name, _ in indexes:
            cursor.execute(f"DROP INDEX {quote(name)}")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            for _, definition in indexes:
                cursor.execute(definition)
            for table, name, definition in keys:
                cursor.execute(f"ALTER TABLE {quote(table)} ADD CONSTRAINT {quote(name)} {definition}")


def vacuum(*models) -> None:
    """VACUUM freshly loaded tables (PostgreSQL, outside a transaction): their pages become all-visible, so
    index-only scans need not visit the rows, which with autovacuum off would otherwise never happen."""
    if connection.vendor != "postgresql" or connection.in_atomic_block:
        return
    with connection.cursor() as cursor:
        for model in models:
            cursor.execute(f"VACUUM {connection.ops.quote_name(model._meta.db_table)}")
