"""Custom lists through the API: saved, shared by a stable link, exportable; hostile equations refused with 400."""

import math
import random

import pytest

from apps.results.judgements.scoring.io500 import BW_PHASES, MD_PHASES
from apps.results.models import CustomList, PhaseResult
from tests.factories import RunFactory

pytestmark = pytest.mark.django_db

# The IO500 score written as an equation: the square root of the product of the geometric means of the four
# bandwidth and the eight metadata phases (io500.org, "Score").
SCORE_EQUATION = f"sqrt(({' * '.join(BW_PHASES)}) ^ (1/4) * ({' * '.join(MD_PHASES)}) ^ (1/8))"


def runs_with_random_phases(count: int, seed: int = 7):
    """Runs whose stored scores are computed here, by hand, from their phase values."""
    rng = random.Random(seed)
    runs = []
    for _ in range(count):
        values = {name: rng.uniform(1, 500) for name in (*BW_PHASES, *MD_PHASES)}
        bw = math.prod(values[name] for name in BW_PHASES) ** (1 / 4)
        md = math.prod(values[name] for name in MD_PHASES) ** (1 / 8)
        run = RunFactory(score_bw=bw, score_md=md, score_total=math.sqrt(bw * md), phases=False)
        PhaseResult.objects.bulk_create(
            PhaseResult(
                run=run, name=name, position=position, value=value, unit="GiB/s" if name in BW_PHASES else "kIOPS"
            )
            for position, (name, value) in enumerate(values.items())
        )
        runs.append(run)
    return runs


@pytest.fixture
def save(celery_eager, django_capture_on_commit_callbacks):
    """POST a custom list; the fill task enqueued on commit runs in-process before the answer is read."""

    def post(client, equation: str, **fields):
        with django_capture_on_commit_callbacks(execute=True):
            return post_list(client, equation, **fields)

    return post


def post_list(client, equation: str, **fields):
    return client.post("/api/v1/custom-lists/", {"name": "mine", "equation": equation, **fields}, format="json")


def test_the_score_formula_ranks_as_the_built_in_score(save, alice_client, anonymous_client):
    runs = runs_with_random_phases(12)
    saved = save(alice_client, SCORE_EQUATION, base_list="full")
    assert saved.status_code == 201, saved.content

    custom = anonymous_client.get(f"/api/v1/custom-lists/{saved.json()['token']}/").json()
    built_in = anonymous_client.get("/api/v1/lists/full/").json()["results"]
    assert [(row["run"], row["rank"]) for row in custom["rows"]] == [(row["run"], row["rank"]) for row in built_in]
    by_run = {run.pk: run.score_total for run in runs}
    for row in custom["rows"]:
        assert row["value"] == pytest.approx(by_run[row["run"]], rel=1e-9)


def test_a_saved_list_is_shared_by_its_link_and_exported(save, alice_client, client):
    runs_with_random_phases(3)
    saved = save(alice_client, "ior_easy_write / mdtest_easy_write").json()
    assert saved["url"].endswith(f"/lists/custom/{saved['token']}/")
    page = client.get(f"/lists/custom/{saved['token']}/")
    assert page.status_code == 200
    assert "ior_easy_write / mdtest_easy_write" in page.content.decode()
    exported = b"".join(client.get(f"/lists/custom/{saved['token']}/export.csv").streaming_content).decode()
    header, *lines = exported.strip().splitlines()
    assert "rank" in header.split(",")
    assert "equation_value" in header.split(",")
    assert len(lines) == 3


@pytest.mark.parametrize(
    ("equation", "position"),
    [
        ("__import__(os)", 0),
        ("score.__class__.__mro__", 5),
        ("2 ^ 100000", 4),
        ("bw ^ (10 * 10000)", 5),  # computed, yet huge: refused at save, not left to unrank every run
        ("2 ^ mdtest_easy_write", 4),
        ("score + " * 100 + "score", 500),
        ("sqrt(ior_easy_write", 19),
    ],
)
def test_hostile_equations_get_400_with_the_position(save, alice_client, equation, position):
    response = save(alice_client, equation)
    assert response.status_code == 400
    assert response.json()["position"] == position
    assert response.json()["equation"]


def test_an_unknown_base_list_is_refused(save, alice_client):
    assert save(alice_client, "score", base_list="top10").status_code == 400


def test_saving_needs_an_account(save, anonymous_client):
    assert save(anonymous_client, "score").status_code == 401


def test_rows_come_a_page_at_a_time(save, alice_client, anonymous_client):
    runs_with_random_phases(5)
    token = save(alice_client, "score", base_list="full").json()["token"]
    first = anonymous_client.get(f"/api/v1/custom-lists/{token}/?page_size=2").json()
    assert (first["complete"], first["members"], first["count"]) == (True, 5, 5)
    assert [row["rank"] for row in first["rows"]] == [1, 2]
    assert first["previous"] is None
    last = anonymous_client.get(first["next"].replace("http://testserver", "")).json()
    last = anonymous_client.get(last["next"].replace("http://testserver", "")).json()
    assert [row["rank"] for row in last["rows"]] == [5]
    assert last["next"] is None


def test_a_list_whose_fill_has_not_run_says_it_is_being_ranked(
    alice_client, client, django_capture_on_commit_callbacks
):
    runs_with_random_phases(3)
    with django_capture_on_commit_callbacks(execute=False):  # the fill task is enqueued, not run
        token = post_list(alice_client, "score").json()["token"]
    page = client.get(f"/lists/custom/{token}/").content.decode()
    assert "Being ranked: the equation has been evaluated for 0 of the 3 runs" in page
    answer = client.get(f"/api/v1/custom-lists/{token}/").json()
    assert (answer["complete"], answer["members"], answer["count"], answer["rows"]) == (False, 3, 0, [])


def test_a_saved_list_belongs_to_the_account_that_saved_it(alice_client, alice, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        token = post_list(alice_client, "score").json()["token"]
    assert CustomList.objects.get(token=token).owner == alice


def test_an_account_keeps_at_most_the_configured_number_of_lists(
    alice_client, bob_client, settings, django_capture_on_commit_callbacks
):
    settings.IOBOARD_CUSTOM_LISTS_PER_USER = 3
    with django_capture_on_commit_callbacks(execute=False):
        statuses = [post_list(alice_client, "score").status_code for _ in range(5)]
        refused = post_list(alice_client, "bw")
        bobs = post_list(bob_client, "score")

    assert statuses == [201, 201, 201, 403, 403]
    assert "at most 3 custom lists" in refused.json()["detail"]
    assert bobs.status_code == 201  # the cap is per account
    assert CustomList.objects.count() == 4
