"""Rules editions are the rules checker's editions: named after one, with a checklist of the clauses a reviewer
checks by hand, and the review shows how the run fares on each clause its files can show."""

import pytest

from apps.results.judgements.anomalies import PhaseFacts, RunFacts
from tests.factories import AnomalyFactory, RunFactory

pytestmark = pytest.mark.django_db

IOR_WRITE = "./ior -C -Q 1 -g -G 27 -k -e -w -D 300 -O stoneWallingWearOut=1 -a POSIX"


def create(client, **fields):
    return client.post("/api/v1/rules-editions/", {"since": "2025-06-01", **fields}, format="json")


def test_a_rules_edition_is_named_after_an_edition_of_the_rules(staff_client):
    refused = create(staff_client, name="sc25-rules")
    assert refused.status_code == 400
    assert "sc25-rules" in refused.json()["name"][0]
    assert create(staff_client, name="sc25").status_code == 201


def test_a_new_edition_starts_with_the_clauses_no_file_shows(staff_client):
    # From SC23 on, the questionnaire and the single point of failure (production list) join the accuracy of the
    # system description, which the committee has always judged by hand.
    assert create(staff_client, name="sc25").json()["checklist"] == [
        "IO500-REPRODUCIBILITY",
        "IO500-NO-SPOF",
        "IO500-SYSTEM-DESCRIPTION",
    ]
    assert create(staff_client, name="sc19", since="2019-06-01").json()["checklist"] == ["IO500-SYSTEM-DESCRIPTION"]
    assert create(staff_client, name="isc24", since="2024-01-01", checklist=["result files complete"]).json()[
        "checklist"
    ] == ["result files complete"]


def test_the_review_shows_the_clause_outcomes_and_the_checklist_of_clauses(staff_client):
    facts = RunFacts(
        era="capp",
        benchmark_version="io500-sc23_v1",
        run_date="2023-10-25",
        stonewall_seconds=300,
        phases={"ior_easy_write": PhaseFacts(value=4.0, seconds=208.0, command=IOR_WRITE)},
    )
    run = RunFactory(facts=facts.to_dict())
    AnomalyFactory(run=run, rule="write_phase_under_minimum", severity="error")
    create(staff_client, name="sc23", since="2023-06-01")
    checked = staff_client.post(
        f"/api/v1/runs/{run.pk}/checks/",
        {"rules_edition": "sc23", "item": "IO500-NO-SPOF", "passed": True},
        format="json",
    )
    assert checked.status_code == 201, checked.content

    review = staff_client.get(f"/api/v1/runs/{run.pk}/review/").json()
    assert review["clauses"]["edition"] == "sc23"
    outcomes = {row["clause"]: row["outcome"] for row in review["clauses"]["outcomes"]}
    assert outcomes["IO500-WRITE-300S"] == "fail"  # 208 s of writing, and the rule said so
    assert outcomes["IO500-STONEWALL-TIME"] == "pass"
    assert outcomes["IO500-NO-SPOF"] == "not_checkable"
    spof = next(row for row in review["checklists"]["sc23"] if row["item"] == "IO500-NO-SPOF")
    assert spof["clause"] == "Production list systems have no single point of failure."
    assert (spof["passed"], spof["checked_by"]) == (True, "staff")
