"""Query-string filters and orderings for the API's list endpoints (django-filter FilterSets)."""

import django_filters as filters
from django import forms
from drf_spectacular.utils import extend_schema_field

from apps.ingest.models import IngestJob
from apps.ingest.tools import upload_kind_choices
from apps.results.models import Edition, ListEntry, ReviewStatus, Run, StorageSystem
from apps.results.models.list_columns import CRITERIA, SORT_CHOICES, Criterion
from apps.results.models.list_kinds import ELIGIBLE, RANKED, list_kind_choices

SQL_INTEGER_MAX = 2**31 - 1
SCORE_MAX = 1e12


@extend_schema_field({"type": "integer", "minimum": 0, "maximum": SQL_INTEGER_MAX})
class IntegerFilter(filters.NumberFilter):
    """A whole number that fits every database's integer column (a bad value is a 400, not a 500)."""

    field_class = forms.IntegerField

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("min_value", 0)
        kwargs.setdefault("max_value", SQL_INTEGER_MAX)
        super().__init__(*args, **kwargs)


def bounded_integer_filter(min_value: int, max_value: int, **kwargs) -> IntegerFilter:
    """An IntegerFilter between other bounds, said in the schema too (a schema-valid value is never a 400)."""
    schema = extend_schema_field({"type": "integer", "minimum": min_value, "maximum": max_value})
    bounded = schema(type(f"IntegerFilter{min_value}To{max_value}", (IntegerFilter,), {"__module__": __name__}))
    return bounded(min_value=min_value, max_value=max_value, **kwargs)


@extend_schema_field({"type": "number", "minimum": 0, "maximum": SCORE_MAX})
class ScoreFilter(filters.NumberFilter):
    """A score bound: any non-negative number up to an absurdly high score."""

    field_class = forms.FloatField

    def __init__(self, *args, **kwargs):
        super().__init__(*args, min_value=0, max_value=SCORE_MAX, **kwargs)


class RunFilter(filters.FilterSet):
    system = IntegerFilter(field_name="system_id", help_text="storage system id")
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

    def filter_ranked(self, queryset, name, value):
        return queryset.filter(RANKED) if value else queryset.exclude(RANKED)

    def filter_eligible(self, queryset, name, value):
        return queryset.filter(ELIGIBLE) if value else queryset.exclude(ELIGIBLE)


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


class EditionFilter(filters.FilterSet):
    list_kind = filters.ChoiceFilter(choices=list_kind_choices())
    name = filters.CharFilter()
    ordering = filters.OrderingFilter(fields=["frozen_at", "name"])

    class Meta:
        model = Edition
        fields: list[str] = []


class RegisteredUploadKinds:
    """The upload kinds of the tool registry as choices, read each time they are iterated: by each request's
    form and by each schema generation (a callable would hide the enum from the schema, a list made at import
    would miss a tool registered later)."""

    def __iter__(self):
        return iter(upload_kind_choices())


class UploadFilter(filters.FilterSet):
    status = filters.ChoiceFilter(choices=IngestJob.Status.choices)
    kind = filters.ChoiceFilter(field_name="upload__kind", choices=RegisteredUploadKinds())

    class Meta:
        model = IngestJob
        fields: list[str] = []
