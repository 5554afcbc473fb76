"""The same bytes are one upload per account and kind (issue #40), no longer one upload for everyone: another
account's copy is its own upload, and bytes sent as the wrong kind no longer block the right one. sha256 keeps an
index for the lookup."""

from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("results", "0030_filesystem_sort_indexes_carry_client_nodes"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AlterField(
            model_name="upload",
            name="sha256",
            field=models.CharField(db_index=True, max_length=64),
        ),
        migrations.AddConstraint(
            model_name="upload",
            constraint=models.UniqueConstraint(
                fields=("uploader", "kind", "sha256"), name="upload_unique_bytes_per_account_kind"
            ),
        ),
    ]
