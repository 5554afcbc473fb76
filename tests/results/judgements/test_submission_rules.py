"""Submission-rule clauses: IDs, editions, the clause checks, the coverage command and the run page."""

import dataclasses

import pytest
from django.core.management import CommandError, call_command

from apps.results.judgements.anomalies import RULES, PhaseFacts, RunFacts
from apps.results.judgements.submission_rules import (
    CLAUSES,
    Clause,
    check_clauses,
    clause_by_id,
    clauses_for,
    find_executable,
    rules_edition_of_date,
    target_rules_edition,
)
from tests.factories import AnomalyFactory, RunFactory

IOR_WRITE = "./ior --dataPacketType=timestamp -C -Q 1 -g -G 27 -k -e -w -D 300 -O stoneWallingWearOut=1 -a POSIX"


def capp_run(**changes) -> RunFacts:
    facts = RunFacts(
        era="capp", benchmark_version="io500-sc23_v1", run_date="2023-10-25", stonewall_seconds=300,
        phases={"ior_easy_write": PhaseFacts(value=4.0, seconds=508.0, command=IOR_WRITE),
                "ior_hard_write": PhaseFacts(value=1.0, seconds=1181.0, command=IOR_WRITE),
                "find": PhaseFacts(value=400.0, command="./pfind ./datafiles -newer ./timestampfile -size 3901c")},
    )  # fmt: skip
    return dataclasses.replace(facts, **changes)


def outcome(outcomes, clause_id):
    return next(item.outcome for item in outcomes if item.clause.id == clause_id)


def test_clause_ids_are_unique_and_every_anomaly_rule_names_a_known_clause_or_none():
    ids = [clause.id for clause in CLAUSES]
    assert len(ids) == len(set(ids))
    assert {rule.clause for rule in RULES.values()} - {""} <= set(ids)
    assert RULES["write_phase_under_minimum"].clause == "IO500-WRITE-300S"


def test_clauses_apply_from_their_first_edition_to_their_last():
    assert "IO500-RANK-SHIFT" not in [c.id for c in clauses_for("isc19")]
    assert "IO500-RANK-SHIFT" in [c.id for c in clauses_for("sc19")]
    assert "IO500-SC18-MDTEST-RATE" in [c.id for c in clauses_for("isc19")]
    assert "IO500-SC18-MDTEST-RATE" not in [c.id for c in clauses_for("sc19")]


@pytest.mark.parametrize(
    ("date", "edition"),
    [("2019-05-31", "isc19"), ("2019-06-01", "sc19"), ("2019-11-30", "sc19"), ("2019-12-01", "isc20"), ("", None)],
)
def test_a_run_date_targets_the_next_list(date, edition):
    assert rules_edition_of_date(date) == edition


def test_the_release_tag_decides_the_edition_before_the_date():
    assert target_rules_edition(capp_run(run_date="2024-01-02")) == "sc23"
    assert target_rules_edition(RunFacts(era="script", run_date="2019-03-01")) == "isc19"


@pytest.mark.parametrize(
    ("command", "program"),
    [("./pfind /data -newer t", "pfind"),
     ("mpirun -np 420 -iface ib0 --hostfile h /opt/mfu/bin/dfind --pool p /mnt", "dfind"),
     (" /home/x/bin/srunfind.sh  /nvme/io500 -newer t", "srunfind.sh")],
)  # fmt: skip
def test_the_find_program_is_found_past_the_launcher(command, program):
    assert find_executable(command) == program


def test_a_clean_c_app_run_passes_the_clauses_it_can_be_judged_on():
    outcomes = check_clauses(capp_run(), rules_found=[])

    for clause_id in (
        "IO500-VALID",
        "IO500-STONEWALL-TIME",
        "IO500-STONEWALL-WEAROUT",
        "IO500-APP-VERSION",
        "IO500-UNMODIFIED-SOURCE",
        "IO500-WRITE-300S",
    ):
        assert outcome(outcomes, clause_id) == "pass", clause_id
    assert outcome(outcomes, "IO500-CUSTOM-FIND-SOURCES") == "not_applicable"
    assert outcome(outcomes, "IO500-REPRODUCIBILITY") == "not_checkable"


def test_a_finding_of_the_checking_rule_fails_its_clause():
    outcomes = check_clauses(capp_run(), rules_found=["cache_effect_read"])

    assert outcome(outcomes, "IO500-NO-CLIENT-CACHE") == "fail"


def test_clause_checks_fail_what_the_files_show():
    find = PhaseFacts(command="mpirun -np 10 ./bin/cfind.sh /data -newer t")
    facts = capp_run(
        benchmark_version="io500-sc20-26", run_date="2023-10-25", stonewall_seconds=30,
        phases={"ior_easy_write": PhaseFacts(command="./ior -w -D 300 -a POSIX"), "find": find},
    )  # fmt: skip

    outcomes = check_clauses(facts, rules_found=[], rules_edition="sc23")

    assert outcome(outcomes, "IO500-STONEWALL-WEAROUT") == "fail"
    assert outcome(outcomes, "IO500-APP-VERSION") == "fail"
    assert outcome(outcomes, "IO500-UNMODIFIED-SOURCE") == "fail"
    assert outcome(outcomes, "IO500-STONEWALL-TIME") == "fail"
    assert outcome(outcomes, "IO500-CUSTOM-FIND-SOURCES") == "fail"
    included = check_clauses(dataclasses.replace(facts, included_files=["bin/cfind.sh"]), [], rules_edition="sc23")
    assert outcome(included, "IO500-CUSTOM-FIND-SOURCES") == "pass"


def test_rules_coverage_passes_on_the_registry_and_docs(capsys):
    call_command("rules_coverage")

    assert f"{len(CLAUSES)} clauses covered" in capsys.readouterr().out


def test_rules_coverage_exits_1_for_an_unmapped_clause(monkeypatch, capsys):
    unmapped = Clause("IO500-NEW", "A clause nobody mapped yet.", status="")
    monkeypatch.setattr("apps.results.management.commands.rules_coverage.CLAUSES", (*CLAUSES, unmapped))

    with pytest.raises(CommandError) as caught:
        call_command("rules_coverage")

    assert caught.value.returncode == 1
    assert "IO500-NEW: unmapped" in capsys.readouterr().err


def test_rules_coverage_exits_1_when_the_docs_miss_a_clause(tmp_path, capsys):
    docs = tmp_path / "rules.md"
    docs.write_text("\n".join(clause.id for clause in CLAUSES if clause.id != "IO500-RANK-SHIFT"))

    with pytest.raises(CommandError) as caught:
        call_command("rules_coverage", "--docs", str(docs))

    assert caught.value.returncode == 1
    assert "IO500-RANK-SHIFT: not listed in docs/rules.md" in capsys.readouterr().err


def test_rules_coverage_exits_1_for_a_rule_naming_an_unknown_clause(monkeypatch, capsys):
    monkeypatch.setattr(RULES["duplicate_result"], "clause", "IO500-NO-SUCH-CLAUSE")

    with pytest.raises(CommandError):
        call_command("rules_coverage")

    assert "names unknown clause IO500-NO-SUCH-CLAUSE" in capsys.readouterr().err


@pytest.mark.django_db
def test_the_run_page_shows_the_clauses_of_the_targeted_edition(client):
    run = RunFactory(facts=capp_run().to_dict())
    AnomalyFactory(run=run, rule="cache_effect_read", severity="warn")

    html = client.get(f"/runs/{run.pk}/").content.decode()

    assert "Submission rules of SC23" in html
    row = html[html.index("IO500-NO-CLIENT-CACHE") :]
    assert row.index("fails") < row.index("</tr>")
    row = html[html.index("IO500-STONEWALL-WEAROUT") :]
    assert row.index("passes") < row.index("</tr>")
    assert clause_by_id("IO500-NO-SPOF").text in html
