from django import forms
from django.contrib import admin
from django.utils.html import format_html, format_html_join

from apps.results import models
from apps.results.judgements.reproducibility import (
    LEVELS,
    SECTIONS,
    TARGET_LISTS,
    QuestionnaireError,
    clean_reproducibility,
)
from apps.results.services import ownership, runs
from apps.results.services.changes.history import schedule_change_detection, triage
from apps.results.services.editions import freeze
from apps.results.services.freshness import bump_data_version_on_commit
from apps.results.services.review import (
    ReviewError,
    check_decisions,
    clause_outcomes,
    reproducibility_report,
    review_run,
)

REVIEW_FIELDS = ["review_status", "reproducibility_level", "production_accepted"]


class RunReviewFormBase(forms.ModelForm):
    """The run with its questionnaire as one field per section (stored as Run.reproducibility)."""

    target_level = forms.ChoiceField(choices=[("", "—"), *LEVELS.items()], required=False)
    target_list = forms.ChoiceField(choices=[("", "—"), *((name, name) for name in TARGET_LISTS)], required=False)
    production_applications = forms.BooleanField(
        required=False, label="Declared: runs production applications on a regular, frequent and ongoing basis"
    )
    no_single_point_of_failure = forms.BooleanField(required=False, label="Declared: no single point of failure")
    production_description = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), required=False)
    acknowledged_rules = forms.BooleanField(required=False, label="Submitter acknowledged the rules")
    acknowledged_publication = forms.BooleanField(required=False, label="Submitter acknowledged publication")

    class Meta:
        model = models.Run
        fields = REVIEW_FIELDS  # the admin adds the run's other fields; `reproducibility` is built from the sections

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        data = self.instance.reproducibility or {}
        for name in SECTIONS:
            answer = (data.get("questionnaire") or {}).get(name, "")
            self.initial[f"section_{name}"] = "\n".join(answer.values()) if isinstance(answer, dict) else answer
        production = data.get("production") or {}
        acknowledgements = data.get("acknowledgements") or {}
        self.initial.update(
            target_level=data.get("target_level", ""),
            target_list=data.get("target_list", ""),
            production_applications=production.get("production_applications", False),
            no_single_point_of_failure=production.get("no_single_point_of_failure", False),
            production_description=production.get("description", ""),
            acknowledged_rules=acknowledgements.get("rules", False),
            acknowledged_publication=acknowledgements.get("publication", False),
        )

    def clean(self):
        cleaned = super().clean()
        existing = (self.instance.reproducibility or {}).get("questionnaire") or {}
        questionnaire = {}
        for name in SECTIONS:
            text = cleaned.get(f"section_{name}", "")
            previous = existing.get(name)
            if isinstance(previous, dict) and "\n".join(previous.values()) == text:
                questionnaire[name] = previous  # unchanged structured answer (keeps `obtainable`)
            elif text:
                questionnaire[name] = text
        try:
            self.reproducibility = clean_reproducibility(
                {
                    "questionnaire": questionnaire,
                    "target_level": cleaned.get("target_level"),
                    "target_list": cleaned.get("target_list"),
                    "production": {
                        "production_applications": cleaned.get("production_applications", False),
                        "no_single_point_of_failure": cleaned.get("no_single_point_of_failure", False),
                        "description": cleaned.get("production_description", ""),
                    },
                    "acknowledgements": {
                        "rules": cleaned.get("acknowledged_rules", False),
                        "publication": cleaned.get("acknowledged_publication", False),
                    },
                }
            )
        except QuestionnaireError as error:
            raise forms.ValidationError(str(error)) from error
        decisions = {name: cleaned.get(name) for name in REVIEW_FIELDS if name in self.changed_data}
        try:  # the committee's decisions are checked as review_run checks them, against the answers as saved
            check_decisions(
                self.reproducibility,
                status=decisions.get("review_status"),
                level=decisions.get("reproducibility_level"),
                production_accepted=decisions.get("production_accepted"),
            )
        except ReviewError as error:
            raise forms.ValidationError(str(error)) from error
        return cleaned

    def save(self, commit=True):
        self.instance.reproducibility = self.reproducibility
        return super().save(commit)


#: One declared text field per questionnaire section, so the admin lays them out with the run's own fields.
RunReviewForm = type(
    "RunReviewForm",
    (RunReviewFormBase,),
    {
        f"section_{name}": forms.CharField(label=title, required=False, widget=forms.Textarea(attrs={"rows": 2}))
        for name, title in SECTIONS.items()
    },
)


class ResultsAdmin(admin.ModelAdmin):
    """Every save or delete in the admin can change what pages show: it bumps the data version, on commit (no
    signal does it). Runs, systems and institutions are written through apps.results.services.runs, which also brings
    their list entries in line."""

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        bump_data_version_on_commit()

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        bump_data_version_on_commit()

    def delete_model(self, request, obj):
        super().delete_model(request, obj)
        bump_data_version_on_commit()

    def delete_queryset(self, request, queryset):
        super().delete_queryset(request, queryset)
        bump_data_version_on_commit()


class ReviewNoteInline(admin.TabularInline):
    model = models.ReviewNote
    extra = 1
    fields = ["text", "for_submitter", "status", "author", "created_at"]
    readonly_fields = ["author", "created_at"]


class ReviewCheckInline(admin.TabularInline):
    model = models.ReviewCheck
    extra = 0
    fields = ["rules_edition", "item", "passed", "note", "checked_by", "checked_at"]
    readonly_fields = ["checked_by", "checked_at"]


class InstitutionAliasInline(admin.TabularInline):
    model = models.InstitutionAlias
    extra = 0
    exclude = ["key"]


@admin.register(models.Institution)
class InstitutionAdmin(ResultsAdmin):
    list_display = ["name", "country"]
    search_fields = ["name", "aliases__name"]
    inlines = [InstitutionAliasInline]

    def save_model(self, request, obj, form, change):
        runs.edit_institution(obj)  # a renamed institution is renamed on its systems' list entries


@admin.register(models.InstitutionAlias)
class InstitutionAliasAdmin(ResultsAdmin):
    list_display = ["name", "institution"]
    exclude = ["key"]


class SystemAliasInline(admin.TabularInline):
    model = models.SystemAlias
    extra = 0
    exclude = ["key"]


@admin.register(models.StorageSystem)
class StorageSystemAdmin(ResultsAdmin):
    list_display = ["name", "institution", "filesystem", "storage_vendor", "server_count"]
    list_filter = ["filesystem"]
    search_fields = ["name", "institution__name", "aliases__name"]
    inlines = [SystemAliasInline]

    def save_model(self, request, obj, form, change):
        runs.edit_system(obj)  # a renamed system is renamed on its runs' list entries


@admin.register(models.SystemAlias)
class SystemAliasAdmin(ResultsAdmin):
    list_display = ["institution_name", "name", "filesystem", "system"]
    exclude = ["key"]


@admin.register(models.Upload)
class UploadAdmin(admin.ModelAdmin):
    list_display = ["original_name", "kind", "sha256", "size", "uploader", "created_at"]
    list_filter = ["kind"]
    search_fields = ["original_name", "sha256"]

    def delete_model(self, request, obj):
        """What the upload owns goes with it, and nothing else (apps.results.services.ownership), as through the API."""
        ownership.delete_upload(obj)

    def delete_queryset(self, request, queryset):
        for upload in queryset:
            ownership.delete_upload(upload)


class SystemClaimFilter(admin.SimpleListFilter):
    """Runs whose upload named an existing system of another owner: the claims waiting for the committee."""

    title = "system claim"
    parameter_name = "system_claim"

    def lookups(self, request, model_admin):
        return [("yes", "claims another owner's system"), ("no", "no claim")]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.exclude(system_claim="")
        if self.value() == "no":
            return queryset.filter(system_claim="")
        return queryset


class LustrePatchInline(admin.TabularInline):
    model = models.LustrePatch
    extra = 0


@admin.register(models.LustreBuild)
class LustreBuildAdmin(ResultsAdmin):
    list_display = ["__str__", "server_version", "client_version", "base_commit"]
    inlines = [LustrePatchInline]


@admin.register(models.LustrePatch)
class LustrePatchAdmin(ResultsAdmin):
    list_display = ["commit", "ticket", "component", "status", "build"]


class PhaseInline(admin.TabularInline):
    """A run's phases as its files gave them: shown, not edited (a phase edited by hand would disagree with the
    run's scores, which the benchmark computed from the phases it printed)."""

    model = models.PhaseResult
    extra = 0
    fields = ["name", "value", "unit", "seconds", "invalid", "source_file", "source_line"]
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False


class AnomalyInline(admin.TabularInline):
    """A run's anomalies, saved and deleted through its batch of writes (RunAdmin.save_formset): its verdicts and
    list entries follow."""

    model = models.Anomaly
    extra = 0
    fields = ["rule", "severity", "phase", "message"]


@admin.register(models.Run)
class RunAdmin(ResultsAdmin):
    form = RunReviewForm
    list_display = [
        "pk",
        "system",
        "kind",
        "era",
        "client_nodes",
        "score_total",
        "verification",
        "flagged",
        "review_status",
        "reproducibility_level",
        "production_accepted",
        "owner",
        "claims_system",
    ]
    list_filter = [
        "review_status",
        SystemClaimFilter,
        "reproducibility_level",
        "production_accepted",
        "kind",
        "era",
        "verification",
        "valid",
        "flagged",
    ]
    search_fields = ["system__name", "system__institution__name", "source_path", "content_hash"]
    raw_id_fields = ["system", "upload", "lustre_build"]
    list_select_related = ["system__institution", "upload__uploader"]
    readonly_fields = ["owner", "system_claim", "completeness", "rule_clauses"]
    exclude = ["reproducibility"]
    inlines = [ReviewNoteInline, ReviewCheckInline, PhaseInline, AnomalyInline]

    @admin.display(description="Owner")
    def owner(self, run):
        return ownership.owner_name(run.upload) if run.pk else "—"

    @admin.display(description="System claim", boolean=True)
    def claims_system(self, run):
        return bool(run.system_claim)

    @admin.display(description="Completeness and proposed level")
    def completeness(self, run):
        if not run.pk:
            return "—"
        report = reproducibility_report(run, staff=True)
        return (
            f"proposed {report['proposed_level']} (target {report['target_level'] or '—'}, assigned "
            f"{report['assigned_level']}); sections {report['sections_answered']}/{report['sections_total']}; "
            f"metadata missing: {', '.join(report['metadata_missing']) or 'none'}; tuning dumps missing: "
            f"{', '.join(report['tuning_missing']) or 'none'}"
        )

    @admin.display(description="Rule clauses (from the files)")
    def rule_clauses(self, run):
        edition, outcomes = clause_outcomes(run) if run.pk else (None, [])
        if edition is None:
            return "—"
        return format_html(
            "<p>edition {}</p><ul>{}</ul>",
            edition,
            format_html_join("", "<li><b>{}</b> {}: {}</li>", ((o.clause.id, o.outcome, o.detail) for o in outcomes)),
        )

    def save_model(self, request, obj, form, change):
        """The run's fields through runs.edit; the committee's decisions through review_run, as from the API:
        checked (the form's clean), noted, and followed by change detection."""
        decisions = {name: getattr(obj, name) for name in REVIEW_FIELDS if change and name in form.changed_data}
        if decisions:  # left as stored here: review_run applies and notes them
            stored = models.Run.objects.only(*REVIEW_FIELDS).get(pk=obj.pk)
            for name in decisions:
                setattr(obj, name, getattr(stored, name))
        with runs.batch() as batch:  # the edit and the review, brought in line once
            batch.edit(obj)
            if decisions:
                review_run(
                    obj,
                    by=request.user,
                    status=decisions.get("review_status"),
                    level=decisions.get("reproducibility_level"),
                    production_accepted=decisions.get("production_accepted"),
                    note="changed in the admin",
                    batch=batch,
                )
            if not change:
                batch.detect_changes([obj.pk])  # a new run of a system's history

    def delete_model(self, request, obj):
        runs.delete([obj])

    def delete_queryset(self, request, queryset):
        runs.delete(queryset)

    def save_formset(self, request, form, formset, change):
        """Anomalies through the run's verb (its verdicts derived again, its lists in line); notes and checks
        record who wrote them."""
        instances = formset.save(commit=False)
        if formset.model is models.Anomaly:
            runs.edit_anomalies(form.instance, saved=instances, deleted=formset.deleted_objects)
            return
        for instance in instances:
            if isinstance(instance, models.ReviewNote) and instance.author_id is None:
                instance.author = request.user
            if isinstance(instance, models.ReviewCheck):
                instance.checked_by = request.user
            instance.save()
        for deleted in formset.deleted_objects:
            deleted.delete()


@admin.register(models.RulesEdition)
class RulesEditionAdmin(ResultsAdmin):
    list_display = ["name", "since", "until"]
    readonly_fields = ["rule_clauses"]

    @admin.display(description="Clauses of the submission rules in force")
    def rule_clauses(self, edition):
        return format_html(
            "<ul>{}</ul>",
            format_html_join(
                "",
                "<li><b>{}</b> ({}): {}</li>",
                ((c.id, c.status.replace("_", " "), c.text) for c in edition.clauses()),
            ),
        )


@admin.register(models.CustomList)
class CustomListAdmin(ResultsAdmin):
    list_display = ["name", "token", "equation", "base_list", "created_at"]
    search_fields = ["name", "token", "equation"]


@admin.register(models.RunFile)
class RunFileAdmin(ResultsAdmin):
    list_display = ["name", "run"]
    raw_id_fields = ["run"]


@admin.register(models.PhaseResult)
class PhaseResultAdmin(ResultsAdmin):
    """Phases are shown, not edited (PhaseInline says why)."""

    list_display = ["run", "name", "value", "unit", "seconds"]
    raw_id_fields = ["run"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(models.Tunable)
class TunableAdmin(ResultsAdmin):
    list_display = ["run", "parameter", "value", "scope"]
    list_filter = ["scope"]
    raw_id_fields = ["run"]


@admin.register(models.Striping)
class StripingAdmin(ResultsAdmin):
    list_display = ["run", "path_role", "stripe_count", "stripe_size", "overstriping", "dir_stripe_count"]
    raw_id_fields = ["run"]


@admin.register(models.Anomaly)
class AnomalyAdmin(ResultsAdmin):
    """An anomaly added, edited or deleted by hand goes through its run's verb: the run's verdicts are derived
    again and its lists follow (apps.results.services.runs.edit_anomalies). An anomaly moved to another run
    leaves both runs in line."""

    list_display = ["run", "rule", "severity", "phase"]
    list_filter = ["rule", "severity"]
    raw_id_fields = ["run"]

    def save_model(self, request, obj, form, change):
        with runs.batch() as batch:
            batch.edit_anomalies(obj.run, saved=[obj])
            moved_from = form.initial.get("run") if change else None
            if moved_from is not None and moved_from != obj.run_id:
                batch.set_verdicts(models.Run.objects.get(pk=moved_from))

    def delete_model(self, request, obj):
        runs.edit_anomalies(obj.run, deleted=[obj])

    def delete_queryset(self, request, queryset):
        with runs.batch() as batch:
            for anomaly in queryset.select_related("run"):
                batch.edit_anomalies(anomaly.run, deleted=[anomaly])


class EditionEntryInline(admin.TabularInline):
    model = models.EditionEntry
    extra = 0
    fields = ["rank", "institution_name", "system_name", "score", "run"]
    readonly_fields = fields
    can_delete = False


@admin.register(models.Edition)
class EditionAdmin(ResultsAdmin):
    """Adding an edition freezes the live list of its kind; afterwards only its title and description change."""

    list_display = ["name", "list_kind", "title", "frozen_at"]
    inlines = [EditionEntryInline]

    def get_readonly_fields(self, request, obj=None):
        imported = ["source", "released_on", "source_digest"]  # published editions come from import_published only
        recorded = ["entry_count", "filesystems"]  # of its entries, when they are written (Edition.record_entries)
        return ["name", "list_kind", "frozen_at", *imported, *recorded] if obj else ["frozen_at", *imported, *recorded]

    def save_model(self, request, obj, form, change):
        """A new edition is frozen as the API and the command freeze one (`editions.freeze`): the uploads
        submitted to its name are released first. The form has checked the name, the list and that the pair is
        new, so `freeze` refuses nothing here."""
        if change:
            super().save_model(request, obj, form, change)
        else:
            freeze(obj)


@admin.register(models.EditionEntry)
class EditionEntryAdmin(ResultsAdmin):
    list_display = ["edition", "rank", "system_name", "score"]
    raw_id_fields = ["run", "system"]


class ScalingPointInline(admin.TabularInline):
    model = models.ScalingPoint
    extra = 0
    fields = ["operation", "mdt_count", "tasks", "client_nodes", "mean", "source_file"]


@admin.register(models.ScalingSeries)
class ScalingSeriesAdmin(ResultsAdmin):
    list_display = ["name", "system", "created_at"]
    inlines = [ScalingPointInline]


@admin.register(models.ScalingPoint)
class ScalingPointAdmin(ResultsAdmin):
    list_display = ["series", "operation", "mdt_count", "tasks", "mean"]
    list_filter = ["operation", "striping"]
    raw_id_fields = ["series"]


@admin.register(models.Study)
class StudyAdmin(ResultsAdmin):
    """Studies are written by ingest; here an operator sets what a reader may not: the name, the notes and the
    equivalence margin the verdicts use."""

    list_display = ["name", "system", "unit", "margin", "created_at"]
    search_fields = ["name"]
    fields = ["name", "system", "filesystem", "lustre_build", "notes", "margin", "unit", "scaling_series"]
    readonly_fields = ["unit", "scaling_series"]
    raw_id_fields = ["system", "lustre_build"]


@admin.register(models.Change)
class ChangeAdmin(ResultsAdmin):
    """Triage: staff set the status and a note; everything else is what detection found."""

    list_display = ["system", "metric", "kind", "direction", "magnitude_pct", "run_after", "status", "detected"]
    list_filter = ["status", "kind", "direction", "detected", "metric"]
    search_fields = ["system__name", "system__institution__name", "metric", "note"]
    list_select_related = ["system__institution", "run_after"]
    fields = list(models.Change.SHOWN_FIELDS)
    readonly_fields = [name for name in fields if name not in models.Change.TRIAGE_FIELDS]

    def has_add_permission(self, request) -> bool:
        return False

    def save_model(self, request, obj, form, change):
        triage(obj, status=form.cleaned_data.get("status"), note=form.cleaned_data.get("note"), user=request.user)


@admin.register(models.Annotation)
class AnnotationAdmin(ResultsAdmin):
    """An expected change: saving one recomputes the system's changes with the run as a new baseline."""

    list_display = ["system", "run", "metric", "text", "author", "created_at"]
    list_select_related = ["system__institution", "author"]
    raw_id_fields = ["run"]
    fields = ["run", "metric", "text"]

    def save_model(self, request, obj, form, change):
        obj.system = obj.run.system
        if not change:
            obj.author = request.user
        super().save_model(request, obj, form, change)
        schedule_change_detection([obj.run_id])

    def delete_model(self, request, obj):
        run_id = obj.run_id
        super().delete_model(request, obj)
        schedule_change_detection([run_id])
