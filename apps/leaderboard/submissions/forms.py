"""The browser upload: one file, its kind, the run's metadata, the tools' own fields (from the tool registry,
built per form, as the API's serializer builds them) and the IO500 questionnaire, cleaned by the same
`clean_reproducibility` the API and the ioboard.yaml sidecar use."""

import copy

from django import forms

from apps.ingest.tools import DEFAULT_KIND, upload_kind_choices, upload_kinds
from apps.ingest.tools.base import UploadField
from apps.results.judgements.reproducibility import (
    LEVELS,
    SECTIONS,
    TARGET_LISTS,
    QuestionnaireError,
    clean_reproducibility,
)
from apps.results.services.embargo import EmbargoError, embargo_of

TEXT = {"max_length": 255, "required": False}
#: The run's metadata the form asks for, under the names ingest reads (`apps.ingest.core.metadata.METADATA_KEYS`).
METADATA_FIELDS = {
    "institution": forms.CharField(**TEXT),
    "system": forms.CharField(**TEXT),
    "filesystem": forms.CharField(label="File system", **TEXT),
    "storage_vendor": forms.CharField(**TEXT),
    "client_nodes": forms.IntegerField(min_value=1, required=False),
    "server_count": forms.IntegerField(label="Servers", min_value=1, required=False),
    "year": forms.IntegerField(min_value=2000, max_value=2100, required=False),
    "submission_id": forms.CharField(label="Submission id", max_length=50, required=False),
    "notes": forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), max_length=10000, required=False),
}
PRODUCTION_FLAGS = {
    "production_applications": "Runs production applications on a regular, frequent and ongoing basis",
    "no_single_point_of_failure": "Has no single point of failure",
}
ACKNOWLEDGEMENTS = {
    "rules": "I have read and followed the IO500 submission rules",
    "publication": "The results may be published",
}


def tool_field(declared: UploadField) -> forms.Field:
    if declared.value == "fraction":
        return forms.FloatField(required=False, min_value=0.001, max_value=1.0, help_text=declared.help)
    if declared.value == "slug":
        return forms.SlugField(required=False, max_length=100, help_text=declared.help)
    return forms.CharField(help_text=declared.help, **TEXT)


class UploadForm(forms.Form):
    file = forms.FileField(
        label="Result archive",
        help_text="a .tar.gz, .tgz or .zip of an IO500 result directory or submission folder, or a bare log",
    )

    edition = forms.SlugField(
        required=False,
        max_length=50,
        help_text="the list (e.g. sc26) it is submitted to: private to you and staff until that list is released",
    )
    embargo_until = forms.DateTimeField(
        required=False, label="Private until", help_text="a date and time (UTC): private to you and staff until then"
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["kind"] = forms.ChoiceField(choices=upload_kind_choices(), initial=DEFAULT_KIND)
        self.fields.update(copy.deepcopy(METADATA_FIELDS))
        declared = {field.name: field for tool in upload_kinds().values() for field in tool.ingest.upload_fields}
        self.tool_names = list(declared)
        self.fields.update({name: tool_field(field) for name, field in declared.items()})
        for name, title in SECTIONS.items():
            self.fields[f"q_{name}"] = forms.CharField(
                label=title, widget=forms.Textarea(attrs={"rows": 2}), required=False, max_length=20000
            )
        self.fields["target_level"] = forms.ChoiceField(choices=[("", "—"), *LEVELS.items()], required=False)
        self.fields["target_list"] = forms.ChoiceField(
            choices=[("", "—"), *((name, name.title()) for name in TARGET_LISTS)], required=False
        )
        for name, label in PRODUCTION_FLAGS.items():
            self.fields[name] = forms.BooleanField(label=label, required=False)
        self.fields["production_description"] = forms.CharField(
            label="Production use", widget=forms.Textarea(attrs={"rows": 2}), required=False, max_length=20000
        )
        for name, label in ACKNOWLEDGEMENTS.items():
            self.fields[f"ack_{name}"] = forms.BooleanField(label=label, required=False)

    def metadata_field_names(self) -> list[str]:
        return [*METADATA_FIELDS, *self.tool_names]

    def questionnaire_field_names(self) -> list[str]:
        return [f"q_{name}" for name in SECTIONS]

    def declaration_field_names(self) -> list[str]:
        return [
            "target_level",
            "target_list",
            *PRODUCTION_FLAGS,
            "production_description",
            *(f"ack_{name}" for name in ACKNOWLEDGEMENTS),
        ]

    def clean_edition(self) -> str:
        """An edition already frozen (released) is refused, as the API refuses it."""
        edition = self.cleaned_data.get("edition") or ""
        if edition:
            try:
                embargo_of(edition, None)
            except EmbargoError as error:
                raise forms.ValidationError(str(error)) from error
        return edition

    def clean(self):
        cleaned = super().clean()
        data = self.reproducibility_answers(cleaned)
        try:
            cleaned["reproducibility"] = clean_reproducibility(data) if data else {}
        except QuestionnaireError as error:
            raise forms.ValidationError(str(error)) from error
        return cleaned

    @staticmethod
    def reproducibility_answers(cleaned: dict) -> dict:
        """The answers as the `reproducibility:` mapping of ioboard.yaml; nothing when none was given."""
        sections = {name: cleaned[f"q_{name}"] for name in SECTIONS if cleaned.get(f"q_{name}")}
        production = {name: cleaned.get(name, False) for name in PRODUCTION_FLAGS}
        if cleaned.get("production_description"):
            production["description"] = cleaned["production_description"]
        acknowledgements = {name: cleaned.get(f"ack_{name}", False) for name in ACKNOWLEDGEMENTS}
        given = sections or any(production.values()) or any(acknowledgements.values())
        given = given or cleaned.get("target_level") or cleaned.get("target_list")
        if not given:
            return {}
        return {
            "questionnaire": sections,
            "target_level": cleaned.get("target_level", ""),
            "target_list": cleaned.get("target_list", ""),
            "production": production,
            "acknowledgements": acknowledgements,
        }

    def metadata(self) -> dict:
        """What the uploader said, under the names ingest reads; empty fields are not declarations."""
        declared = {
            name: self.cleaned_data[name]
            for name in self.metadata_field_names()
            if self.cleaned_data.get(name) not in (None, "")
        }
        if self.cleaned_data.get("reproducibility"):
            declared["reproducibility"] = self.cleaned_data["reproducibility"]
        return declared
