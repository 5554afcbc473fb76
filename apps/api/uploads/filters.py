"""Filters of the uploads collection (the caller's own jobs)."""

import django_filters as filters

from apps.ingest.models import IngestJob
from apps.ingest.tools import upload_kind_choices


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
