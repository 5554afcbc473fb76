"""Custom lists: the builder, a signed-in reader's form for what `POST /api/v1/custom-lists/` saves; and a saved
list's page and exports, shared by its link.

It calls the same service (`save_custom_list`) and the same grammar (`compile_equation`), so the page and the API
accept and refuse the same equations with the same messages; `equation_check` answers the form's live validation.
"""

from django import forms
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET

from apps.leaderboard.lists import exports
from apps.leaderboard.lists.filters import ListFilterForm
from apps.results.judgements.equations import EquationError
from apps.results.models import CustomList, Run
from apps.results.models.list_kinds import LIST_KINDS
from apps.results.services.custom_lists import (
    NAMES,
    CustomListLimit,
    CustomListRows,
    compile_equation,
    save_custom_list,
)
from apps.web.rate_limits import ExportThrottle, rate_limited

#: The grammar refuses longer equations too (apps.results.judgements.equations); the form says so before parsing.
MAX_EQUATION = 500


class CustomListForm(forms.Form):
    equation = forms.CharField(
        max_length=MAX_EQUATION,
        widget=forms.TextInput(
            attrs={
                "size": 60,
                "placeholder": "sqrt(ior_easy_write * mdtest_easy_stat)",
                "autocomplete": "off",
                "spellcheck": "false",
            }
        ),
    )
    base_list = forms.ChoiceField(
        label="Base list", initial="full", choices=[(kind.slug, kind.title) for kind in LIST_KINDS.values()]
    )
    name = forms.CharField(max_length=200, required=False, help_text="shown as the list's title; the equation if empty")

    def clean_equation(self):
        equation = self.cleaned_data["equation"]
        try:
            compile_equation(equation)
        except EquationError as error:
            raise forms.ValidationError(str(error)) from error
        return equation


@login_required
def custom_list_new(request):
    form = CustomListForm(request.POST or None)
    status = 200
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            custom = save_custom_list(data["name"], data["equation"], data["base_list"], owner=request.user)
        except CustomListLimit as limit:  # the same per-account cap as the API's
            form.add_error(None, str(limit))
            status = 403
        else:
            return redirect("custom-list", token=custom.token)
    return render(
        request,
        "custom_lists/custom_list_new.html",
        {"form": form, "names": sorted(NAMES)},
        status=400 if status == 200 and form.errors else status,
    )


@require_GET
def equation_check(request):
    """{"ok": true} or {"ok": false, "equation": message, "position": offset}: the API's 400 body for a refused
    equation, for the builder's live validation."""
    equation = request.GET.get("equation", "")
    if len(equation) > MAX_EQUATION:
        return JsonResponse({"ok": False, "equation": f"at most {MAX_EQUATION} characters", "position": MAX_EQUATION})
    try:
        compile_equation(equation)
    except EquationError as error:
        return JsonResponse({"ok": False, "equation": error.message, "position": error.position})
    return JsonResponse({"ok": True})


def custom_list(request, token: str):
    """A saved custom list, shared by its link: the base list's members ranked by the equation."""
    custom = get_object_or_404(CustomList, token=token)
    entries = CustomListRows(custom)
    page = Paginator(entries, ListFilterForm(request.GET).page_size).get_page(request.GET.get("page"))
    return render(
        request,
        "custom_lists/custom_list.html",
        {
            "custom": custom,
            "base": LIST_KINDS[custom.base_list],
            "page": page,
            "rows": page.object_list,
            "entries": entries,
        },
    )


@rate_limited(ExportThrottle)
def custom_list_export(request, token: str, fmt: str):
    custom = get_object_or_404(CustomList, token=token)
    entries = CustomListRows(custom, Run.objects.with_list_columns())
    page = exports.ExportPage.asked(request)
    rows = entries[page.start : page.stop_with_one_more]
    page.found(request, rows)
    values = {}

    def runs():
        for row in rows[: page.rows]:
            values[row.run.pk] = row.value
            yield row.run

    records = ({**record, "equation_value": values.pop(record["id"])} for record in exports.run_records(runs()))
    filename = f"ioboard-custom-{custom.token}"
    if fmt == "csv":
        return page.linked(exports.csv_response(records, [*exports.RUN_COLUMNS, "equation_value"], [], filename))
    meta = {
        "custom_list": custom.token,
        "name": custom.name,
        "equation": custom.equation,
        "base_list": custom.base_list,
        "complete": entries.complete,
        **page.meta(),
    }
    return page.linked(exports.json_response(records, meta, filename))
