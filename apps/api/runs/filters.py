"""Filters of the runs collection."""

import django_filters as filters

from apps.api.common.filters import IntegerFilter, ScoreFilter
from apps.results.models import ReviewStatus, Run
from apps.results.models.list_kinds import ELIGIBLE, RANKED


class RunFilter(filters.FilterSet):
    system = IntegerFilter(
        method="filter_system", help_text="storage system id (a pending claim on it: for its uploader and staff)"
    )
    institution = filters.CharFilter(field_name="system__institution__name", lookup_expr="icontains")
    filesystem = filters.CharFilter(field_name="system__filesystem", lookup_expr="icontains")
    storage_vendor = filters.CharFilter(field_name="system__storage_vendor", lookup_expr="icontains")
    kind = filters.ChoiceFilter(choices=Run.Kind.choices)
    era = filters.ChoiceFilter(choices=[choice for choice in Run.Era.choices if choice[0]])
    submission_id = filters.CharFilter()
    year = IntegerFilter()
    year_min = IntegerFilter(field_name="year", lookup_expr="gte")
    year_max = IntegerFilter(field_name="year", lookup_expr="lte")
    client_nodes = IntegerFilter()
    client_nodes_min = IntegerFilter(field_name="client_nodes", lookup_expr="gte")
    client_nodes_max = IntegerFilter(field_name="client_nodes", lookup_expr="lte")
    valid = filters.BooleanFilter(help_text="as the benchmark itself marked the run")
    verification = filters.ChoiceFilter(choices=Run.Verification.choices)
    flagged = filters.BooleanFilter(help_text="has a warning-level anomaly")
    ranked = filters.BooleanFilter(
        method="filter_ranked", help_text="visible as ranked: eligible and accepted by the committee"
    )
    eligible = filters.BooleanFilter(
        method="filter_eligible", help_text="eligible by its files and verdicts, whatever its review"
    )
    review_status = filters.ChoiceFilter(choices=ReviewStatus.choices)
    anomaly = filters.CharFilter(field_name="anomalies__rule", distinct=True, help_text="has an anomaly of this rule")
    lustre_build = IntegerFilter(field_name="lustre_build_id")
    upload = IntegerFilter(field_name="upload_id")
    score_min = ScoreFilter(field_name="score_total", lookup_expr="gte")
    score_max = ScoreFilter(field_name="score_total", lookup_expr="lte")
    ordering = filters.OrderingFilter(
        fields=[
            "score_total",
            "score_bw",
            "score_md",
            "year",
            "run_timestamp",
            "client_nodes",
            "client_procs",
            "created_at",
            "id",
        ]
    )

    class Meta:
        model = Run
        fields: list[str] = []

    def filter_system(self, queryset, name, value):
        """A system's runs, without the uploads' claims on it the committee has not accepted (but to their
        uploader and staff), as the system's page and detail show them."""
        return queryset.filter(system_id=value).without_pending_claims(self.request.user)

    def filter_ranked(self, queryset, name, value):
        return queryset.filter(RANKED) if value else queryset.exclude(RANKED)

    def filter_eligible(self, queryset, name, value):
        return queryset.filter(ELIGIBLE) if value else queryset.exclude(ELIGIBLE)
