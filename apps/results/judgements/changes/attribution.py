"""What changed in the file system at a step: the run diff between the last run before and the first after.

Plain Python over a `RunDiff` (apps.results.judgements.diff, the same comparison as the compare page), so a step and
the compare page can never disagree about what differs. The differences are named with stable field
names (``lustre.server_version``, ``patch:LU-16338``, ``tunable:osc.*.max_pages_per_rpc``,
``client_nodes``...) and ordered most specific first: a patch names the change more precisely than a
version, a version more than a tunable, and so on down to configuration keys. A patch that is the same
change under a new commit id (rebuilt, rebased) is listed last: it is a difference of the build, not
of what the build does. Kept files (config.ini, the sidecar) are not listed: what they set is already
here as tunables, striping and configuration keys, and a sidecar differs in every run (its submission
id). An empty list means "unexplained": nothing recorded differs.
"""

from __future__ import annotations

from apps.results.judgements.diff import RECOMMITTED, RunDiff

#: Fields of the diff's "run" and "lustre" sections → stable names, in order of specificity.
VERSION_FIELDS = {
    "Server version": "lustre.server_version",
    "Client version": "lustre.client_version",
    "Base tag": "lustre.base_tag",
    "Base commit": "lustre.base_commit",
    "Benchmark version": "benchmark_version",
    "Rules generation": "generation",
}
CLASS_FIELDS = {
    "Client nodes": "client_nodes",
    "Total client procs": "client_procs",
    "Procs per node": "procs_per_node",
    "Score formula": "score_formula",
    "Kind": "kind",
}
#: Configuration keys that, like CLASS_FIELDS, make two runs different experiments (the benchmark's rules mode).
CLASS_CONFIG_PREFIXES = ("config:rules", "config:scc")
#: Sections after the versions, each with the prefix of its field names.
KEYED_SECTIONS = (("tunables", "tunable"), ("striping", "striping"))
LATER_SECTIONS = (("config", "config"), ("commands", "command"), ("info", "info"))


def attribute(diff: RunDiff) -> list[dict]:
    """[{"field", "before", "after"}] for what differs between the two runs of `diff`, most specific first."""
    patches: list[dict] = []
    recommits: list[dict] = []
    for patch in diff.patches:
        change = patch.changes[1]
        if not change:
            continue
        name = f"patch:{patch.ticket or patch.commit[:12]} {patch.summary}".strip()
        entry = {"field": name, "before": _patch_state(patch, 0), "after": _patch_state(patch, 1)}
        (recommits if change == RECOMMITTED else patches).append(entry)
    entries = patches + _section_entries(diff, "lustre", VERSION_FIELDS) + _section_entries(diff, "run", VERSION_FIELDS)
    for key, prefix in KEYED_SECTIONS:
        entries += _prefixed_entries(diff, key, prefix)
    entries += _section_entries(diff, "run", CLASS_FIELDS)
    for key, prefix in LATER_SECTIONS:
        entries += _prefixed_entries(diff, key, prefix)
    return entries + recommits


def _patch_state(patch, index: int) -> str | None:
    if patch.statuses[index] is None:
        return None
    return f"{patch.statuses[index]} {(patch.commits[index] or '')[:10]}".strip()


def _section_entries(diff: RunDiff, key: str, names: dict[str, str]) -> list[dict]:
    found = {difference.key: difference for difference in diff.section(key).differences}
    entries = []
    for label, name in names.items():
        difference = found.get(label)
        if difference and difference.values[0] != difference.values[1]:
            entries.append({"field": name, "before": difference.values[0], "after": difference.values[1]})
    return entries


def _prefixed_entries(diff: RunDiff, key: str, prefix: str) -> list[dict]:
    return [
        {"field": f"{prefix}:{difference.key}", "before": difference.values[0], "after": difference.values[1]}
        for difference in diff.section(key).differences
        if difference.values[0] != difference.values[1]
    ]


def configuration_entries(attribution: list[dict]) -> list[dict]:
    """The entries that change the configuration class (client nodes, procs, kind, rules mode): a step there
    compares two experiments, not one file system before and after, and is expected."""
    return [
        entry
        for entry in attribution
        if entry["field"] in CLASS_FIELDS.values() or entry["field"].startswith(CLASS_CONFIG_PREFIXES)
    ]


def describe(attribution: list[dict]) -> str:
    """One line for feeds and markers: "patch:LU-16338 …: absent → applied; client_nodes: 10 → 20"."""
    if not attribution:
        return "unexplained: no recorded input differs"
    return "; ".join(f"{entry['field']}: {entry['before'] or '—'} → {entry['after'] or '—'}" for entry in attribution)
