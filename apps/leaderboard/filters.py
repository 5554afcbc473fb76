"""The list filter form: query-string parameters → the criteria of RunQuerySet.filter_listed().

Every parameter of a list view lives in the URL (filters, sort, page size, page), so any view is
a permalink and its export links carry the same state. Invalid values are reported and ignored;
the valid ones still apply.
"""

from django import forms
from django.forms.utils import flatatt
from django.utils.html import format_html, format_html_join

from apps.results.querysets import SORTS

DEFAULT_PER_PAGE = 50
PER_PAGE = [25, 100, 500]  # and the default
FLAGGED = {"yes": True, "no": False}


class ListFilterForm(forms.Form):
    search = forms.CharField(required=False, max_length=100, label="Search",
                             widget=forms.TextInput(attrs={"placeholder": "system, institution, vendor"}))
    filesystem = forms.CharField(required=False, max_length=100, label="File system",
                                 widget=forms.TextInput(attrs={"list": "filesystems"}))
    institution = forms.CharField(required=False, max_length=100)
    vendor = forms.CharField(required=False, max_length=100, label="Storage vendor")
    year = forms.IntegerField(required=False, min_value=1990, max_value=2200)
    nodes_min = forms.IntegerField(required=False, min_value=0, label="Nodes from",
                                   widget=forms.NumberInput(attrs={"size": 5}))
    nodes_max = forms.IntegerField(required=False, min_value=0, label="Nodes to",
                                   widget=forms.NumberInput(attrs={"size": 5}))
    flagged = forms.ChoiceField(required=False, label="Anomalies",
                                choices=[("", "any"), ("yes", "flagged"), ("no", "not flagged")])
    sort = forms.ChoiceField(required=False, widget=forms.HiddenInput,
                             choices=[("", "")] + [(key, key) for name in SORTS for key in (name, f"-{name}")])
    per_page = forms.TypedChoiceField(required=False, coerce=int, empty_value=DEFAULT_PER_PAGE, label="Rows",
                                      choices=[("", DEFAULT_PER_PAGE)] + [(n, n) for n in PER_PAGE])

    CRITERIA = ("search", "filesystem", "institution", "vendor", "year", "nodes_min", "nodes_max")

    def __init__(self, data, *args, **kwargs):
        super().__init__(data, *args, **kwargs)
        self.is_valid()  # fills cleaned_data with the valid fields; errors stay available to the template

    def _value(self, name):
        return self.cleaned_data.get(name) if name not in self.errors else None

    def criteria(self) -> dict:
        criteria = {name: self._value(name) for name in self.CRITERIA}
        criteria["flagged"] = FLAGGED.get(self._value("flagged") or "")
        return {name: value for name, value in criteria.items() if value not in (None, "")}

    @property
    def sort_key(self) -> str:
        return self._value("sort") or ""

    @property
    def page_size(self) -> int:
        return self._value("per_page") or DEFAULT_PER_PAGE

    @property
    def is_filtered(self) -> bool:
        return bool(self.criteria())

    def controls(self) -> list[tuple[forms.BoundField, str]]:
        """(field, its input or select as HTML) for each field, in form order.

        Written here rather than through Django's widget templates: rendering the ten widgets was a third of a
        list page's template time (cProfile). The markup is the widgets' own:
        their attributes, the submitted value, the `id_<name>` the labels and scripts use
        (tests/leaderboard/test_filter_form.py compares the two).
        """
        return [(bound, _control(bound)) for bound in self]


def _control(bound: forms.BoundField) -> str:
    widget = bound.field.widget
    attrs = bound.build_widget_attrs({**widget.attrs, "id": bound.auto_id})  # aria-invalid and the like
    value = bound.value()
    if isinstance(widget, forms.Select):
        current = "" if value is None else str(value)
        options = format_html_join("", "<option value=\"{}\"{}>{}</option>", (
            (choice, " selected" if str(choice) == current else "", label) for choice, label in bound.field.choices))
        return format_html("<select name=\"{}\"{}>{}</select>", bound.html_name, flatatt(attrs), options)
    shown = widget.format_value(value)
    if shown is not None:
        attrs["value"] = shown
    return format_html("<input type=\"{}\" name=\"{}\"{}>", widget.input_type, bound.html_name, flatatt(attrs))


class SystemSearchForm(forms.Form):
    """`?q=` of the systems index and the compare page's run picker (institution, system, file system, vendor)."""

    q = forms.CharField(required=False, max_length=100)

    def __init__(self, data, *args, **kwargs):
        super().__init__(data, *args, **kwargs)
        self.is_valid()

    @property
    def query(self) -> str:
        return (self.cleaned_data.get("q") or "").strip() if "q" not in self.errors else ""
