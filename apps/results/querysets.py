"""Run querysets: the ranked lists, composed once and shared by pages, API and exports.

Ranking happens in SQL in two steps (see docs/django-style.md §3.6 of the shared notes): a
RowNumber window picks each system's best run in a subquery, then Rank() runs over the
survivors. Doing both windows in one query ranks before filtering and skips places.
"""

from django.db import models
from django.db.models import F, Q, Window
from django.db.models.functions import Rank, RowNumber

BY_SCORE = [F("score_total").desc(), F("pk").asc()]


class RunQuerySet(models.QuerySet):
    def io500(self):
        return self.filter(kind="io500")

    def eligible(self):
        """Runs that may be ranked: valid, not excluded by an error-level anomaly, with a score."""
        return self.io500().filter(exclusion_reason="", score_total__isnull=False)

    def best_per_system(self):
        best = self.annotate(
            place_in_system=Window(RowNumber(), partition_by=[F("system_id")], order_by=BY_SCORE)
        ).filter(place_in_system=1)
        return self.model.objects.filter(pk__in=best.values("pk"))

    def ranked(self):
        return self.annotate(rank=Window(Rank(), order_by=[F("score_total").desc()])).order_by(*BY_SCORE)

    def with_list_columns(self):
        return self.select_related("system__institution", "lustre_build").defer(
            "config", "info", "facts", "extended_scores"
        )

    def io500_list(self):
        """The IO500 list: each storage system's best eligible run, ranked by total score."""
        return self.eligible().best_per_system().ranked().with_list_columns()

    def ten_node_list(self):
        """The 10-node challenge: each system's best eligible run among runs on exactly 10 client nodes."""
        return self.eligible().filter(client_nodes=10).best_per_system().ranked().with_list_columns()

    def historic_list(self):
        """Every IO500 run, eligible or not; excluded runs carry their reason and no rank."""
        return (
            self.io500()
            .annotate(
                rank=Window(
                    Rank(),
                    partition_by=[Q(exclusion_reason="") & Q(score_total__isnull=False)],
                    order_by=[F("score_total").desc(nulls_last=True)],
                )
            )
            .order_by(F("score_total").desc(nulls_last=True), "pk")
            .with_list_columns()
        )
