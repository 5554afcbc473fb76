"""The historic list's order as an index, on PostgreSQL.

The historic list reads runs by score, highest first, NULLs last: an index in exactly that order
lets a page stop after its own rows (page 20 at 100k runs: a sequential scan and a sort of the
whole table, 201 ms, becomes 6.7 ms). Django's Index cannot spell NULLS LAST portably (SQLite has
no such index clause), so it is created here for PostgreSQL only; SQLite sorts, as it always has.
"""

from django.db import migrations

CREATE = "CREATE INDEX IF NOT EXISTS run_historic_order ON results_run (score_total DESC NULLS LAST, id) " \
         "WHERE kind = 'io500'"
DROP = "DROP INDEX IF EXISTS run_historic_order"


def create_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE)


def drop_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP)


class Migration(migrations.Migration):

    dependencies = [
        ("results", "0004_run_list_indexes"),
    ]

    operations = [
        migrations.RunPython(create_index, drop_index),
    ]
