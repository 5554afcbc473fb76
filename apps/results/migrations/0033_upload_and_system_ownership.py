"""Who wrote what (issue #40): the same bytes are one upload per account and kind, no longer one upload for everyone
(another account's copy is its own upload, and bytes sent as the wrong kind no longer block the right one; sha256
keeps an index for the lookup); a storage system records the upload that described it (vendor, server count), so
the operator's description replaces an account's and an account's goes with its upload."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('results', '0032_run_kind_without_mdtest'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='storagesystem',
            name='described_by',
            field=models.ForeignKey(blank=True, help_text="the upload whose metadata gave the storage vendor and server count (None: the operator's, or none); the operator's replace an account's, and they go with its upload (apps.results.services.ownership)", null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='results.upload'),
        ),
        migrations.AlterField(
            model_name='upload',
            name='sha256',
            field=models.CharField(db_index=True, max_length=64),
        ),
        migrations.AddConstraint(
            model_name='upload',
            constraint=models.UniqueConstraint(fields=('uploader', 'kind', 'sha256'), name='upload_unique_bytes_per_account_kind'),
        ),
    ]
