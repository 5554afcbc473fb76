from django.apps import AppConfig
from django.db.models.signals import post_delete, post_save

#: Rows that only ever change together with their run (or series), in bulk: a post_delete receiver on them would
#: cost Django its fast cascade delete, and the run's own save or delete already bumps the data version.
LEAF_MODELS = {
    "PhaseResult", "RunFile", "Tunable", "Striping", "Anomaly", "ScalingPoint", "EditionEntry", "LustrePatch",
}

#: Rows no list or page cache shows (an upload's runs bump the version themselves when they are stored or deleted).
UNLISTED_MODELS = {"Upload"}


class ResultsConfig(AppConfig):
    name = "apps.results"
    verbose_name = "Results"

    def ready(self):
        from apps.results.freshness import bump_on_results_write

        for model in self.get_models():
            if model.__name__ in UNLISTED_MODELS:
                continue
            post_save.connect(bump_on_results_write, sender=model, dispatch_uid=f"freshness-save-{model.__name__}")
            if model.__name__ not in LEAF_MODELS:
                post_delete.connect(bump_on_results_write, sender=model,
                                    dispatch_uid=f"freshness-delete-{model.__name__}")
