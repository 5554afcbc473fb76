"""The list filter form: query-string parameters → the criteria of ListEntryQuerySet.filter_listed(), its fields
made from the criteria of apps.results.models.list_columns.

Every parameter of a list view lives in the URL (filters, sort, page size, page), so any view is
a permalink and its export links carry the same state. Invalid values are reported and ignored;
the valid ones still apply.
"""

from django import forms
from django.forms.utils import flatatt
from django.utils.html import format_html, format_html_join

from apps.results.models.list_columns import CRITERIA, SORT_CHOICES, Criterion

DEFAULT_PER_PAGE = 50
PER_PAGE = [25, 100, 500]  # and the default
#: How a bool criterion is written in the query string.
YES, NO = "yes", "no"
#: The criteria the page's form offers (list_columns.CRITERIA); the ids of a system or run are the API's alone.
FORM_CRITERIA = [criterion for criterion in CRITERIA if criterion.on_form]


def criterion_field(criterion: Criterion) -> forms.Field:
    """The form field of a filter criterion, from its value type."""
    if criterion.value is bool:
        shown_yes, shown_no = criterion.choice_labels
        return forms.ChoiceField(
            required=False, label=criterion.label, choices=[("", "any"), (YES, shown_yes), (NO, shown_no)]
        )
    if criterion.value is int:
        widget = forms.NumberInput(attrs=dict(criterion.input_attrs)) if criterion.input_attrs else None
        return forms.IntegerField(
            required=False,
            min_value=criterion.min_value,
            max_value=criterion.max_value,
            label=criterion.label,
            widget=widget,
        )
    widget = forms.TextInput(attrs=dict(criterion.input_attrs)) if criterion.input_attrs else None
    return forms.CharField(required=False, max_length=100, label=criterion.label, widget=widget)


#: A form of the criteria's fields, in their declared order; ListFilterForm adds the sort and the page size.
_CriteriaForm = type(forms.Form)(
    "_CriteriaForm",
    (forms.Form,),
    {"__module__": __name__, **{criterion.parameter: criterion_field(criterion) for criterion in FORM_CRITERIA}},
)


class ListFilterForm(_CriteriaForm):
    sort = forms.ChoiceField(required=False, widget=forms.HiddenInput, choices=[("", ""), *SORT_CHOICES])
    per_page = forms.TypedChoiceField(
        required=False,
        coerce=int,
        empty_value=DEFAULT_PER_PAGE,
        label="Rows",
        choices=[("", DEFAULT_PER_PAGE)] + [(n, n) for n in PER_PAGE],
    )

    def __init__(self, data, *args, **kwargs):
        super().__init__(data, *args, **kwargs)
        self.is_valid()  # fills cleaned_data with the valid fields; errors stay available to the template

    def _value(self, name):
        return self.cleaned_data.get(name) if name not in self.errors else None

    def criteria(self) -> dict:
        """The valid, set criteria, as `ListEntryQuerySet.filter_listed` takes them."""
        criteria = {}
        for criterion in FORM_CRITERIA:
            value = self._value(criterion.parameter)
            if criterion.value is bool:
                value = {YES: True, NO: False}.get(value or "")
            if value not in (None, ""):
                criteria[criterion.parameter] = value
        return criteria

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
        (tests/leaderboard/lists/test_filter_form.py compares the two).
        """
        return [(bound, _control(bound)) for bound in self]


def _control(bound: forms.BoundField) -> str:
    widget = bound.field.widget
    attrs = bound.build_widget_attrs({**widget.attrs, "id": bound.auto_id})  # aria-invalid and the like
    value = bound.value()
    if isinstance(widget, forms.Select):
        current = "" if value is None else str(value)
        options = format_html_join(
            "",
            '<option value="{}"{}>{}</option>',
            ((choice, " selected" if str(choice) == current else "", label) for choice, label in bound.field.choices),
        )
        return format_html('<select name="{}"{}>{}</select>', bound.html_name, flatatt(attrs), options)
    shown = widget.format_value(value)
    if shown is not None:
        attrs["value"] = shown
    return format_html('<input type="{}" name="{}"{}>', widget.input_type, bound.html_name, flatatt(attrs))
