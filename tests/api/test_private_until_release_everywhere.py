"""Private until release on every other surface (issue 37, item 5): series, studies, stacks, custom lists, feeds.

Alice uploads to edition sc26, besides the accepted IO500 run of tests/api/test_private_until_release.py, a DNE
scaling series (kind=mdtest), an IOR study (kind=ior) and a stack campaign (kind=stack) naming the same new system.
Bob saved a custom list before. Until staff freeze sc26, anonymous readers and bob read every surface exactly as
before the uploads, and the addresses of alice's series, study and stack answer as those of rows that do not exist.
At the release all of it is there at once.
"""

from pathlib import Path

import pytest
from rest_framework.test import APIClient

from apps.results.models import ScalingSeries, Stack, Study
from apps.results.services.custom_lists import save_custom_list
from tests.api.embargo import EDITION, read_all, release, signed_in
from tests.api.test_ownership_attacks import archive
from tests.api.uploading import client_with_token, named_file, tar_gz_of

DATA = Path(__file__).resolve().parents[1] / "data"
DNE = DATA / "mdtest" / "dne-campaign-slice"
IOR = DATA / "ior" / "study-slice"
CAMPAIGN = DATA / "stack" / "beacon-io2"

SERIES, STUDY, STACK = "wolf-dne", "wolf-hints", "wolf-campaign"

LISTING_SURFACES = [
    "/",
    "/scaling/",
    "/studies/",
    "/stacks/",
    "/stacks/compare/",
    "/systems/",
    "/systems/?q=wolf",
    "/compare/?q=wolf",
    "/lists/custom/{custom}/",
    "/lists/custom/{custom}/export.csv",
    "/lists/custom/{custom}/export.json",
    "/changes/feed/",
    "/api/v1/custom-lists/{custom}/",
    "/api/v1/scaling-series/",
    "/api/v1/studies/",
    "/api/v1/stacks/",
    "/api/v1/stack-components/",
    "/api/v1/stack-measurements/",
    "/api/v1/systems/",
    "/api/v1/changes/",
]
OWN_ADDRESSES = [
    "/scaling/{series}/",
    "/studies/{study}/",
    "/stacks/{stack}/",
    "/api/v1/scaling-series/{series}/",
    "/api/v1/studies/{study}/",
    "/api/v1/stacks/{stack}/",
    "/api/v1/stacks/{stack}/export/",
]
MISSING = {"series": 99999, "study": 99999, "stack": "no-such-stack"}


def upload(client, data: bytes, capture, edition: str = EDITION, **fields) -> dict:
    with capture(execute=True):
        response = client.post(
            "/api/v1/uploads/", {"file": named_file(data, "logs.tgz"), "edition": edition, **fields}, format="multipart"
        )
    assert response.status_code == 202, response.content
    status = client.get(response.json()["status_url"]).json()
    assert status["status"] == "done", status["error"]
    return status


@pytest.fixture
def bobs_custom_list(bob, public_run, celery_eager, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        custom = save_custom_list("bob's", "bw * md", "full", owner=bob)
    return custom.token


@pytest.fixture
def alices_campaign(alice, private_storage, celery_eager, django_capture_on_commit_callbacks, request) -> dict:
    """Alice's series, study and stack, all submitted to sc26 and naming her embargoed run's new system, Wolf."""
    run, _ = request.getfixturevalue("embargoed")
    owner = client_with_token(alice)
    wolf = {"institution": "Intel", "system": "Wolf", "filesystem": "DAOS"}
    capture = django_capture_on_commit_callbacks
    upload(owner, tar_gz_of(DNE), capture, kind="mdtest", series=SERIES, **wolf)
    study_logs = archive({"CephFS": IOR / "CephFS", "manifest.csv": IOR / "manifest.csv"})
    upload(owner, study_logs, capture, kind="ior", study=STUDY, **wolf)
    upload(owner, tar_gz_of(CAMPAIGN), capture, kind="stack", stack=STACK, **wolf)
    return {
        "run": run.pk,
        "system": run.system_id,
        "series": ScalingSeries.objects.get(name=SERIES).pk,
        "study": Study.objects.get(name=STUDY).pk,
        "stack": STACK,
    }


def test_alices_series_study_and_stack_are_nothing_to_others_until_the_release(
    public_run, bobs_custom_list, bob, staff_client, request, django_capture_on_commit_callbacks
):
    readers = {"anonymous": APIClient(), "bob": signed_in(bob)}
    ids = {"custom": bobs_custom_list}
    before = {name: read_all(client, LISTING_SURFACES, **ids) for name, client in readers.items()}

    ids.update(request.getfixturevalue("alices_campaign"))

    leaks = []
    for name, client in readers.items():
        during = read_all(client, LISTING_SURFACES, **ids)
        leaks += [(name, address) for address in LISTING_SURFACES if during[address] != before[name][address]]
        for address in OWN_ADDRESSES:
            assert client.get(address.format(**{**ids, **MISSING})).status_code == 404, (name, address)
            if client.get(address.format(**ids)).status_code != 404:
                leaks.append((name, address))
    assert leaks == [], "\n".join(map(str, leaks))


def dne_logs(*mds_counts: int) -> bytes:
    return archive({f"dne2_{count}_mds": DNE / f"dne2_{count}_mds" for count in mds_counts})


def test_points_alice_adds_to_her_public_series_study_and_stack_are_nothing_to_others_until_the_release(
    alice, bob, staff_client, private_storage, celery_eager, django_capture_on_commit_callbacks
):
    """Alice published a series, a study and a stack on system Emu; her later uploads to sc26 add points to the
    series and the study (and so to the stack page's IOR points against its ceiling). Others read the published
    points only: the counts, the points and the charts of before, until the release adds the new ones at once."""
    owner, capture = client_with_token(alice), django_capture_on_commit_callbacks
    emu = {"institution": "Intel", "system": "Emu", "filesystem": "Lustre"}
    upload(owner, dne_logs(1, 2), capture, edition="", kind="mdtest", series=SERIES, **emu)
    upload(owner, archive({"Lustre": IOR / "Lustre"}), capture, edition="", kind="ior", study=STUDY, **emu)
    upload(owner, tar_gz_of(CAMPAIGN), capture, edition="", kind="stack", stack=STACK, **emu)
    stack = Stack.objects.get(name=STACK)
    Study.objects.filter(name=STUDY).update(system=stack.system)  # staff place the study on Emu in the admin
    ids = {"series": ScalingSeries.objects.get(name=SERIES).pk, "study": Study.objects.get(name=STUDY).pk}
    ids["stack"] = STACK
    assert "Lustre/MPIIO" in APIClient().get(f"/stacks/{STACK}/").content.decode()  # its IOR points
    surfaces = ["/", "/scaling/", "/studies/", "/api/v1/scaling-series/", "/api/v1/studies/", *OWN_ADDRESSES]
    readers = {"anonymous": APIClient(), "bob": signed_in(bob)}
    before = {name: read_all(client, surfaces, **ids) for name, client in readers.items()}

    upload(owner, dne_logs(16), capture, kind="mdtest", series=SERIES, **emu)
    upload(owner, archive({"CephFS": IOR / "CephFS"}), capture, kind="ior", study=STUDY, **emu)

    for name, client in readers.items():
        during = read_all(client, surfaces, **ids)
        assert [address for address in surfaces if during[address] != before[name][address]] == [], name
    owners_view = signed_in(alice).get(f"/api/v1/scaling-series/{ids['series']}/").json()
    assert {point["mdt_count"] for point in owners_view["points"]} == {1, 2, 16}

    release(staff_client, django_capture_on_commit_callbacks)

    anonymous = APIClient()
    series = anonymous.get(f"/api/v1/scaling-series/{ids['series']}/").json()
    assert {point["mdt_count"] for point in series["points"]} == {1, 2, 16}
    study = anonymous.get(f"/api/v1/studies/{ids['study']}/").json()
    assert {point["source"].split("/")[0] for point in study["points"]} == {"CephFS", "Lustre"}
    assert "CephFS/MPIIO" in anonymous.get(f"/stacks/{STACK}/").content.decode()
