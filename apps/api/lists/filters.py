"""Filters of the ranked lists (the list vocabulary's criteria) and of the editions."""

import django_filters as filters

from apps.api.common.filters import SQL_INTEGER_MAX, bounded_integer_filter
from apps.results.models import Edition, ListEntry
from apps.results.models.list_columns import CRITERIA, SORT_CHOICES, Criterion
from apps.results.models.list_kinds import list_kind_choices


def criterion_filter(criterion: Criterion) -> filters.Filter:
    """The API filter of a list criterion (`list_columns.CRITERIA`), from its value type; the lookup is applied by
    `filter_listed`, as on the pages."""
    if criterion.value is bool:
        return filters.BooleanFilter(help_text=criterion.description)
    if criterion.value is int:
        return bounded_integer_filter(
            criterion.min_value or 0, criterion.max_value or SQL_INTEGER_MAX, help_text=criterion.description
        )
    return filters.CharFilter(help_text=criterion.description)


class ListCriteriaFilter(filters.FilterSet):
    """Criteria narrow a ranked list without re-ranking it: a rank stays the place on the whole list.

    The criteria and sort keys are the leaderboard pages' own (apps.results.models.list_columns, applied by
    ListEntryQuerySet.filter_listed/sort_listed), so the API and the HTML lists cannot disagree.
    """

    ordering = filters.ChoiceFilter(
        choices=SORT_CHOICES, help_text="sort key; '-' for descending. Sorting never changes the ranks."
    )

    class Meta:
        model = ListEntry
        fields: list[str] = []

    def criteria(self) -> tuple[dict, str | None]:
        """(filter criteria, sort key) of a valid query."""
        criteria = {name: value for name, value in self.form.cleaned_data.items() if name != "ordering"}
        return criteria, self.form.cleaned_data.get("ordering")

    def filter_queryset(self, queryset):
        criteria, ordering = self.criteria()
        return queryset.filter_listed(**criteria).sort_listed(ordering)


#: The list endpoints' FilterSet: a filter for every criterion of the lists, then the sort.
RankedListFilter = type(ListCriteriaFilter)(
    "RankedListFilter",
    (ListCriteriaFilter,),
    {
        "__module__": __name__,
        "__doc__": ListCriteriaFilter.__doc__,
        **{criterion.parameter: criterion_filter(criterion) for criterion in CRITERIA},
    },
)


class EditionFilter(filters.FilterSet):
    list_kind = filters.ChoiceFilter(choices=list_kind_choices())
    name = filters.CharFilter()
    ordering = filters.OrderingFilter(fields=["frozen_at", "name"])

    class Meta:
        model = Edition
        fields: list[str] = []
