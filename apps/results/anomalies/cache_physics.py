"""Whether a fast read or stat can have come from a cache, from the physics of the run, not only ratios.

A ratio rule says "faster than the corpus thinks plausible"; this module says what the run itself
allows. Each piece of evidence is kept with its numbers and a verdict, and the cache rules name the
decisive one:

* **ratio** (``cache``/``none``): the calibrated ratio of the read to the write of the same data.
* **locality** (``own_data``/``other_node``): a client cache can only answer a read of data the same
  node wrote. IOR reads with task reordering (``-C``, ``-Z``, shifted by ``-Q``) read another node's
  data; mdtest stat/read phases without ``-N`` stat and read their own files. Read from the typed
  ``PhaseFacts.task_reordering`` / ``rank_shift`` the IOR and mdtest readers extract.
* **network** (``exceeds``/``within``): a read served from storage crosses the client network, so
  the per-node read rate cannot exceed the declared client network bandwidth; beyond it the data
  came from the client's memory. Decisive on its own.
* **memory** (``fits``/``exceeds``): data read per node against the declared client memory; data
  that does not fit cannot have been read back from the client's cache as a whole.

Combination: the network verdict ``exceeds`` is decisive (physically impossible from storage); else
a ratio at its threshold is decisive; else a ratio of at least ``supported_ratio_fraction`` of its
threshold is a finding when the run read its own data and (when memory is declared) the data fit:
the physics makes a client cache possible and the ratio says it was used. Plain Python, no Django.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from apps.results.anomalies.facts import PhaseFacts, RunFacts

GBIT_PER_GIB = 8 * 1.073741824  # 1 GiB/s in Gbit/s


def locality(phase: PhaseFacts, fast_name: str) -> dict[str, Any] | None:
    """Does the phase read what its own node wrote? The parsers' typed facts say (None = unknown).

    IOR: ``task_reordering`` (``-C`` constant shift, ``-Z`` random order); mdtest: ``rank_shift`` (``-N``).
    """
    if fast_name.startswith("ior"):
        reordering = phase.task_reordering
        if reordering is None:
            return None
        reordered = reordering.constant or reordering.random
        return {"piece": "locality", "task_reordering": asdict(reordering),
                "verdict": "other_node" if reordered else "own_data"}  # fmt: skip
    if phase.rank_shift is None:
        return None
    return {"piece": "locality", "rank_shift": phase.rank_shift,
            "verdict": "other_node" if phase.rank_shift else "own_data"}  # fmt: skip


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


def memory(facts: RunFacts, phase: PhaseFacts) -> dict[str, Any] | None:
    """Data read per node (rate x time / nodes, IOR phases) against the declared client memory."""
    nodes = _client_nodes(facts)
    if not (facts.client_memory_gib and nodes and phase.value and phase.seconds and phase.unit == "GiB/s"):
        return None
    per_node = phase.value * phase.seconds / nodes
    return {
        "piece": "memory",
        "data_per_node_gib": per_node,
        "client_memory_gib": facts.client_memory_gib,
        "source": facts.client_memory_source,
        "verdict": "fits" if per_node <= facts.client_memory_gib else "exceeds",
    }


def _client_nodes(facts: RunFacts) -> int | None:
    counts = sorted({int(entry["nodes"]) for entry in facts.tool_node_counts if entry.get("nodes")})
    if len(counts) == 1:
        return counts[0]
    return facts.client_nodes_declared


def judge(
    facts: RunFacts, fast_name: str, ratio: float, threshold: float, supported_fraction: float
) -> tuple[str | None, list[dict[str, Any]]]:
    """(decisive piece or None, every piece of evidence) for one fast phase and its ratio."""
    phase = facts.phases[fast_name]
    pieces = [{"piece": "ratio", "ratio": ratio, "threshold": threshold,
               "verdict": "cache" if ratio >= threshold else "none"}]  # fmt: skip
    physical = (locality(phase, fast_name), network(facts, phase), memory(facts, phase))
    pieces += [piece for piece in physical if piece]
    verdicts = {piece["piece"]: piece["verdict"] for piece in pieces}
    if verdicts.get("network") == "exceeds":
        return "network", pieces
    if ratio >= threshold:
        return "ratio", pieces
    if (
        ratio >= supported_fraction * threshold
        and verdicts.get("locality") == "own_data"
        and verdicts.get("memory", "fits") == "fits"
    ):
        return "ratio_with_own_data_reads", pieces
    return None, pieces
