"""Names and free text from uploads are shown as text on every page, never as markup."""

import re

import pytest

from apps.results.models import PhaseResult
from apps.results.services.editions import freeze_edition
from tests.factories import AnomalyFactory, LustrePatchFactory, RunFactory, StorageSystemFactory, TunableFactory

pytestmark = pytest.mark.django_db

HOSTILE = "<script>alert(1)</script>"
SHOWN = "&lt;script&gt;alert(1)&lt;/script&gt;"


@pytest.fixture
def hostile_runs():
    system = StorageSystemFactory(
        name=HOSTILE,
        institution__name=f"Evil {HOSTILE}",
        storage_vendor=HOSTILE,
        filesystem=HOSTILE,
        description=HOSTILE,
    )
    first = RunFactory(
        system=system,
        config={HOSTILE: HOSTILE},
        info={"system": HOSTILE},
        exclusion_reason="",
        lustre_build=LustrePatchFactory(summary=HOSTILE, ticket="LU-1").build,
    )
    second = RunFactory(system=system, score_bw=50, exclusion_reason=HOSTILE, benchmark_version=HOSTILE)
    PhaseResult.objects.filter(run=first).update(command=HOSTILE)
    AnomalyFactory(run=first, rule=HOSTILE, message=HOSTILE, evidence={HOSTILE: [HOSTILE]})
    TunableFactory(run=second, parameter=HOSTILE, value=HOSTILE)
    freeze_edition("ISC19", "io500")
    return first, second


@pytest.mark.parametrize(
    "url",
    [
        "/",
        "/lists/io500/",
        "/lists/historic/",
        "/lists/ten-node/?search=<script>",
        "/editions/ISC19/",
        "/runs/{first}/",
        "/runs/{second}/",
        "/systems/{system}/",
        "/compare/?runs={first},{second}",
    ],
)
def test_a_system_named_like_a_script_is_shown_as_text(client, hostile_runs, url):
    first, second = hostile_runs
    response = client.get(url.format(first=first.pk, second=second.pk, system=first.system_id))
    assert response.status_code == 200
    html = response.content.decode()
    assert HOSTILE not in html
    chart_data = re.findall(r'<script id="[\w-]+" type="application/json">(.*?)</script>', html, re.S)
    assert all("<" not in data and ">" not in data for data in chart_data)  # json_script escapes them
    markup = re.sub(r'<script id="[\w-]+" type="application/json">.*?</script>', "", html, flags=re.S)
    assert SHOWN in markup
    assert "alert(1)" not in markup.replace(SHOWN, "")
