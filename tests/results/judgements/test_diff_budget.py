"""/compare/'s file diffs hold at most FILE_DIFF_LINES lines and FILE_DIFF_CHARS characters in all, whatever the
runs keep: past the budget a diff ends with a line that says so, and each file after it says it is not diffed."""

import pytest

from apps.results.judgements import diff as run_diff
from apps.results.judgements.diff import diff_runs
from apps.results.services.diff import load_runs
from tests.factories import RunFactory, RunFileFactory

pytestmark = pytest.mark.django_db


def file_text(variant: int) -> str:
    return "".join(f"setting_{line} = {variant * 1000 + line}\n" for line in range(200))


@pytest.fixture
def runs_with_thirty_changed_files():
    first, second = RunFactory(), RunFactory()
    for number in range(30):
        RunFileFactory(run=first, name=f"conf-{number:02}.ini", content=file_text(1))
        RunFileFactory(run=second, name=f"conf-{number:02}.ini", content=file_text(2))
    return load_runs([first.pk, second.pk])


def shown_lines(files) -> list[str]:
    return [line for file in files for lines in file.diffs if lines for line in lines if line != run_diff.NOT_DIFFED]


def test_the_file_diffs_of_a_comparison_stay_within_their_budget(runs_with_thirty_changed_files):
    files = diff_runs(runs_with_thirty_changed_files).files

    lines = shown_lines(files)
    assert len(files) == 30
    assert len(lines) <= run_diff.FILE_DIFF_LINES + 1
    assert sum(map(len, lines)) <= run_diff.FILE_DIFF_CHARS + 200
    assert "budget" in lines[-1]
    assert files[-1].diffs[1] == [run_diff.NOT_DIFFED]


def test_a_character_budget_holds_too(runs_with_thirty_changed_files, monkeypatch):
    monkeypatch.setattr(run_diff, "FILE_DIFF_CHARS", 5000)

    lines = shown_lines(diff_runs(runs_with_thirty_changed_files).files)

    assert sum(map(len, lines)) <= 5000 + 200
    assert "budget" in lines[-1]


def test_small_diffs_are_shown_whole():
    first, second = RunFactory(), RunFactory()
    RunFileFactory(run=first, name="io500.sh", content=file_text(1))
    RunFileFactory(run=second, name="io500.sh", content=file_text(2))

    (file,) = diff_runs(load_runs([first.pk, second.pk])).files

    assert not any(line.startswith("… ") for line in file.diffs[1])
    assert sum(line.startswith("+setting") for line in file.diffs[1]) == 200
