"""Writes of runs are explicit: each verb of apps.results.services.runs brings the list entries, the custom lists and
the data version in line, once per write however many runs it holds; nothing else may write a run, no signal
receiver does upkeep, and the admin reviews through review_run."""

import pytest
from django.contrib import admin
from django.db.models.signals import post_delete, post_save, pre_delete, pre_save

from apps.results import tasks
from apps.results.models import ListEntry, ReviewNote, Run
from apps.results.models.querysets import RunWriteOutsideVerbs
from apps.results.services import freshness, list_entries, runs
from apps.results.services.custom_lists import save_custom_list
from tests.factories import RunFactory, StorageSystemFactory, UserFactory

pytestmark = pytest.mark.django_db


def listed(kind: str = "io500") -> dict[int, int | None]:
    return dict(ListEntry.objects.listed(kind).ranked_keys())


@pytest.fixture
def bumps(monkeypatch) -> list[str]:
    """The data-version bumps made (called at once, as after a commit)."""
    made = []
    monkeypatch.setattr(freshness, "bump_data_version", lambda: made.append("bump"))
    return made


@pytest.fixture
def committing(django_capture_on_commit_callbacks):
    return lambda: django_capture_on_commit_callbacks(execute=True)


def test_a_stored_run_is_listed_and_ranked_at_once_and_its_commit_bumps_the_version(bumps, committing):
    with committing():
        run = runs.store(
            system=StorageSystemFactory(),
            kind="io500",
            content_hash="c0ffee",
            source_path="A/B/C",
            identity="one",
            score_bw=100.0,
            score_md=400.0,
            score_total=200.0,
            client_nodes=10,
        )

    assert listed() == {run.pk: 1}
    assert bumps == ["bump"]


def test_an_edited_run_that_moves_system_leaves_the_old_system_s_entry(committing):
    first, second = StorageSystemFactory(), StorageSystemFactory()
    run = RunFactory(system=first, phases=False)

    run.system = second
    runs.edit(run)

    assert set(ListEntry.objects.filter(run=run).values_list("system_id", flat=True)) == {second.pk}


def test_a_deleted_run_leaves_every_list_and_its_system_s_next_best_run_takes_its_place(bumps, committing):
    system = StorageSystemFactory()
    best = RunFactory(system=system, score_bw=40, score_md=40, phases=False)
    second = RunFactory(system=system, score_bw=20, score_md=20, phases=False)
    assert listed() == {best.pk: 1}

    with committing():
        assert runs.delete([best]) == 1

    assert listed() == {second.pk: 1}
    assert not ListEntry.objects.filter(run_id=best.pk).exists()
    assert bumps == ["bump"]


def test_set_verdicts_takes_a_run_with_an_error_finding_off_the_ranked_list():
    run = RunFactory(phases=False)
    run.anomalies.create(rule="phase_too_short", severity="error", message="ran 95 s")

    runs.set_verdicts(run)

    assert listed() == {}
    assert listed("historic") == {run.pk: None}


def test_a_renamed_system_or_institution_is_renamed_on_its_entries_and_bumps_the_version(bumps, committing):
    run = RunFactory(phases=False)

    with committing():
        run.system.name = "Renamed"
        runs.edit_system(run.system)
        run.system.institution.name = "Renamed Institute"
        runs.edit_institution(run.system.institution)

    assert list(ListEntry.objects.filter(run=run).values_list("system_name", "institution_name").distinct()) == [
        ("Renamed", "Renamed Institute")
    ]
    assert bumps == ["bump", "bump"]


def test_a_write_refreshes_the_custom_lists_of_its_systems_after_the_commit(monkeypatch, committing):
    save_custom_list("easy write", "ior_easy_write")
    refreshed = []
    monkeypatch.setattr(tasks.refresh_custom_lists, "delay", refreshed.append)
    system = StorageSystemFactory()

    with committing():
        RunFactory(system=system, phases=False)

    assert refreshed == [[system.pk]]


def test_a_write_of_many_runs_brings_the_lists_in_line_once(monkeypatch, bumps, committing):
    synced = []
    real_sync = list_entries.sync_systems
    monkeypatch.setattr(list_entries, "sync_systems", lambda ids: (synced.append(sorted(ids)), real_sync(ids))[1])
    systems = [StorageSystemFactory() for _ in range(3)]

    with committing(), runs.batch() as batch:
        stored = [RunFactory(batch=batch, system=systems[number % 3], phases=False) for number in range(6)]
        for run in stored:
            run.anomalies.create(rule="cache_effect_stat", severity="warn", message="20x faster")
            batch.set_verdicts(run)

    assert synced == [sorted(system.pk for system in systems)]
    assert bumps == ["bump"]
    assert len(listed()) == 3


def test_a_failed_write_leaves_the_lists_as_they_were():
    before = RunFactory(phases=False)

    def store_then_fail():
        with runs.batch() as batch:
            RunFactory(batch=batch, score_bw=99, score_md=99, phases=False)
            raise RuntimeError("the rest of the upload does not parse")

    with pytest.raises(RuntimeError):
        store_then_fail()

    assert listed() == {before.pk: 1}


@pytest.mark.parametrize(
    "write",
    [
        lambda run: run.save(),
        lambda run: run.delete(),
        lambda run: Run.objects.create(system=run.system, content_hash="x", source_path="y", identity="z"),
        lambda run: Run.objects.filter(pk=run.pk).update(score_total=1.0),
        lambda run: Run.objects.filter(pk=run.pk).delete(),
        lambda run: Run.objects.bulk_create([Run(system=run.system, content_hash="x", source_path="y", identity="z")]),
        lambda run: Run.objects.bulk_update([run], ["score_total"]),
    ],
    ids=["save", "delete", "create", "update", "queryset delete", "bulk_create", "bulk_update"],
)
def test_a_run_written_outside_the_verbs_is_refused(write):
    run = RunFactory(phases=False)

    with pytest.raises(RunWriteOutsideVerbs):
        write(run)


def test_nothing_is_written_by_a_caller_s_code_inside_a_batch_of_writes():
    """A batch gathers the verbs' upkeep; it does not open run writes to the code of its caller."""
    run = RunFactory(phases=False)

    with pytest.raises(RunWriteOutsideVerbs), runs.batch():
        run.save()


def test_no_signal_receiver_does_upkeep_on_a_model_write():
    from django.apps import apps

    for signal in (pre_save, post_save, pre_delete, post_delete):
        for model in apps.get_app_config("results").get_models():
            assert not signal.has_listeners(model), (signal, model.__name__)
    assert not hasattr(list_entries, "list_changed")


def _admin_review(run: Run, user, **decisions):
    """The admin's change form of `run`, submitted with its current values and `decisions`, as a click would."""
    from django.test import RequestFactory

    model_admin = admin.site._registry[Run]
    request = RequestFactory().post("/")
    request.user = user
    form_class = model_admin.get_form(request, run, change=True)
    shown = form_class(instance=run)
    data = {name: shown[name].value() for name in shown.fields if shown[name].value() is not None}
    data.update(decisions)
    form = form_class(data=data, instance=run)
    if form.is_valid():
        model_admin.save_model(request, form.save(commit=False), form, change=True)
    return form


def test_a_review_in_the_admin_is_noted_and_checked_as_review_run_does(committing):
    staff = UserFactory(is_staff=True, is_superuser=True)
    run = RunFactory(review_status="submitted", phases=False)
    assert listed() == {}

    with committing():
        form = _admin_review(run, staff, review_status="accepted")

    assert form.is_valid(), form.errors
    note = ReviewNote.objects.get(run=run)
    assert (note.text, note.status, note.author) == (
        "changed in the admin\nstatus submitted → accepted",
        "accepted",
        staff,
    )
    assert listed() == {run.pk: 1}

    refused = _admin_review(Run.objects.get(pk=run.pk), staff, production_accepted=True)

    assert "has not declared production use" in str(refused.errors)
    assert not Run.objects.get(pk=run.pk).production_accepted
    assert ReviewNote.objects.filter(run=run).count() == 1


def test_only_the_verbs_open_run_writes():
    """The guard's one way in (`run_writes_open`) is used by apps.results.services.runs alone: a module that opened it
    for its own writes would pass the guard and skip the upkeep. A scan of the source, as this is about who may call
    it, not about what a call writes."""
    import ast
    from pathlib import Path

    apps_root = Path(__file__).resolve().parents[3] / "apps"
    openers = set()
    for path in apps_root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            name = getattr(node, "attr", None) or getattr(node, "id", None)
            if isinstance(node, ast.Name | ast.Attribute) and name == "run_writes_open":
                openers.add(path.relative_to(apps_root).as_posix())

    assert openers == {"results/services/runs.py"}


def test_an_ingest_of_a_tree_is_one_write_per_fifty_runs_and_maintains_each_changed_list_once(
    monkeypatch, bumps, committing
):
    from apps.ingest.tools.io500.pipeline import ingest_path
    from tests.conftest import REPO_ROOT

    maintained = []
    monkeypatch.setattr(tasks.maintain_list, "delay", maintained.append)
    # Change detection runs after the ingest (eagerly where Celery is eager) and bumps the version itself.
    detected = []
    monkeypatch.setattr(
        "apps.results.services.runs.schedule_change_detection", lambda runs: detected.append(sorted(runs))
    )

    with committing():
        summary = ingest_path(REPO_ROOT / "fixtures" / "demo")

    assert len(summary.created) == 6
    assert len(bumps) == 1  # one commit, and one bump, for up to fifty runs (pipeline.RUNS_PER_COMMIT)
    assert detected == [sorted(summary.created)]  # the new runs' change detection asked for once, after them
    assert sorted(maintained) == sorted(set(maintained))  # each changed list once, at the end
    assert "historic" in maintained
