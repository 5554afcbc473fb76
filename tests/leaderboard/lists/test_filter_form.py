"""The list filter form writes its inputs itself (ListFilterForm.controls); they are the markup Django's own
widget templates write for the same form, whatever the submitted values."""

import pytest

from apps.leaderboard.lists.filters import ListFilterForm
from tests.pages import elements


@pytest.mark.parametrize(
    "query",
    [
        {},
        {"filesystem": "Lustre", "nodes_min": "10", "sort": "-bw"},
        {"flagged": "yes", "per_page": "100", "year": "2020", "search": 'a "quoted" <b>name</b> & more'},
        {"nodes_min": "ten", "per_page": "7", "sort": "nonsense"},  # invalid values are shown back as typed
    ],
)
def test_the_controls_are_the_widgets_own_markup(query):
    form = ListFilterForm(query)
    written = [elements(control) for _, control in form.controls()]
    django_rendered = [elements(str(field)) for field in form]
    assert written == django_rendered
    assert [field.name for field, _ in form.controls()] == [field.name for field in form]
