"""Institutions and storage systems, with the aliases and the spelling-insensitive key that keep one
site or system one row however its name is spelled.
"""

import re
from collections.abc import Iterable
from typing import NamedTuple, TypeVar

from django.apps import apps
from django.db import models
from django.urls import reverse

from apps.results.models.visibility import PUBLIC_CONDITIONS, system_visible_condition


def identity_key(*parts: str) -> str:
    """Spelling-insensitive key: case, punctuation and runs of white space do not make a new system."""
    cleaned = [re.sub(r"[\W_]+", " ", (part or "").casefold()).strip() for part in parts]
    return "|".join(cleaned)


class Institution(models.Model):
    name = models.CharField(max_length=255)
    key = models.CharField(max_length=255, unique=True, help_text="normalised name; see identity_key")
    country = models.CharField(max_length=100, blank=True)

    class Meta:
        ordering = ["name"]
        # Systems in institution-name order (the API's systems collection): PostgreSQL walks the institutions in
        # name order and sorts each one's few systems, reading a page's worth; without it, it sorts every system.
        indexes = [models.Index(fields=["name", "id"], name="institution_name")]

    def __str__(self) -> str:
        return self.name

    @classmethod
    def resolve(cls, name: str) -> "Institution":
        """The canonical institution for a spelling, following aliases, created when unknown."""
        return cls.resolve_all([name])[0][name]

    @classmethod
    def resolve_all(cls, names: Iterable[str]) -> tuple[dict[str, "Institution"], set[int]]:
        """`resolve` of many spellings at once, in a few queries whatever their number (a bulk ingest's batch):
        {spelling: institution}, and the pks of those created now. An unknown institution takes its first
        spelling's name, as resolving them one by one would."""
        spellings = {name: (name or "").strip() or "Unknown" for name in names}
        keys = {name: identity_key(cleaned) for name, cleaned in spellings.items()}
        aliased = {
            alias.key: alias.institution
            for alias in InstitutionAlias.objects.select_related("institution").filter(key__in=set(keys.values()))
        }
        rows, created = existing_or_created(
            cls, {key: cls(key=key, name=spellings[name]) for name, key in keys.items() if key not in aliased}
        )
        return {name: aliased.get(key) or rows[key] for name, key in keys.items()}, created


class InstitutionAlias(models.Model):
    """Another spelling of an institution (e.g. "IBM Tuscon" for "IBM Tucson")."""

    institution = models.ForeignKey(Institution, on_delete=models.CASCADE, related_name="aliases")
    name = models.CharField(max_length=255)
    key = models.CharField(max_length=255, unique=True)

    def __str__(self) -> str:
        return f"{self.name} → {self.institution}"

    def save(self, *args, **kwargs):
        self.key = identity_key(self.name)
        super().save(*args, **kwargs)


class StorageSystemQuerySet(models.QuerySet):
    def visible_to(self, user):
        """The systems `user` may see (None: an anonymous reader): a system known only from embargoed runs is
        its uploader's and staff's until the release (`apps.results.models.visibility`)."""
        return self.filter(system_visible_condition(user))

    def count_visible_to(self, user) -> int:
        """`visible_to(user).count()`, without a probe of the run table per system: all these systems, less those
        with a hidden run that `user` may not see. Only a system with an embargoed run can be hidden; those are few,
        read from the run_embargoed_system index (embargoed runs only) and counted by their primary keys.
        Counted as `visible_to(user).count()`, PostgreSQL tested every system for a hidden run: 200 ms of the API's
        systems collection at a million runs (125,000 systems), growing with the data.

        The systems are counted before the embargoed runs are read: a system an embargoed upload creates between
        the queries is at worst subtracted without having been counted (one short, for that moment), never counted
        without being subtracted (its existence told to a reader it is hidden from)."""
        everything = self.count()
        hidden_runs = apps.get_model("results", "Run").objects.exclude(**PUBLIC_CONDITIONS).order_by()
        hiding = self.filter(pk__in=list(hidden_runs.values_list("system_id", flat=True).distinct()))
        return everything - hiding.count() + hiding.visible_to(user).count()


class StorageSystem(models.Model):
    """The canonical identity of a storage system: institution + system name + file-system type.

    "Best result per system" and per-system history group on this row, never on a spelling.
    """

    institution = models.ForeignKey(Institution, on_delete=models.PROTECT, related_name="systems")
    name = models.CharField(max_length=255)
    filesystem = models.CharField(max_length=255, help_text="file-system type or product, e.g. Lustre, DAOS")
    key = models.CharField(max_length=800, unique=True, help_text="normalised identity; see identity_key")
    storage_vendor = models.CharField(max_length=255, blank=True)
    server_count = models.PositiveIntegerField(null=True, blank=True, help_text="storage servers, when known")
    description = models.TextField(blank=True)
    described_by = models.ForeignKey(
        "results.Upload",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="the upload whose metadata gave the storage vendor and server count (None: the operator's, or "
        "none); the operator's replace an account's, and they go with its upload (apps.results.services.ownership)",
    )

    objects = StorageSystemQuerySet.as_manager()

    class Meta:
        ordering = ["institution__name", "name"]

    def __str__(self) -> str:
        return f"{self.institution} / {self.name} ({self.filesystem})"

    def get_absolute_url(self) -> str:
        return reverse("system-detail", args=[self.pk])

    @classmethod
    def resolve(
        cls, institution: str, name: str, filesystem: str, *, fill_blanks: bool = True, **defaults
    ) -> "StorageSystem":
        """The canonical system for these spellings, following aliases, created when unknown (with `defaults`);
        a known system gets `defaults` where it has no value yet, unless `fill_blanks` is False."""
        spelling = (institution, name, filesystem)
        system = cls.resolve_all([spelling], **defaults)[0][spelling]
        if fill_blanks:
            system.fill_blanks(by=None, **defaults)
        return system

    @classmethod
    def resolve_all(
        cls, spellings: Iterable[tuple[str, str, str]], **defaults
    ) -> tuple[dict[tuple[str, str, str], "StorageSystem"], "Created"]:
        """`resolve` of many (institution, system, file system) spellings at once, in a few queries whatever their
        number (a bulk ingest's batch), without filling blanks: {spelling: system}, and the pks of the systems
        and of the institutions created now (`Created`)."""
        spellings = list(dict.fromkeys(spellings))
        institutions, institutions_created = Institution.resolve_all(spelling[0] for spelling in spellings)
        wanted = {}
        for spelling in spellings:
            institution_row = institutions[spelling[0]]
            name = (spelling[1] or "").strip() or "Unknown system"
            filesystem = (spelling[2] or "").strip() or "unknown"
            alias_key = identity_key(institution_row.name, name, filesystem)
            key = identity_key(institution_row.key, name, filesystem)
            wanted[spelling] = (
                alias_key,
                cls(key=key, institution=institution_row, name=name, filesystem=filesystem, **defaults),
            )
        aliased = {
            alias.key: alias.system
            for alias in SystemAlias.objects.select_related("system").filter(
                key__in={alias_key for alias_key, _ in wanted.values()}
            )
        }
        unaliased: dict[str, StorageSystem] = {}
        for alias_key, row in wanted.values():
            if alias_key not in aliased:
                unaliased.setdefault(row.key, row)
        rows, created = existing_or_created(cls, unaliased)
        resolved = {spelling: aliased.get(alias_key) or rows[row.key] for spelling, (alias_key, row) in wanted.items()}
        return resolved, Created(systems=created, institutions=institutions_created)

    def fill_blanks(self, *, by, **values) -> None:
        """Set the given descriptive fields (storage_vendor, server_count) where the system has none yet, as written
        by the upload `by` (None: the operator). The operator's values also replace those an account's upload
        wrote first: the first writer of a system does not describe it for everyone. An upload that claims a
        system of another owner does not describe it (apps.results.services.ownership)."""
        over_an_account = by is None and self.described_by_id is not None
        missing = {
            field: value for field, value in values.items() if value and (over_an_account or not getattr(self, field))
        }
        if missing:
            for field, value in missing.items():
                setattr(self, field, value)
            self.described_by = by
            # The run write that follows (apps.results.services.runs) copies them into the system's list entries.
            self.save(update_fields=[*missing, "described_by"])


M = TypeVar("M", bound=models.Model)


class Created(NamedTuple):
    """The pks of the rows `StorageSystem.resolve_all` created: a writer whose run using them is rolled back
    removes those left unused (apps.ingest.tools.io500.pipeline)."""

    systems: set[int]
    institutions: set[int]


def existing_or_created(model: type[M], unsaved: dict[str, M]) -> tuple[dict[str, M], set[int]]:
    """The rows of `model` with these unique keys ({key: unsaved row}), those missing created together (one
    INSERT ... ON CONFLICT DO NOTHING: a row another transaction creates meanwhile is found, not an error), and the
    pks of those missing before the call."""
    rows = model.objects.in_bulk(unsaved, field_name="key")
    missing = [row for key, row in unsaved.items() if key not in rows]
    if not missing:
        return rows, set()
    model.objects.bulk_create(missing, ignore_conflicts=True)
    created = model.objects.in_bulk([row.key for row in missing], field_name="key")
    return rows | created, {row.pk for row in created.values()}


class SystemAlias(models.Model):
    """Another spelling of (institution, system, file system) that means an existing system."""

    system = models.ForeignKey(StorageSystem, on_delete=models.CASCADE, related_name="aliases")
    institution_name = models.CharField(max_length=255)
    name = models.CharField(max_length=255)
    filesystem = models.CharField(max_length=255)
    key = models.CharField(max_length=800, unique=True)

    class Meta:
        verbose_name_plural = "system aliases"

    def __str__(self) -> str:
        return f"{self.institution_name} / {self.name} ({self.filesystem}) → {self.system}"

    def save(self, *args, **kwargs):
        self.key = identity_key(self.institution_name, self.name, self.filesystem)
        super().save(*args, **kwargs)
