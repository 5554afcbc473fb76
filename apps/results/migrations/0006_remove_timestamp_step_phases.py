"""Remove the C app's ``timestamp`` step from the stored phases.

Runs ingested before the parser learnt better stored result.txt's ``[timestamp]`` section (the
summary's ``[      ] timestamp 0.000000 kIOPS`` line) as an unscored phase, and the run and
compare pages and their charts showed it as 0 kIOPS. The step measures nothing (it notes when the
write phases ended, find's reference time), so its rows go; the parser no longer produces them.
Irreversible on purpose: nothing would be gained by putting the rows back.
"""

from django.db import migrations


def delete_timestamp_steps(apps, schema_editor):
    PhaseResult = apps.get_model("results", "PhaseResult")
    PhaseResult.objects.filter(name="timestamp", score_group="none").delete()


class Migration(migrations.Migration):
    dependencies = [("results", "0005_run_historic_order")]

    operations = [migrations.RunPython(delete_timestamp_steps, migrations.RunPython.noop)]
