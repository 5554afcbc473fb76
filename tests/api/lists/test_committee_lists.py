"""Acceptance, through the API alone, as the IO500 committee would work a BoF.

Submitters upload six real submissions (fixtures/demo) with questionnaires and production declarations, one of
them in its archive's ioboard.yaml; staff review them (status, level, production acceptance, a checklist item),
and freeze the edition "SC25". Then the six lists, the twelve awards and the citations must be what the IO500
rules say (io500.org "The Lists"): production lists hold accepted runs at the highest level with an accepted
declaration, made after the SC21 split; research lists hold the other accepted runs, best per system; the full
list every accepted valid run; the historic list every submission. Anonymous readers never see an unaccepted run
on a ranked list.

Expected scores are the recomputed totals of ../shared/io500-corpus/expected.csv (rows of submissions 8, 13, 678
and 744), copied here so the test runs without ../shared; the orders below follow from them by hand.
"""

import json
import shutil

import pytest

from tests.api.uploading import DEMO, named_file, tar_gz_of

pytestmark = pytest.mark.django_db

UPLOADS = "/api/v1/uploads/"

# Submission folder → (upload fields, expected recomputed total from expected.csv).
WOLF = ("Intel/Wolf/DAOS/2020/submission-8", 736.332861455)
FRONTERA = ("TACC/Frontera/DAOS/2020/submission-13", 507.129018011)
ORION = (
    "Mississippi State University High Performance Computing Collaboratory/Orion/Lustre/2023/submission-678",
    20.83351732,
)
GWDG = ("GWDG/Future Technology Platform/Lustre/2025/submission-744", 22.076675244)
BEAR = ("University of Birmingham/BEAR-AI/ai/2019/submission-148", None)
MISTRAL = ("German Climate Computing Center/Mistral/Lustre01/2020/submission-185", None)

ANSWER = "This section is answered in full with more than ten words, as the questionnaire requires of every reply."
FULL_QUESTIONNAIRE = {
    section: ANSWER
    for section in (
        "purpose",
        "availability",
        "runtime_environment",
        "fault_tolerance",
        "execution",
        "caching",
        "data_source",
        "trust",
        "expected_score",
    )
}
FULL_QUESTIONNAIRE["software"] = {"description": ANSWER, "obtainable": "open-source"}
PRODUCTION_DECLARATION = {
    "production_applications": True,
    "no_single_point_of_failure": True,
    "description": "Climate and CFD codes every day; dual-ported storage, failover servers.",
}


def fields_for(folder: str, client_nodes: int) -> dict:
    institution, system, filesystem = folder.split("/")[:3]
    return {
        "institution": institution,
        "system": system,
        "filesystem": filesystem,
        "storage_vendor": "Vendor",
        "server_count": 8,
        "client_nodes": client_nodes,
    }


def archive(tmp_path, folder: str, sidecar: str | None = None) -> bytes:
    copy = tmp_path / folder.replace("/", "_")
    shutil.copytree(DEMO / folder, copy)
    if sidecar is not None:
        (copy / "ioboard.yaml").write_text(sidecar)
    return tar_gz_of(copy)


def submit(
    client,
    capture,
    tmp_path,
    folder: str,
    client_nodes: int,
    reproducibility: dict | None = None,
    sidecar: str | None = None,
) -> int:
    fields = fields_for(folder, client_nodes)
    if reproducibility is not None:
        fields["reproducibility"] = json.dumps(reproducibility)
    with capture(execute=True):  # the ingest task runs when the upload's transaction commits
        response = client.post(
            UPLOADS, {"file": named_file(archive(tmp_path, folder, sidecar), "run.tgz"), **fields}, format="multipart"
        )
    assert response.status_code == 202, response.content
    status = client.get(response.json()["status_url"]).json()
    assert status["status"] == "done", status["error"]
    (run,) = status["runs"]
    return run["id"]


def ranked(client, path: str) -> list[tuple[int, int]]:
    return [(row["run"], row["rank"]) for row in client.get(path).json()["results"] if row["rank"] is not None]


@pytest.fixture
def bof(alice_client, staff_client, private_storage, celery_eager, django_capture_on_commit_callbacks, tmp_path):
    """The submissions, reviewed and frozen as SC25."""
    on_commit = django_capture_on_commit_callbacks
    with django_capture_on_commit_callbacks(execute=True):
        runs = {
            "wolf": submit(
                alice_client,
                on_commit,
                tmp_path,
                WOLF[0],
                10,
                {"questionnaire": {"purpose": ANSWER}, "target_list": "research"},
            ),
            # Declares production and will be given the highest level, but ran before the split (2020).
            "frontera": submit(
                alice_client,
                on_commit,
                tmp_path,
                FRONTERA[0],
                420,
                {
                    "questionnaire": FULL_QUESTIONNAIRE,
                    "production": PRODUCTION_DECLARATION,
                    "target_level": "fully_reproducible",
                    "target_list": "production",
                },
            ),
            # The questionnaire and declaration come from the archive's ioboard.yaml.
            "orion": submit(
                alice_client,
                on_commit,
                tmp_path,
                ORION[0],
                10,
                sidecar=(
                    "reproducibility:\n"
                    "  target_level: fully_reproducible\n  target_list: production\n"
                    "  production:\n    production_applications: true\n    no_single_point_of_failure: true\n"
                    "  acknowledgements:\n    rules: true\n    publication: true\n"
                    "  questionnaire:\n"
                    + "".join(f"    {name}: {ANSWER}\n" for name in FULL_QUESTIONNAIRE if name != "software")
                    + f"    software:\n      description: {ANSWER}\n      obtainable: open-source\n"
                ),
            ),
            # Declares production; the committee finds it Proprietary: not the highest level, so research.
            "gwdg": submit(
                alice_client,
                on_commit,
                tmp_path,
                GWDG[0],
                21,
                {
                    "questionnaire": FULL_QUESTIONNAIRE,
                    "production": PRODUCTION_DECLARATION,
                    "target_level": "fully_reproducible",
                    "target_list": "production",
                },
            ),
            "bear": submit(alice_client, on_commit, tmp_path, BEAR[0], 10, {"questionnaire": {"purpose": ANSWER}}),
            "mistral": submit(alice_client, on_commit, tmp_path, MISTRAL[0], 10),
        }
        staff_client.post(
            "/api/v1/rules-editions/",
            {"name": "sc25", "since": "2025-06-01", "checklist": ["result files complete", "questionnaire read"]},
            format="json",
        )
        decisions = {
            "wolf": {"status": "accepted", "level": "limited"},
            "frontera": {"status": "accepted", "level": "fully_reproducible", "production_accepted": True},
            "orion": {"status": "accepted", "level": "fully_reproducible", "production_accepted": True},
            "gwdg": {"status": "accepted", "level": "proprietary", "production_accepted": True},
            "bear": {"status": "rejected", "note": "system information missing"},
        }  # mistral stays "submitted": never reviewed
        for name, decision in decisions.items():
            response = staff_client.post(f"/api/v1/runs/{runs[name]}/review/", decision, format="json")
            assert response.status_code == 200, response.content
        response = staff_client.post(
            f"/api/v1/runs/{runs['orion']}/checks/",
            {"rules_edition": "sc25", "item": "questionnaire read", "passed": True},
            format="json",
        )
        assert response.status_code == 201, response.content
        response = staff_client.post(
            "/api/v1/editions/freeze/", {"name": "SC25", "rules_edition": "sc25"}, format="json"
        )
        assert response.status_code == 201, response.content
    return runs


def test_uploaded_scores_are_the_corpus_scores(bof, anonymous_client):
    for name, (_, expected) in {"wolf": WOLF, "frontera": FRONTERA, "orion": ORION, "gwdg": GWDG}.items():
        run = anonymous_client.get(f"/api/v1/runs/{bof[name]}/").json()
        assert run["score"]["total"] == pytest.approx(expected, rel=1e-6)
        assert run["verification"]["ranked"] is True, run["verification"]["exclusion_reason"]


def test_the_six_lists_follow_the_rules(bof, anonymous_client):
    wolf, frontera, orion, gwdg = bof["wolf"], bof["frontera"], bof["orion"], bof["gwdg"]
    assert ranked(anonymous_client, "/api/v1/lists/production/") == [(orion, 1)]
    assert ranked(anonymous_client, "/api/v1/lists/ten-node-production/") == [(orion, 1)]
    # Research: everything accepted and not production, pre-split production declarations included.
    assert ranked(anonymous_client, "/api/v1/lists/io500/") == [(wolf, 1), (frontera, 2), (gwdg, 3)]
    assert ranked(anonymous_client, "/api/v1/lists/ten-node/") == [(wolf, 1)]
    assert ranked(anonymous_client, "/api/v1/lists/full/") == [(wolf, 1), (frontera, 2), (gwdg, 3), (orion, 4)]
    historic = {row["run"]: row["rank"] for row in anonymous_client.get("/api/v1/lists/historic/").json()["results"]}
    assert set(historic) == set(bof.values())  # every submission ever received
    assert historic[bof["bear"]] is None
    assert historic[bof["mistral"]] is None


def test_anonymous_readers_never_see_unaccepted_runs_on_ranked_lists(bof, anonymous_client):
    unaccepted = {bof["bear"], bof["mistral"]}
    for kind in ("io500", "ten-node", "production", "ten-node-production", "full"):
        rows = anonymous_client.get(f"/api/v1/lists/{kind}/").json()["results"]
        assert unaccepted.isdisjoint(row["run"] for row in rows), kind
    assert anonymous_client.get(f"/api/v1/runs/{bof['mistral']}/review/").status_code in (401, 403)


def test_the_edition_freezes_each_list_under_its_rules(bof, anonymous_client):
    editions = anonymous_client.get("/api/v1/editions/?page_size=50").json()["results"]
    assert sorted((edition["list_kind"], edition["entry_count"], edition["rules_edition"]) for edition in editions) == [
        ("full", 4, "sc25"),
        ("historic", 6, "sc25"),
        ("io500", 3, "sc25"),
        ("production", 1, "sc25"),
        ("ten-node", 1, "sc25"),
        ("ten-node-production", 1, "sc25"),
    ]


def test_the_twelve_awards_come_from_the_frozen_lists(bof, anonymous_client):
    awards = anonymous_client.get("/api/v1/editions/SC25/awards/").json()
    winners = {(award["list"], award["category"]): award["winner"]["run"] for award in awards}
    # Wolf leads the research lists on every measure (bw 163.2 > 78.5 > 6.5 GiB/s, md 3322 > 3277 > 75 kIOPS).
    assert winners == {
        **{("io500", category): bof["wolf"] for category in ("overall", "bandwidth", "metadata")},
        **{("ten-node", category): bof["wolf"] for category in ("overall", "bandwidth", "metadata")},
        **{("production", category): bof["orion"] for category in ("overall", "bandwidth", "metadata")},
        **{("ten-node-production", category): bof["orion"] for category in ("overall", "bandwidth", "metadata")},
    }


def test_citations_name_the_placement_and_the_verification(bof, anonymous_client):
    run = anonymous_client.get(f"/api/v1/runs/{bof['orion']}/").json()
    label = "verified" if run["verification"]["result_hash"] == "verified" else "unverified"
    texts = {(citation["text"], citation["label"]) for citation in run["citations"]}
    assert ("#1 on the Production list at SC25", label) in texts
    assert ("#1 on the 10 client-node Production list at SC25", label) in texts
    assert ("#1 on the Production list (live list)", label) in texts

    rows = anonymous_client.get("/api/v1/lists/io500/").json()["results"]
    assert rows[1]["citation"]["text"] == "#2 on the Research list (live list)"
    edition = next(
        edition
        for edition in anonymous_client.get("/api/v1/editions/?page_size=50").json()["results"]
        if edition["list_kind"] == "io500"
    )
    entries = anonymous_client.get(f"/api/v1/editions/{edition['id']}/").json()["entries"]
    assert [entry["citation"]["text"] for entry in entries] == [
        "#1 on the Research list at SC25",
        "#2 on the Research list at SC25",
        "#3 on the Research list at SC25",
    ]


def test_compare_warns_when_runs_come_from_a_research_and_a_production_list(bof, anonymous_client):
    mixed = anonymous_client.get(f"/api/v1/runs/compare/?runs={bof['orion']},{bof['gwdg']}").json()
    same = anonymous_client.get(f"/api/v1/runs/compare/?runs={bof['wolf']},{bof['gwdg']}").json()
    assert "different lists" in mixed["list_warning"]
    assert same["list_warning"] == ""


def test_staff_see_the_completeness_the_proposed_and_the_assigned_levels(bof, staff_client, anonymous_client):
    review = staff_client.get(f"/api/v1/runs/{bof['orion']}/review/").json()
    assert review["review_status"] == "accepted"
    assert review["reproducibility"]["sections_answered"] == 10
    assert review["reproducibility"]["target_level"] == "fully_reproducible"
    assert review["reproducibility"]["assigned_level"] == "fully_reproducible"
    assert review["reproducibility"]["production_declared"] is True
    assert review["reproducibility"]["acknowledgements"] == {"rules": True, "publication": True}
    assert [(row["item"], row["passed"], row["checked_by"]) for row in review["checklists"]["sc25"]] == [
        ("result files complete", None, None),
        ("questionnaire read", True, "staff"),
    ]
    assert any("production declaration accepted" in note["text"] for note in review["notes"])
    wolf = staff_client.get(f"/api/v1/runs/{bof['wolf']}/review/").json()["reproducibility"]
    assert wolf["sections_answered"] == 1
    assert wolf["proposed_level"] == "undefined"

    public = anonymous_client.get(f"/api/v1/runs/{bof['orion']}/").json()["reproducibility"]
    assert "assigned_level" not in public
    assert public["sections_answered"] == 10


def test_staff_only_review_and_freeze(bof, alice_client):
    assert (
        alice_client.post(f"/api/v1/runs/{bof['mistral']}/review/", {"status": "accepted"}, format="json").status_code
        == 403
    )
    assert alice_client.post("/api/v1/editions/freeze/", {"name": "ISC26"}, format="json").status_code == 403


@pytest.mark.django_db
def test_a_rules_edition_name_with_a_nul_character_is_unknown_not_a_server_error(staff_client):
    response = staff_client.post("/api/v1/editions/freeze/", {"name": "sc26", "rules_edition": "\x00"}, format="json")
    assert response.status_code == 400
    assert "rules_edition" in response.json()


def test_a_bad_questionnaire_is_refused_naming_the_key(alice_client, private_storage):
    response = alice_client.post(
        UPLOADS,
        {
            "file": named_file(tar_gz_of(DEMO / WOLF[0]), "run.tgz"),
            "reproducibility": json.dumps({"questionnaire": {"purpose": ANSWER, "astrology": ANSWER}}),
        },
        format="multipart",
    )
    assert response.status_code == 400
    assert "astrology" in response.json()["reproducibility"][0]
