"""List entries keep their run's exclusion reason and score verification, so list pages and the list API
render their rows from the entries alone.

The column is filled from the runs in one UPDATE ... FROM (PostgreSQL, and SQLite from 3.33 on).
"""

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
    ]
