"""Query-string filters of the published record's editions and entries."""

import django_filters as filters

from apps.api.common.filters import IntegerFilter
from apps.results.models import Edition, EditionEntry
from apps.results.models.list_kinds import list_kind_choices


class PublishedEditionFilter(filters.FilterSet):
    name = filters.CharFilter(help_text="the release, e.g. ISC20 or SC18-star")
    list_kind = filters.ChoiceFilter(choices=list_kind_choices())

    class Meta:
        model = Edition
        fields = ["name", "list_kind"]


class PublishedEntryFilter(filters.FilterSet):
    release = filters.CharFilter(field_name="edition__name", help_text="the release, e.g. ISC20 or SC18-star")
    list_kind = filters.ChoiceFilter(field_name="edition__list_kind", choices=list_kind_choices())
    edition = IntegerFilter(field_name="edition_id", help_text="published edition id")
    submission_id = IntegerFilter(field_name="submission_number", help_text="the archive's submission-N")
    run = IntegerFilter(field_name="run_id", help_text="run id")
    linked = filters.BooleanFilter(field_name="run", lookup_expr="isnull", exclude=True, help_text="raw files ingested")

    class Meta:
        model = EditionEntry
        fields = ["release", "list_kind", "edition", "submission_id", "run", "linked"]
