"""What one upload may make of a DNE scaling series (IOBOARD_SCALING_MAX_POINTS) and of a stack campaign
(IOBOARD_STACK_MAX_COMPONENTS, IOBOARD_STACK_MAX_MEASUREMENTS) is bounded: past the budget the upload is refused with a
message naming its file, and nothing of it is stored (issue 40, item 1)."""

import pytest

from apps.results.models import ScalingPoint, ScalingSeries, Stack
from tests.api.scaling.test_scaling_api import SLICE
from tests.api.stacks.test_stacks_api import CAMPAIGN
from tests.api.test_ownership_of_series_and_studies import upload
from tests.api.uploading import client_with_token, tar_gz_of

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("setting", "budget", "archive", "fields", "opening", "message", "unstored"),
    [
        pytest.param(
            "IOBOARD_SCALING_MAX_POINTS",
            119,  # the slice is 120 points
            SLICE,
            {"kind": "mdtest", "series": "wide", "name": "slice.tgz"},
            "slice.tgz: series 'wide' would hold 120 points, more than the 119",
            "120 points",
            (ScalingSeries, ScalingPoint),
            id="series points",
        ),
        pytest.param(
            "IOBOARD_STACK_MAX_MEASUREMENTS",
            57,
            CAMPAIGN,
            {"kind": "stack", "stack": "big", "name": "beacon.tgz"},
            "beacon.tgz: the stack ",
            "58 measurements, more than the 57 a stack may have",
            (Stack,),
            id="stack measurements",
        ),
        pytest.param(
            "IOBOARD_STACK_MAX_COMPONENTS",
            3,
            CAMPAIGN,
            {"kind": "stack", "stack": "big", "name": "beacon.tgz"},
            "beacon.tgz: the stack ",
            "components, more than the 3 a stack may have",
            (Stack,),
            id="stack components",
        ),
    ],
)
def test_an_upload_past_a_budget_is_refused_naming_the_file_and_stores_nothing(
    alice,
    settings,
    private_storage,
    celery_eager,
    django_capture_on_commit_callbacks,
    setting,
    budget,
    archive,
    fields,
    opening,
    message,
    unstored,
):
    setattr(settings, setting, budget)

    status = upload(client_with_token(alice), tar_gz_of(archive), django_capture_on_commit_callbacks, **fields)

    assert status["status"] == "failed"
    assert status["error"].startswith(opening)
    assert message in status["error"]
    assert setting in status["error"]
    for model in unstored:
        assert not model.objects.exists()


def test_a_series_within_the_budget_is_stored(
    alice, settings, private_storage, celery_eager, django_capture_on_commit_callbacks
):
    settings.IOBOARD_SCALING_MAX_POINTS = 120

    status = upload(
        client_with_token(alice), tar_gz_of(SLICE), django_capture_on_commit_callbacks, kind="mdtest", series="s"
    )

    assert status["status"] == "done", status["error"]
    assert ScalingSeries.objects.get(name="s").points.count() == 120
