"""Query-string filters of the changes collection."""

from __future__ import annotations

import django_filters as filters

from apps.api.common.filters import IntegerFilter
from apps.results.models import Change


class ChangeFilter(filters.FilterSet):
    system = IntegerFilter(field_name="system_id", help_text="storage system id")
    metric = filters.CharFilter(help_text="phase name (mdtest_easy_write...), score, score_bw or score_md")
    kind = filters.ChoiceFilter(choices=Change.Kind.choices)
    status = filters.ChoiceFilter(choices=Change.Status.choices)
    detected = filters.BooleanFilter(help_text="false: no longer found by the latest detection, kept for its triage")

    class Meta:
        model = Change
        fields = ["system", "metric", "kind", "status", "detected"]
