from django.apps import AppConfig


class IngestConfig(AppConfig):
    name = "apps.ingest"
    verbose_name = "Ingest"
