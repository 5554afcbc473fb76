from django.contrib import admin

from apps.ingest.models import IngestJob


@admin.register(IngestJob)
class IngestJobAdmin(admin.ModelAdmin):
    list_display = ["pk", "upload", "status", "progress", "attempts", "created_at", "finished_at"]
    list_filter = ["status"]
    raw_id_fields = ["upload", "runs"]
    readonly_fields = ["created_at", "started_at", "finished_at"]
