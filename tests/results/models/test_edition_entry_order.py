"""The one order a run's and a system's edition entries are shown in (EditionEntry.objects.in_display_order): the
newest edition first, ties broken by release date, edition name, list, rank (unranked last) and id. The system
page, the run page and the API's citations of a run all show it."""

from datetime import UTC, date, datetime

import pytest

from apps.results.models import Edition, EditionEntry
from tests.factories import RunFactory, StorageSystemFactory

pytestmark = pytest.mark.django_db

FROZEN_TOGETHER = datetime(2025, 11, 18, 12, tzinfo=UTC)
IMPORTED = datetime(2025, 1, 10, 9, tzinfo=UTC)


def edition(name: str, list_kind: str, *, frozen_at: datetime, released_on: date | None = None) -> Edition:
    source = Edition.Source.PUBLISHED if released_on else Edition.Source.FROZEN
    made = Edition.objects.create(name=name, list_kind=list_kind, source=source, released_on=released_on)
    Edition.objects.filter(pk=made.pk).update(frozen_at=frozen_at)  # auto_now_add: set after the insert
    return made


def enter(edition: Edition, run, rank: int | None) -> None:
    EditionEntry.objects.create(
        edition=edition, run=run, system=run.system, rank=rank, institution_name="JSC", system_name="JUWELS",
        filesystem="Lustre",
    )  # fmt: skip


@pytest.fixture
def placed():
    """Two runs of one system on six editions: four frozen at one instant (two names, two lists), two of
    io500.org's record imported together, one frozen years before. Entries are made out of their order."""
    system = StorageSystemFactory()
    first, second, unranked = (RunFactory(system=system, phases=False) for _ in range(3))
    isc19 = edition("ISC19", "io500", frozen_at=datetime(2019, 6, 20, tzinfo=UTC))
    sc25 = edition("SC25", "io500", frozen_at=FROZEN_TOGETHER)
    sc25_production = edition("SC25", "production", frozen_at=FROZEN_TOGETHER)
    isc25 = edition("ISC25", "io500", frozen_at=FROZEN_TOGETHER)
    isc24 = edition("ISC24", "io500", frozen_at=IMPORTED, released_on=date(2024, 5, 13))
    sc24 = edition("SC24", "io500", frozen_at=IMPORTED, released_on=date(2024, 11, 19))
    enter(isc19, second, 1)
    enter(sc25, unranked, None)
    enter(sc25, second, 2)
    enter(isc24, first, 4)
    enter(sc25_production, second, 1)
    enter(sc25, first, 1)
    enter(sc24, first, 3)
    enter(isc25, first, 5)
    return system, first, second, unranked


def test_entries_are_shown_newest_edition_first_with_every_tie_broken(placed):
    system, first, second, unranked = placed

    shown = EditionEntry.objects.filter(system=system).in_display_order()

    assert [(entry.edition.name, entry.edition.list_kind, entry.run_id, entry.rank) for entry in shown] == [
        ("ISC25", "io500", first.pk, 5),
        ("SC25", "io500", first.pk, 1),
        ("SC25", "io500", second.pk, 2),
        ("SC25", "io500", unranked.pk, None),
        ("SC25", "production", second.pk, 1),
        ("SC24", "io500", first.pk, 3),
        ("ISC24", "io500", first.pk, 4),
        ("ISC19", "io500", second.pk, 1),
    ]


def test_the_system_page_the_run_page_and_the_api_citations_show_that_order(placed, client):
    system, first, _, _ = placed

    on_system_page = client.get(f"/systems/{system.pk}/").context["edition_entries"]
    on_run_page = client.get(f"/runs/{first.pk}/").context
    cited = client.get(f"/api/v1/runs/{first.pk}/").json()["citations"]

    assert [(entry.edition.name, entry.edition.list_kind) for entry in on_system_page] == [
        ("ISC25", "io500"), ("SC25", "io500"), ("SC25", "io500"), ("SC25", "io500"), ("SC25", "production"),
        ("SC24", "io500"), ("ISC24", "io500"), ("ISC19", "io500"),
    ]  # fmt: skip
    assert [entry.edition.name for entry in on_run_page["edition_entries"]] == ["ISC25", "SC25"]
    at_editions = ["ISC25", "SC25", "SC24", "ISC24"]
    assert [citation.edition for citation in on_run_page["citations"] if citation.edition] == at_editions
    assert [citation["edition"] for citation in cited if citation["edition"]] == at_editions
