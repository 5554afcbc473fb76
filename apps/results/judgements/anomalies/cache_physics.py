"""Whether a fast read or stat can have come from a cache, from the physics of the run and corroboration.

A ratio rule says "faster than the corpus thinks plausible"; this module also weighs what the run
itself allows and what else in it points at a cache. Each piece of evidence is kept with its numbers
and a verdict, and the cache rules name the decisive one:

* **ratio** (``cache``/``none``): the read (stat) rate over the write (create) rate of the same data,
  against its calibrated threshold ``T`` = ``RATIO_MULTIPLE`` x the corpus p90 of that ratio.
* **network** (``exceeds``/``within``): a read served from storage crosses the client network, so
  the per-node read rate cannot exceed the declared client network bandwidth; beyond it the data
  came from the client's memory. Decisive on its own.
* **locality** (``own_data``/``other_node``): a client cache can only answer a read of data the same
  node wrote. IOR reads with task reordering (``-C``, ``-Z``, shifted by ``-Q`` nodes) read another
  node's data; on one client node (or with a ``-Q`` shift that is a multiple of the node count) every
  read is of the node's own data. mdtest stat/read phases without ``-N`` stat and read their own
  files: recorded, but weighing nothing (the A/B below).
* **memory** (``fits``/``exceeds``): data read per node against the declared client memory; data
  that does not fit cannot have been read back from the client's cache as a whole.
* **sibling_read** (``unusual``/``usual``), IOR reads only: the other IOR read (easy for hard, hard
  for easy) is also beyond the p90 of its ratio: both read back faster than the corpus's spread.

**Pieces that did not earn their place.** Each piece was A/B-tested on the labelled public corpus, in
sample and on the out-of-sample folds (``python -m bench cache_piece_ab``, docs/anomalies.md): a stat cache
effect as corroboration of an IOR read (``stat_cache``) and an mdtest phase without ``-N`` as
support (``cache_weight_mdtest_own_data``) gained no recall anywhere and added false positives
(sub-212; sub-42 and, for ``cache_effect_stat``, sub-42 and sub-63), so they are gone.

**Hard-phase ratios.** ior-hard writes 47,008-byte records into one shared file and is bound by the
file system's lock contention, mdtest-hard creates 3,901-byte files in one shared directory, bound by
directory locking; their reads take no such locks, so a high read/write ratio there says as much
about a slow write as about a cached read. Their thresholds are 5 x the p90 of a wide distribution
(ior-hard p90 8.9x, threshold 44x) for that reason. Requiring corroboration on top was measured
(docs/anomalies.md): 3 of the 4 labelled read cache effects are decided by a hard ratio alone, so
that would lose them; the hard ratios keep deciding at their threshold.

Combination. A piece in ``DECISIVE_PIECES`` (``network: exceeds``) decides alone. Otherwise each
supporting piece (``own_data``, ``fits``, ``unusual``) adds its weight ``w`` to the evidence, and a ratio of at least
``p90 x RATIO_MULTIPLE ** (1 / (1 + sum w))`` is a finding: with no support that is the threshold
itself, each piece of weight 1 takes a further root of the multiple (5, 2.24, 1.71 ... times p90).
The weights are fitted without labels (``calibration.fit_cache_weights``): a piece weighs 1 when it
is at most as common among the training runs as a ratio beyond p90 (10 %), less when it is common.
A read of another node's data, or of more data than the client memory holds, takes the client-cache
pieces (``own_data``, ``fits``) out: only corroboration from other phases can then lower the ratio.
Plain Python, no Django.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import asdict
from typing import Any

from apps.results.judgements.anomalies.facts import PhaseFacts, RunFacts
from apps.results.judgements.anomalies.thresholds import RATIO_MULTIPLE

GBIT_PER_GIB = 8 * 1.073741824  # 1 GiB/s in Gbit/s

# (fast phase, reference phase, threshold key): the fast phase re-reads what the reference made.
STAT_PAIRS = (
    ("mdtest_easy_stat", "mdtest_easy_write", "stat_over_create_easy"),
    ("mdtest_hard_stat", "mdtest_hard_write", "stat_over_create_hard"),
)
READ_PAIRS = (
    ("ior_easy_read", "ior_easy_write", "read_over_write_ior_easy"),
    ("ior_hard_read", "ior_hard_write", "read_over_write_ior_hard"),
    ("mdtest_hard_read", "mdtest_hard_write", "read_over_write_mdtest_hard"),
)
IOR_READ_PAIRS = READ_PAIRS[:2]

# supporting verdict of each piece -> the threshold key of its weight (locality: IOR reads only; an
# mdtest phase's locality is recorded but weighs nothing)
SUPPORTING = {
    ("locality", "own_data"): None,
    ("memory", "fits"): "cache_weight_memory_fits",
    ("sibling_read", "unusual"): "cache_weight_sibling_read",
}
LOCALITY_WEIGHT = {"ior": "cache_weight_ior_own_data"}
WEIGHT_KEYS = (*LOCALITY_WEIGHT.values(), *(key for key in SUPPORTING.values() if key))
CLIENT_CACHE_PIECES = ("locality", "memory")
# Pieces (piece, verdict) that decide a finding on their own, whatever the ratio: physics no storage
# can beat. The hook for rules measuring a ceiling (``above_measured_ceiling``, the stack's measured
# client bandwidth): such a piece is added to ``judge``'s pieces and listed here.
DECISIVE_PIECES = (("network", "exceeds"),)


def tool_of(phase_name: str) -> str:
    return "ior" if phase_name.startswith("ior") else "mdtest"


def ratio_of(facts: RunFacts, fast_name: str, reference_name: str) -> float | None:
    fast, reference = facts.phase_value(fast_name), facts.phase_value(reference_name)
    if fast and reference and fast > 0 and reference > 0:
        return fast / reference
    return None


def own_data(facts: RunFacts, phase: PhaseFacts, fast_name: str) -> bool | None:
    """Does the phase read what its own node wrote? The parsers' typed facts say (None = unknown).

    IOR: ``task_reordering`` (``-C`` constant shift, ``-Z`` random order); mdtest: ``rank_shift`` (``-N``).
    A shift only leaves the node when there is another node to go to: on one client node every task reads
    back what that node wrote, whatever the flags (hpc/ior#328), and a constant shift of ``-Q`` nodes that is
    a multiple of the node count comes back to the writing node (IOR shifts by whole nodes since hpc/ior#162).
    """
    nodes = _client_nodes(facts)
    if nodes == 1:
        return True
    if tool_of(fast_name) == "ior":
        reordering = phase.task_reordering
        if reordering is None:
            return None
        if reordering.constant and not reordering.random and nodes and (reordering.offset or 1) % nodes == 0:
            return True
        return not (reordering.constant or reordering.random)
    return None if phase.rank_shift is None else phase.rank_shift == 0


def locality(facts: RunFacts, phase: PhaseFacts, fast_name: str) -> dict[str, Any] | None:
    own = own_data(facts, phase, fast_name)
    if own is None:
        return None
    detail: dict[str, Any]
    if tool_of(fast_name) == "ior":
        detail = {"task_reordering": asdict(phase.task_reordering) if phase.task_reordering else None}
    else:
        detail = {"rank_shift": phase.rank_shift}
    return {
        "piece": "locality",
        **detail,
        "client_nodes": _client_nodes(facts),
        "verdict": "own_data" if own else "other_node",
    }


def network(facts: RunFacts, phase: PhaseFacts) -> dict[str, Any] | None:
    """Per-node read rate (IOR phases, GiB/s) against the declared client network bandwidth."""
    nodes = _client_nodes(facts)
    if not (facts.client_network_gbit and nodes and phase.value and phase.unit == "GiB/s"):
        return None
    per_node = phase.value * GBIT_PER_GIB / nodes
    return {
        "piece": "network",
        "per_node_gbit": per_node,
        "client_network_gbit": facts.client_network_gbit,
        "source": facts.client_network_source,
        "client_nodes": nodes,
        "verdict": "exceeds" if per_node > facts.client_network_gbit else "within",
    }


def data_per_node_gib(facts: RunFacts, phase: PhaseFacts) -> float | None:
    """Data read per node (rate x time / nodes, IOR phases in GiB/s); None when a figure is missing."""
    nodes = _client_nodes(facts)
    if not (nodes and phase.value and phase.seconds and phase.unit == "GiB/s"):
        return None
    return phase.value * phase.seconds / nodes


def memory(facts: RunFacts, phase: PhaseFacts) -> dict[str, Any] | None:
    """Data read per node against the declared client memory."""
    per_node = data_per_node_gib(facts, phase)
    if not (facts.client_memory_gib and per_node):
        return None
    return {
        "piece": "memory",
        "data_per_node_gib": per_node,
        "client_memory_gib": facts.client_memory_gib,
        "source": facts.client_memory_source,
        "verdict": "fits" if per_node <= facts.client_memory_gib else "exceeds",
    }


def sibling_read(facts: RunFacts, fast_name: str, thresholds: Mapping[str, Any]) -> dict[str, Any] | None:
    """The other IOR read's ratio against its p90 (its threshold / ``RATIO_MULTIPLE``)."""
    if fast_name not in {fast for fast, _, _ in IOR_READ_PAIRS}:
        return None
    (other, reference, key), *_ = [pair for pair in IOR_READ_PAIRS if pair[0] != fast_name]
    ratio = ratio_of(facts, other, reference)
    if ratio is None:
        return None
    usual_up_to = float(thresholds[key]) / RATIO_MULTIPLE
    return {"piece": "sibling_read", "phase": other, "ratio": ratio, "p90": usual_up_to,
            "verdict": "unusual" if ratio > usual_up_to else "usual"}  # fmt: skip


def _client_nodes(facts: RunFacts) -> int | None:
    counts = sorted({int(entry["nodes"]) for entry in facts.tool_node_counts if entry.get("nodes")})
    if len(counts) == 1:
        return counts[0]
    return facts.client_nodes_declared


def weight_of(piece: dict[str, Any], fast_name: str, thresholds: Mapping[str, Any]) -> float:
    """The fitted weight of a supporting piece, 0 for a piece that does not support a cache."""
    key = (piece["piece"], piece["verdict"])
    if key not in SUPPORTING:
        return 0.0
    weight_key = SUPPORTING[key] or LOCALITY_WEIGHT.get(tool_of(fast_name))
    return float(thresholds[weight_key]) if weight_key else 0.0


def required_ratio(threshold: float, weight: float) -> float:
    """The ratio a finding needs with supporting evidence of total ``weight`` (the threshold at 0)."""
    return threshold / RATIO_MULTIPLE * RATIO_MULTIPLE ** (1 / (1 + weight))


def judge(
    facts: RunFacts, fast_name: str, ratio: float, threshold: float, thresholds: Mapping[str, Any]
) -> tuple[str | None, list[dict[str, Any]], float]:
    """(decisive piece or None, every piece of evidence, ratio needed) for one fast phase and its ratio.

    IOR reads are corroborated by the other IOR read. mdtest phases are judged by their ratio: the
    stat and read of the mdtest-hard files go through the same metadata client cache, so neither
    corroborates the other.
    """
    phase = facts.phases[fast_name]
    pieces: list[dict[str, Any]] = [{"piece": "ratio", "ratio": ratio, "threshold": threshold,
                                     "verdict": "cache" if ratio >= threshold else "none"}]  # fmt: skip
    physical = [locality(facts, phase, fast_name), network(facts, phase), memory(facts, phase)]
    if fast_name in {fast for fast, _, _ in IOR_READ_PAIRS}:
        physical.append(sibling_read(facts, fast_name, thresholds))
    pieces += [piece for piece in physical if piece]
    verdicts = {piece["piece"]: piece["verdict"] for piece in pieces}
    own_cache_impossible = verdicts.get("locality") == "other_node" or verdicts.get("memory") == "exceeds"
    for piece in pieces[1:]:
        excluded = own_cache_impossible and piece["piece"] in CLIENT_CACHE_PIECES
        piece["weight"] = 0.0 if excluded else weight_of(piece, fast_name, thresholds)
    supporting = sorted((p for p in pieces if p.get("weight")), key=lambda p: -p["weight"])
    required = required_ratio(threshold, sum(piece["weight"] for piece in supporting))
    pieces[0]["required"] = required
    for name, verdict in DECISIVE_PIECES:
        if verdicts.get(name) == verdict:
            return name, pieces, required
    if ratio >= threshold:
        return "ratio", pieces, required
    if ratio < required:
        return None, pieces, required
    # the decisive piece: the one whose weight, added in order of weight, first lets the ratio through
    totals = itertools.accumulate(piece["weight"] for piece in supporting)
    decisive = next(
        piece["piece"]
        for piece, total in zip(supporting, totals, strict=True)
        if ratio >= required_ratio(threshold, total)
    )
    return decisive, pieces, required
