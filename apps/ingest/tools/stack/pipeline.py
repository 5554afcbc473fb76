"""The ``stack`` pipeline: a bottom-up benchmarking campaign (stack.yaml, manifest.csv, the tools' logs)
into one ``Stack`` with its inventory and measurements, in one transaction; nothing partial.

The campaign is read completely first (``apps.ingest.tools.stack.campaign``: every log with its
tool from ``apps.ingest.tools``), its meaning computed (``apps.results.judgements.stacks.semantics``), and only
then written. A stack of the same name is replaced, if it belongs to the same account (the command
line may replace any). After the commit the IO500 runs of the stack's storage system are checked
against the new ceiling (``apps.results.tasks.check_runs_against_ceiling``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils.text import slugify

from apps.ingest.core.archive import ArchiveError, open_input
from apps.ingest.core.common import IngestError, IngestUsageError, archive_caps, fit, stored_upload_copy
from apps.ingest.core.pipeline import Pipeline
from apps.ingest.parsers.errors import ParseError
from apps.ingest.tools.stack.campaign import Campaign, find_campaign_root, read_campaign
from apps.results.judgements.stacks.semantics import Evaluation, evaluate, unit_of
from apps.results.models import (
    Stack,
    StackComponent,
    StackMeasurement,
    StackServer,
    StackSpec,
    StorageSystem,
    Upload,
)
from apps.results.services.anomaly_checks import schedule_ceiling_check
from apps.results.services.freshness import bump_data_version_on_commit
from apps.results.services.ownership import may_add_to, system_claim


@dataclass
class StackIngestSummary:
    name: str = ""
    stored: bool = False
    layer_rows: int = 0
    file_system_rows: int = 0
    outliers: int = 0
    ceiling: dict = field(default_factory=dict)
    failed: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.stored and not self.failed

    def write_report(self, out, err) -> None:
        if self.failed:
            err.write("\n".join(f"FAILED {failure}" for failure in self.failed) + "\n")
            return
        ceiling = ", ".join(
            f"{operation} {value:.0f} MB/s" if value is not None else f"{operation} unknown"
            for operation, value in self.ceiling.items()
        )
        out.write(
            f"stack {self.name!r}: {self.layer_rows} layer rows, {self.file_system_rows} file-system rows, "
            f"{self.outliers} outliers; ceiling {ceiling}\n"
        )


def ingest_paths(paths, options: dict, **_) -> StackIngestSummary:
    """``manage.py ingest --kind stack CAMPAIGN [--name NAME] [--institution I --system S]``."""
    paths = list(paths)
    if len(paths) != 1:
        raise IngestUsageError("give one campaign folder or archive with --kind stack")
    summary = StackIngestSummary()
    try:
        with open_input(Path(paths[0]), **archive_caps()) as root:
            campaign = read_campaign(find_campaign_root(root))
    except (ParseError, ArchiveError) as error:
        summary.failed.append(str(error))
        return summary
    system = _storage_system(campaign, options)
    store_campaign(campaign, name=options.get("name") or campaign.name, system=system, summary=summary)
    return summary


def ingest_stack_upload(upload: Upload) -> list:
    """An API upload (kind=stack): an archive of one campaign, stored under the uploader's account."""
    declared = upload.declared_metadata or {}
    summary = StackIngestSummary()
    try:
        with stored_upload_copy(upload) as stored, open_input(stored, **archive_caps()) as root:
            campaign = read_campaign(find_campaign_root(root))
    except (ParseError, ArchiveError) as error:
        raise IngestError(f"{upload.original_name}: {error}") from error
    refuse_past_budget(campaign, upload)
    name = declared.get("stack") or declared.get("name") or campaign.name
    system = _storage_system(campaign, declared)
    claim = system_claim(system, upload) if system is not None else ""
    if claim:
        # A stack's ceiling flags the system's runs: an account may not set one for runs it does not own.
        raise IngestError(
            f"{upload.original_name}: the stack {claim}; a stack of a system with other owners' runs "
            "is ingested by the operator"
        )
    store_campaign(campaign, name=name, system=system, summary=summary, upload=upload)
    return []


def refuse_past_budget(campaign: Campaign, upload: Upload) -> None:
    """Refuse an uploaded campaign with more components or measurements than every reader of its page and API
    should pay for (IOBOARD_STACK_MAX_*), before anything is written. The operator's command line is not bounded."""
    for what, count, budget, setting in (
        ("components", len(campaign.inventory.components), settings.IOBOARD_STACK_MAX_COMPONENTS, "COMPONENTS"),
        ("measurements", len(campaign.measurements), settings.IOBOARD_STACK_MAX_MEASUREMENTS, "MEASUREMENTS"),
    ):
        if count > budget:
            raise IngestError(
                f"{upload.original_name}: the stack {campaign.name!r} has {count:,} {what}, more than the {budget:,} "
                f"a stack may have (IOBOARD_STACK_MAX_{setting}, docs/deployment.md); nothing of this upload is stored"
            )


def store_campaign(
    campaign: Campaign,
    *,
    name: str,
    system: StorageSystem | None,
    summary: StackIngestSummary,
    upload: Upload | None = None,
) -> Stack:
    """Write the campaign as the stack ``name`` (replacing a stack of that name the upload's account may replace)."""
    slug = slugify(name)[:100]
    if not slug:
        raise IngestError(f"{name!r} is not a usable stack name")
    evaluation = evaluate(campaign.inventory, campaign.measurements)
    with transaction.atomic():
        existing = Stack.objects.select_for_update().filter(name=slug).first()
        if existing is not None:
            if not may_add_to(upload, existing.upload):
                raise IngestError(f"the stack {slug!r} belongs to another account")
            existing.delete()
        stack = _write(campaign, evaluation, slug=slug, system=system, upload=upload)
        if system is not None:
            schedule_ceiling_check(system.pk)
        bump_data_version_on_commit()
    summary.name, summary.stored = slug, True
    summary.layer_rows, summary.file_system_rows = len(evaluation.layers), len(evaluation.file_system)
    summary.outliers = len(evaluation.outliers)
    summary.ceiling = dict(evaluation.ceiling.value)
    return stack


def _write(campaign: Campaign, evaluation: Evaluation, *, slug, system, upload) -> Stack:
    ceiling = evaluation.ceiling
    stack = Stack.objects.create(
        name=slug,
        file_system_name=fit(Stack, "file_system_name", campaign.file_system_name),
        file_system=campaign.file_system,
        system=system,
        upload=upload,
        ceiling_read=ceiling.value.get("read"),
        ceiling_write=ceiling.value.get("write"),
        limited_by=ceiling.limited_by,
        storage_sum=ceiling.storage,
        network_sum=ceiling.network,
        storage_sources=ceiling.storage_sources,
    )
    inventory = campaign.inventory
    StackSpec.objects.bulk_create(
        StackSpec(
            stack=stack,
            key=fit(StackSpec, "key", spec.key),
            kind=spec.kind,
            model=fit(StackSpec, "model", spec.model),
            **{op: spec.figures.get(op) for op in ("read", "write", "randread", "randwrite")},
        )
        for spec in inventory.specs.values()
    )
    servers = {
        row.name: row
        for row in StackServer.objects.bulk_create(
            StackServer(
                stack=stack,
                name=fit(StackServer, "name", server.name),
                roles=list(server.roles),
                attributes=campaign.server_attributes.get(server.name, {}),
            )
            for server in inventory.servers.values()
        )
    }
    components = {
        row.name: row
        for row in StackComponent.objects.bulk_create(
            StackComponent(
                stack=stack,
                server=servers[fit(StackServer, "name", component.server)],
                name=fit(StackComponent, "name", component.name),
                layer=component.layer,
                spec=fit(StackComponent, "spec", component.spec),
                attributes=campaign.component_attributes.get(component.name, {}),
            )
            for component in inventory.components.values()
        )
    }
    through = StackComponent.below.through
    through.objects.bulk_create(
        through(
            from_stackcomponent=components[fit(StackComponent, "name", component.name)],
            to_stackcomponent=components[fit(StackComponent, "name", below)],
        )
        for component in inventory.components.values()
        for below in component.below
    )
    figures = {id(m): figure for m, figure in zip(campaign.measurements, campaign.figures, strict=True)}
    rows = []
    for position, row in enumerate(evaluation.layers):
        m = row.measurement
        rows.append(
            _measurement(
                stack,
                m,
                figures[id(m)],
                position,
                component=components[m.component],
                expected=row.expected,
                efficiency=row.efficiency,
                peer_median=row.peer_median,
                is_outlier=row.outlier,
            )
        )
    for position, row in enumerate(evaluation.file_system, start=len(rows)):
        m = row.measurement
        rows.append(
            _measurement(
                stack,
                m,
                figures[id(m)],
                position,
                component=None,
                expected=row.ceiling,
                efficiency=row.efficiency,
                over_ceiling=row.over_ceiling,
            )
        )
    StackMeasurement.objects.bulk_create(rows, batch_size=1000)
    return stack


def _measurement(stack, m, figure, position, **computed) -> StackMeasurement:
    return StackMeasurement(
        stack=stack,
        layer=m.layer,
        operation=m.operation,
        measured=m.measured,
        unit=unit_of(m.operation),
        tool=m.tool,
        tool_version=fit(StackMeasurement, "tool_version", figure.tool_version),
        source=fit(StackMeasurement, "source", m.source),
        source_line=figure.line,
        printed=fit(StackMeasurement, "printed", figure.printed),
        position=position,
        **computed,
    )


def _storage_system(campaign: Campaign, options: dict) -> StorageSystem | None:
    """The storage system the stack's ceiling applies to: the options' (``--institution``/``--system``),
    else stack.yaml's ``storage_system`` mapping, else the one stored system named like the file system."""
    declared = campaign.storage_system
    institution = options.get("institution") or declared.get("institution")
    name = options.get("system") or declared.get("system")
    filesystem = options.get("filesystem") or declared.get("filesystem") or campaign.file_system.get("type", "")
    if institution and name:
        return StorageSystem.resolve(str(institution), str(name), str(filesystem))
    matches = list(StorageSystem.objects.filter(name__iexact=campaign.file_system_name)[:2])
    return matches[0] if len(matches) == 1 else None


PIPELINE = Pipeline(kind="stack", ingest_upload=ingest_stack_upload, ingest_paths=ingest_paths)
