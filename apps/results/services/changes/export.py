"""The documented export shape of a detected change (docs/changes.md, `export_changes --format json`)."""

from apps.results.models import Change


def current_changes():
    """Changes the latest detection found, in a stable order (system, time of the step, metric)."""
    return (
        Change.objects.visible()
        .filter(detected=True)
        .select_related("system__institution", "run_before", "run_after")
        .order_by(
            "system__institution__name", "system__name", "run_after__run_timestamp", "run_after_id", "metric", "kind"
        )
    )


def change_record(change: Change) -> dict:
    """For an outlier, before and after are both the outlying run."""
    system = change.system
    return {
        "system": {"institution": system.institution.name, "system": system.name, "filesystem": system.filesystem},
        "metric": change.metric,
        "kind": change.kind,
        "direction": change.direction,
        "magnitude_pct": change.magnitude_pct,
        "z": change.z,
        "p_value": change.p_value,
        "before_run": change.run_before_id,
        "after_run": change.run_after_id,
        "before_source": change.run_before.source_path,
        "after_source": change.run_after.source_path,
        "attribution": [
            {"field": entry["field"], "before": entry["before"], "after": entry["after"]}
            for entry in change.attribution
        ],
        "status": change.status,
    }
