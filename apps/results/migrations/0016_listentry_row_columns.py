"""List entries keep their run's exclusion reason and score verification, so list pages and the list API
render their rows from the entries alone; and indexes on their upper-cased file system and vendor, whose
statistics let PostgreSQL estimate the lists' text filters (see ListEntry.Meta).

The column is filled from the runs in one UPDATE ... FROM (PostgreSQL, and SQLite from 3.33 on).
"""

import django.db.models.functions.text
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("results", "0015_listentry_year_nodes_index")]

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
        # Statistics of the new index expressions, and of the rewritten rows (autovacuum may be off).
        migrations.RunSQL("ANALYZE results_listentry", migrations.RunSQL.noop),
    ]
