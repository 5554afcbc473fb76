from django.contrib import admin
from django.db import transaction

from apps.results import models
from apps.results.editions import freeze_entries


class InstitutionAliasInline(admin.TabularInline):
    model = models.InstitutionAlias
    extra = 0
    exclude = ["key"]


@admin.register(models.Institution)
class InstitutionAdmin(admin.ModelAdmin):
    list_display = ["name", "country"]
    search_fields = ["name", "aliases__name"]
    inlines = [InstitutionAliasInline]


@admin.register(models.InstitutionAlias)
class InstitutionAliasAdmin(admin.ModelAdmin):
    list_display = ["name", "institution"]
    exclude = ["key"]


class SystemAliasInline(admin.TabularInline):
    model = models.SystemAlias
    extra = 0
    exclude = ["key"]


@admin.register(models.StorageSystem)
class StorageSystemAdmin(admin.ModelAdmin):
    list_display = ["name", "institution", "filesystem", "storage_vendor", "server_count"]
    list_filter = ["filesystem"]
    search_fields = ["name", "institution__name", "aliases__name"]
    inlines = [SystemAliasInline]


@admin.register(models.SystemAlias)
class SystemAliasAdmin(admin.ModelAdmin):
    list_display = ["institution_name", "name", "filesystem", "system"]
    exclude = ["key"]


@admin.register(models.Upload)
class UploadAdmin(admin.ModelAdmin):
    list_display = ["original_name", "kind", "sha256", "size", "uploader", "created_at"]
    list_filter = ["kind"]
    search_fields = ["original_name", "sha256"]


class LustrePatchInline(admin.TabularInline):
    model = models.LustrePatch
    extra = 0


@admin.register(models.LustreBuild)
class LustreBuildAdmin(admin.ModelAdmin):
    list_display = ["__str__", "server_version", "client_version", "base_commit"]
    inlines = [LustrePatchInline]


@admin.register(models.LustrePatch)
class LustrePatchAdmin(admin.ModelAdmin):
    list_display = ["commit", "ticket", "component", "status", "build"]


class PhaseInline(admin.TabularInline):
    model = models.PhaseResult
    extra = 0
    fields = ["name", "value", "unit", "seconds", "invalid", "source_file", "source_line"]


class AnomalyInline(admin.TabularInline):
    model = models.Anomaly
    extra = 0
    fields = ["rule", "severity", "phase", "message"]


@admin.register(models.Run)
class RunAdmin(admin.ModelAdmin):
    list_display = ["pk", "system", "kind", "era", "client_nodes", "score_total", "verification", "flagged"]
    list_filter = ["kind", "era", "verification", "valid", "flagged"]
    search_fields = ["system__name", "system__institution__name", "source_path", "content_hash"]
    raw_id_fields = ["system", "upload", "lustre_build"]
    inlines = [PhaseInline, AnomalyInline]


@admin.register(models.RunFile)
class RunFileAdmin(admin.ModelAdmin):
    list_display = ["name", "run"]
    raw_id_fields = ["run"]


@admin.register(models.PhaseResult)
class PhaseResultAdmin(admin.ModelAdmin):
    list_display = ["run", "name", "value", "unit", "seconds"]
    raw_id_fields = ["run"]


@admin.register(models.Tunable)
class TunableAdmin(admin.ModelAdmin):
    list_display = ["run", "parameter", "value", "scope"]
    list_filter = ["scope"]
    raw_id_fields = ["run"]


@admin.register(models.Striping)
class StripingAdmin(admin.ModelAdmin):
    list_display = ["run", "path_role", "stripe_count", "stripe_size", "overstriping", "dir_stripe_count"]
    raw_id_fields = ["run"]


@admin.register(models.Anomaly)
class AnomalyAdmin(admin.ModelAdmin):
    list_display = ["run", "rule", "severity", "phase"]
    list_filter = ["rule", "severity"]
    raw_id_fields = ["run"]


class EditionEntryInline(admin.TabularInline):
    model = models.EditionEntry
    extra = 0
    fields = ["rank", "institution_name", "system_name", "score", "run"]
    readonly_fields = fields
    can_delete = False


@admin.register(models.Edition)
class EditionAdmin(admin.ModelAdmin):
    """Adding an edition freezes the live list of its kind; afterwards only its title and description change."""

    list_display = ["name", "list_kind", "title", "frozen_at"]
    inlines = [EditionEntryInline]

    def get_readonly_fields(self, request, obj=None):
        return ["name", "list_kind", "frozen_at"] if obj else ["frozen_at"]

    def save_model(self, request, obj, form, change):
        with transaction.atomic():
            super().save_model(request, obj, form, change)
            if not change:
                freeze_entries(obj)


@admin.register(models.EditionEntry)
class EditionEntryAdmin(admin.ModelAdmin):
    list_display = ["edition", "rank", "system_name", "score"]
    raw_id_fields = ["run", "system"]


class ScalingPointInline(admin.TabularInline):
    model = models.ScalingPoint
    extra = 0
    fields = ["operation", "mdt_count", "tasks", "client_nodes", "mean", "source_file"]


@admin.register(models.ScalingSeries)
class ScalingSeriesAdmin(admin.ModelAdmin):
    list_display = ["name", "system", "created_at"]
    inlines = [ScalingPointInline]


@admin.register(models.ScalingPoint)
class ScalingPointAdmin(admin.ModelAdmin):
    list_display = ["series", "operation", "mdt_count", "tasks", "mean"]
    list_filter = ["operation", "striping"]
    raw_id_fields = ["series"]
