"""Lists: maintained entries of every list kind, their rank shifts and state, frozen editions, and the
custom lists accounts save (querysets in `querysets.py`, the kinds in `list_kinds.py`).
"""

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Upper
from django.urls import reverse

from apps.results.models.list_kinds import list_kind_choices
from apps.results.models.querysets import EditionEntryQuerySet, ListEntryQuerySet
from apps.results.models.runs import Run
from apps.results.models.systems import StorageSystem


class CustomList(models.Model):
    """A reader's list: the members of a registered list kind ranked by an equation
    (apps.results.judgements.equations)."""

    token = models.SlugField(max_length=22, unique=True, help_text="the stable link: /lists/custom/<token>/")
    name = models.CharField(max_length=200)
    equation = models.CharField(max_length=500)
    base_list = models.CharField(max_length=20, choices=list_kind_choices, default="full")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="custom_lists",
        help_text="the account that saved it; none for the demo's lists",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    entry_count = models.PositiveIntegerField(default=0, help_text="its entries (CustomListEntry), kept with them")

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("custom-list", args=[self.token])


class CustomListEntry(models.Model):
    """A member of a custom list's base list with the equation's value for it (apps.results.services.custom_lists).

    Kept so that a page of a custom list reads one index range, like the built-in lists, instead of evaluating
    the equation over every member on each read (seconds per page). A committed write to a run
    re-evaluates its storage system's members. `ranked` is False when the base list does not rank the run (the
    historic list's submitted or rejected runs) or the equation has no value for it (a phase missing, a division
    by zero): such runs are listed last, unranked.
    """

    custom_list = models.ForeignKey(CustomList, on_delete=models.CASCADE, related_name="entries")
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="+")
    system = models.ForeignKey(StorageSystem, on_delete=models.CASCADE, related_name="+")
    ranked = models.BooleanField()
    value = models.FloatField(null=True)

    class Meta:
        verbose_name_plural = "custom list entries"
        constraints = [models.UniqueConstraint(fields=["custom_list", "run"], name="customentry_unique_run")]
        # List order: ranked first, highest value first, then first stored. Unranked entries have no value, so
        # where the database puts NULLs in a descending index (PostgreSQL first, SQLite last) never matters.
        indexes = [models.Index(fields=["custom_list", "-ranked", "-value", "run"], name="customentry_order")]

    def __str__(self) -> str:
        return f"{self.custom_list_id}: run {self.run_id} = {self.value}"


class Edition(models.Model):
    """A list frozen under a name (e.g. "ISC19"): its membership and scores never change afterwards.

    Either frozen here from a live list, or a list of io500.org's published record (`source` PUBLISHED, imported
    by apps.results.services.published from the site's SQL files): read-only, with its release date, its rows as
    the site showed them and the change log of the site's corrections (PublishedChange).
    """

    class Source(models.TextChoices):
        FROZEN = "frozen", "frozen from a live list"
        PUBLISHED = "published", "published by io500.org"

    name = models.SlugField(max_length=50)
    source = models.CharField(max_length=10, choices=Source.choices, default=Source.FROZEN)
    released_on = models.DateField(null=True, blank=True, help_text="the release date of a published edition")
    source_digest = models.CharField(
        max_length=64, blank=True, help_text="of the files a published edition was imported from (sha256)"
    )
    list_kind = models.CharField(max_length=20, choices=list_kind_choices, help_text="apps.results.models.list_kinds")
    title = models.CharField(max_length=255, blank=True)
    description = models.TextField(blank=True)
    frozen_at = models.DateTimeField(auto_now_add=True)
    rules_edition = models.ForeignKey(
        "RulesEdition",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="editions",
        help_text="the rules in force for this list",
    )
    # What the pages of an edition read of its entries, stored when they are written (an edition never changes
    # afterwards: `record_entries`), so no page reads every entry of a list.
    entry_count = models.PositiveIntegerField(default=0, help_text="its entries, counted when they were written")
    filesystems = models.JSONField(
        default=list, blank=True, help_text="the file systems of its entries, sorted (the filter's suggestions)"
    )

    class Meta:
        ordering = ["-frozen_at"]
        constraints = [models.UniqueConstraint(fields=["source", "name", "list_kind"], name="edition_unique_list")]

    def __str__(self) -> str:
        return f"{self.name} ({self.get_list_kind_display()})"

    @property
    def is_published(self) -> bool:
        return self.source == self.Source.PUBLISHED

    def record_entries(self) -> None:
        """Store what the edition's pages read of all its entries (`entry_count`, `filesystems`), once they are
        written: an edition never changes afterwards, so no page reads them all again. Every writer of entries
        (freezing, apps.results.services.editions; importing io500.org's record, services.published) calls it."""
        entries = self.entries.all()
        self.entry_count = entries.count()
        self.filesystems = list(entries.order_by("filesystem").values_list("filesystem", flat=True).distinct())
        self.save(update_fields=["entry_count", "filesystems"])


class ListEntry(models.Model):
    """A run's place on a live list, maintained on write (apps.results.services.list_entries), never computed per read.

    One row per (list kind, member run), with copies of the columns that list pages filter and sort
    on, so a page reads one narrow indexed table. The rank is `base_rank` plus the net count of
    ListRankShift rows after `shifts_after` whose score is higher: an insert or removal anywhere in the
    list costs one shift row instead of renumbering every entry below it, and a settle folds the
    shifts back into base ranks (see apps.results.services.list_entries).
    """

    kind = models.CharField(max_length=20, choices=list_kind_choices)
    run = models.ForeignKey("Run", on_delete=models.CASCADE, related_name="list_entries")
    system = models.ForeignKey(StorageSystem, on_delete=models.CASCADE, related_name="list_entries")
    ranked = models.BooleanField(help_text="gets a rank on this list (historic lists also show unranked runs)")
    score = models.FloatField(null=True)
    base_rank = models.PositiveIntegerField(null=True, help_text="the rank when shifts_after was the last shift")
    shifts_after = models.BigIntegerField(default=0)
    score_bw = models.FloatField(null=True)
    score_md = models.FloatField(null=True)
    client_nodes = models.PositiveIntegerField(null=True)
    client_procs = models.PositiveIntegerField(null=True)
    year = models.PositiveIntegerField(null=True)
    flagged = models.BooleanField(default=False)
    filesystem = models.CharField(max_length=255)
    storage_vendor = models.CharField(max_length=255, blank=True)
    institution_name = models.CharField(max_length=255)
    system_name = models.CharField(max_length=255)
    server_count = models.PositiveIntegerField(null=True)
    exclusion_reason = models.TextField(blank=True, help_text="why the run is kept off ranked lists (historic list)")
    verification = models.CharField(max_length=20, blank=True, help_text="of the run's score (cited placements)")

    objects = ListEntryQuerySet.as_manager()

    class Meta:
        verbose_name_plural = "list entries"
        constraints = [models.UniqueConstraint(fields=["kind", "run"], name="listentry_unique_run")]
        # The list-order indexes (kind, score DESC NULLS LAST, run) and (kind, score_bw/score_md DESC NULLS LAST)
        # are made by migration 0006 (SQLite cannot state NULLS LAST in an index; its DESC puts NULLs last anyway):
        # a list page in list order then reads its 50 index entries whatever the list's size.
        indexes = [
            # Neighbours of a new entry when its rank is computed (ascending, ranked entries only).
            models.Index(fields=["kind", "score"], name="listentry_ranked_score", condition=models.Q(ranked=True)),
            models.Index(fields=["kind", "system"], name="listentry_system"),
            # Sorting by node count and filtering by year, the commonest narrowing of the historic list, have
            # (kind, client_nodes, score DESC NULLS LAST, run) and (kind, year, client_nodes, score ..., run)
            # indexes, one per direction, from migration 0017: a page sorted by node count (ties by score)
            # reads its rows in order. Every other sort key has its pair from migration 0019, the per-node and
            # per-server ratios as expression indexes (ListEntryQuerySet.sort_listed).
            # The file system filter compares upper-cased values (iexact). Over a bare column PostgreSQL guesses
            # such a condition matches a tiny share of a list, so it sorted every Lustre entry on 10+ nodes of
            # the IO500 list rather than walk its bandwidth order for the 50 of a page. ANALYZE
            # gathers statistics on an index's expressions, so with this it estimates the real shares, and a
            # rare file system is read from its own index entries. The vendor filter compares the raw column
            # (ListEntryQuerySet.page_keys), whose statistics and sort indexes serve it.
            # A list page's file system filter is "filesystem IN (the list's spellings)" instead
            # (ListEntryQuerySet.page_entries), counted from the file system sort indexes, which carry the client
            # node count for it (migration 0030).
            models.Index(F("kind"), Upper("filesystem"), name="listentry_filesystem"),
        ]

    def __str__(self) -> str:
        return f"{self.kind}: run {self.run_id}"


class ListRankShift(models.Model):
    """A ranked entry entered (+1) or left (-1) a list at `score`: every entry below it moves by `delta`."""

    kind = models.CharField(max_length=20, choices=list_kind_choices)
    score = models.FloatField()
    delta = models.SmallIntegerField()

    class Meta:
        indexes = [models.Index(fields=["kind", "score"], name="listrankshift_score")]

    def __str__(self) -> str:
        return f"{self.kind}: {self.delta:+d} at {self.score}"


class ListState(models.Model):
    """Per list kind: its counts and population statistics, kept with the entries.

    Counts change in the same transaction as the entries. The phase medians are refreshed after the commit
    by a task (apps.results.tasks.maintain_list): a median over a large list costs more than
    a whole upload may take; pages show `statistics_as_of` next to them.
    """

    kind = models.CharField(max_length=20, choices=list_kind_choices, primary_key=True)
    entry_count = models.PositiveIntegerField(default=0)
    ranked_count = models.PositiveIntegerField(default=0)
    pending_shifts = models.PositiveIntegerField(default=0, help_text="shift rows since the last settle")
    phase_medians = models.JSONField(default=dict, blank=True, help_text="{phase: median value} of ranked entries")
    filesystems = models.JSONField(default=list, blank=True, help_text="the file systems of the entries, sorted")
    statistics_stale = models.BooleanField(default=True)
    statistics_as_of = models.DateTimeField(null=True, blank=True)
    settled_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.kind}: {self.entry_count} entries"


class EditionEntry(models.Model):
    """A run's place on a frozen edition, with the numbers copied at freezing time."""

    edition = models.ForeignKey(Edition, on_delete=models.CASCADE, related_name="entries")
    run = models.ForeignKey(Run, null=True, on_delete=models.SET_NULL, related_name="edition_entries")
    system = models.ForeignKey(StorageSystem, null=True, on_delete=models.SET_NULL, related_name="edition_entries")
    rank = models.PositiveIntegerField(null=True)
    institution_name = models.CharField(max_length=255)
    system_name = models.CharField(max_length=255)
    filesystem = models.CharField(max_length=255)
    storage_vendor = models.CharField(max_length=255, blank=True)
    client_nodes = models.PositiveIntegerField(null=True)
    client_procs = models.PositiveIntegerField(null=True)
    score = models.FloatField(null=True)
    score_bw = models.FloatField(null=True)
    score_md = models.FloatField(null=True)
    exclusion_reason = models.TextField(blank=True)
    submission_number = models.PositiveIntegerField(
        null=True, blank=True, help_text="of a published entry: io500.org's submission id, the archive's submission-N"
    )
    position = models.PositiveIntegerField(null=True, blank=True, help_text="of a published entry: its list row")
    published = models.JSONField(
        default=dict, blank=True, help_text="of a published entry: its phase values and declared system information"
    )
    audit_differences = models.JSONField(
        null=True,
        blank=True,
        help_text="of a published entry with a run: its differences from the run, [{field, published, recomputed, "
        "cause}] (apps.results.services.published_audit keeps it); null without raw files",
    )
    audit_agrees = models.BooleanField(
        null=True, blank=True, help_text="of a published entry with a run: no difference from it; null without one"
    )

    objects = EditionEntryQuerySet.as_manager()

    class Meta:
        ordering = ["edition", "rank", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["edition", "position"], name="editionentry_unique_position", condition=Q(position__isnull=False)
            )
        ]
        # An edition's page in rank order (`services.editions.edition_entries`) reads its 50 entries from this
        # index, sorting only entries of equal rank by score; without it, every entry of the edition was joined to
        # its run and system, then sorted. Every sort by a column the entry stores has a pair of indexes in its
        # exact order from migration 0041 (NULLS LAST, which SQLite cannot state in an index), as the live lists'
        # sorts have from migration 0019; they serve the awards too (services.awards).
        indexes = [models.Index(fields=["edition", "rank"], name="editionentry_rank_order")]
        verbose_name_plural = "edition entries"

    def __str__(self) -> str:
        return f"{self.edition.name} #{self.rank} {self.system_name}"
