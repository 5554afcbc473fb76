"""Filters of the storage systems collection."""

import django_filters as filters

from apps.results.models import StorageSystem


class SystemFilter(filters.FilterSet):
    name = filters.CharFilter(lookup_expr="icontains")
    institution = filters.CharFilter(field_name="institution__name", lookup_expr="icontains")
    country = filters.CharFilter(field_name="institution__country", lookup_expr="iexact")
    filesystem = filters.CharFilter(lookup_expr="icontains")
    storage_vendor = filters.CharFilter(lookup_expr="icontains")
    ordering = filters.OrderingFilter(
        fields=[
            "name",
            ("institution__name", "institution"),
            "filesystem",
            "run_count",
            "best_score",
            "id",
        ]
    )

    class Meta:
        model = StorageSystem
        fields: list[str] = []
