from django.apps import AppConfig
from django.db.models.signals import post_delete, post_save, pre_delete

#: Rows that only ever change together with their run (or series), in bulk: a post_delete receiver on them would
#: cost Django its fast cascade delete, and the run's own save or delete already bumps the data version.
LEAF_MODELS = {
    "PhaseResult", "RunFile", "Tunable", "Striping", "Anomaly", "ScalingPoint", "EditionEntry", "LustrePatch",
    "StackServer", "StackSpec", "StackComponent", "StackMeasurement",  # written and deleted with their Stack
}

#: Rows derived from runs on write (apps.results.list_entries, apps.results.custom_lists): a run's save already
#: bumps the version, and a fill of a custom list's entries bumps it once, when it commits.
DERIVED_MODELS = {"ListEntry", "ListRankShift", "ListState", "CustomListEntry"}

#: Rows no list or page cache shows (an upload's runs bump the version themselves when they are stored or deleted).
UNLISTED_MODELS = {"Upload"}


class ResultsConfig(AppConfig):
    name = "apps.results"
    verbose_name = "Results"

    def ready(self):
        from apps.results.freshness import bump_on_results_write

        for model in self.get_models():
            if model.__name__ in UNLISTED_MODELS | DERIVED_MODELS:
                continue
            post_save.connect(bump_on_results_write, sender=model, dispatch_uid=f"freshness-save-{model.__name__}")
            if model.__name__ not in LEAF_MODELS:
                post_delete.connect(bump_on_results_write, sender=model,
                                    dispatch_uid=f"freshness-delete-{model.__name__}")
        self.connect_list_upkeep()

    def connect_list_upkeep(self):
        """Keep the maintained list entries (and custom lists' entries) in step with every ORM write of a run,
        system or institution."""
        from apps.results import custom_lists, list_entries, run_upkeep
        from apps.results.models import Institution, Run, StorageSystem
        from apps.results.tasks import maintain_list

        def run_saved(sender, instance, created=False, raw=False, **kwargs):
            if not raw:
                # A run just created has no entries yet, so none on another system.
                moved_from = [] if created else instance.list_entries.exclude(
                    system_id=instance.system_id).values_list("system_id", flat=True)
                run_upkeep.systems_written([instance.system_id, *moved_from])

        def run_deleting(sender, instance, **kwargs):
            list_entries.remove_runs([instance.pk])
            custom_lists.forget_runs([instance.pk])

        def run_deleted(sender, instance, **kwargs):
            run_upkeep.systems_written([instance.system_id])

        # A system or institution just created has no runs yet, so no entries to copy its names into.
        def system_saved(sender, instance, created=False, raw=False, **kwargs):
            if not (raw or created):
                list_entries.copy_system_columns([instance.pk])

        def institution_saved(sender, instance, created=False, raw=False, **kwargs):
            if not (raw or created):
                list_entries.copy_system_columns(instance.systems.values_list("pk", flat=True))

        def list_changed(sender, kind, **kwargs):
            maintain_list.delay(kind)

        list_entries.list_changed.connect(list_changed, dispatch_uid="lists-maintain", weak=False)
        post_save.connect(run_saved, sender=Run, dispatch_uid="lists-run-saved", weak=False)
        pre_delete.connect(run_deleting, sender=Run, dispatch_uid="lists-run-deleting", weak=False)
        post_delete.connect(run_deleted, sender=Run, dispatch_uid="lists-run-deleted", weak=False)
        post_save.connect(system_saved, sender=StorageSystem, dispatch_uid="lists-system-saved", weak=False)
        post_save.connect(institution_saved, sender=Institution, dispatch_uid="lists-institution-saved", weak=False)
