"""How many client nodes a run ran on, from every piece of evidence its files hold, and which count they support.

The pieces: each raw IOR/mdtest output's own count ("420 task(s) on 420 node(s)"), mdtest's Nodemap (which ranks
share rank 0's node), the count in the name of the MPI hostfile (`cli_hosts_10`), and the count the submitter
declared. They usually agree. When they do not, the run says so (the `node_count_mismatch` rule, with every
piece) and the lists use the count the evidence supports best, or none.

Which count wins: the measurements (each tool's own count, and mdtest's Nodemap, which records where the ranks
really ran) before the labels (the declared count, the hostfile's name). Some MPI stacks make mdtest and IOR count one
node per process, so a tool count equal to the process count yields to a Nodemap that disagrees. Among conflicting
measurements the Nodemap (weight 3) outweighs a tool (2), and the labels (1 each) break ties; a tie that remains
gives no count. Labels alone give a count only when they agree. A Nodemap that puts every rank on one node
while a tool counted N tasks on M > 1 nodes (N not M) cannot be true (every rank reported the same host name, as
in containers) and does not count.
Plain Python: the rule and the ingest both read it.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from apps.results.judgements.anomalies.facts import RunFacts

WEIGHTS = {"tool": 2, "nodemap": 3, "declared": 1, "hostfile": 1}
MEASURED = ("tool", "nodemap")


@dataclass(frozen=True)
class NodeEvidence:
    source: str  # "tool", "nodemap", "declared" or "hostfile"
    nodes: int
    detail: str  # a sentence naming the file and what it says
    one_per_process: bool = False  # a tool count equal to its process count
    witness: str = ""  # which tool (ior, mdtest) or hostfile said it: one line of evidence per witness and count

    def to_dict(self) -> dict:
        return {"source": self.source, "nodes": self.nodes, "detail": self.detail}


def node_count_evidence(facts: RunFacts) -> list[NodeEvidence]:
    """Every piece of evidence of the run's client-node count, in the order above (tools first)."""
    pieces: list[NodeEvidence] = []
    for entry in facts.tool_node_counts:
        nodes, tasks = entry.get("nodes"), entry.get("tasks")
        where = entry.get("source_file") or entry.get("phase", "")
        if nodes:
            tool = entry.get("tool") or "the tool"
            tasks_said = f"{tasks} task(s) on " if tasks else ""
            pieces.append(
                NodeEvidence(
                    "tool",
                    int(nodes),
                    f"{tool} in {where} reports {tasks_said}{nodes} node(s)",
                    one_per_process=bool(tasks and int(tasks) == int(nodes) and int(nodes) > 1),
                    witness=tool,
                )
            )
        if entry.get("nodemap_nodes"):
            mapped = int(entry["nodemap_nodes"])
            share = f" ({int(tasks) // mapped} ranks each)" if tasks and int(tasks) % mapped == 0 else ""
            pieces.append(
                NodeEvidence("nodemap", mapped, f"the Nodemap in {where} places the ranks on {mapped} node(s){share}")
            )
    if facts.client_nodes_declared:
        source = facts.client_nodes_declared_source or "the submission's metadata"
        pieces.append(
            NodeEvidence(
                "declared", facts.client_nodes_declared, f"{facts.client_nodes_declared} node(s) declared in {source}"
            )
        )
    for entry in facts.hostfile_node_counts:
        pieces.append(
            NodeEvidence(
                "hostfile",
                int(entry["nodes"]),
                f"{entry.get('phase', 'a phase')} was launched with the hostfile "
                f"{entry.get('hostfile', '')}, named for {entry['nodes']} node(s)",
            )
        )
    return pieces


def distinct(pieces: list[NodeEvidence]) -> list[NodeEvidence]:
    """One piece per source, witness and count: ten phases of one tool saying the same are one line of evidence."""
    seen, kept = set(), []
    for piece in pieces:
        key = (piece.source, piece.witness, piece.nodes)
        if key not in seen:
            seen.add(key)
            kept.append(piece)
    return kept


def disagree(pieces: list[NodeEvidence]) -> bool:
    return len({piece.nodes for piece in pieces}) > 1


def impossible_nodemap(piece: NodeEvidence, pieces: list[NodeEvidence]) -> bool:
    """A Nodemap that puts every rank on rank 0's node while a tool counted its tasks on several nodes (and not one
    per process): every rank reported the same host name (containers, some MPI stacks), so the map cannot be true."""
    return (
        piece.source == "nodemap"
        and piece.nodes == 1
        and any(other.source == "tool" and other.nodes > 1 and not other.one_per_process for other in pieces)
    )


def best_supported(pieces: list[NodeEvidence]) -> int | None:
    """The count the evidence supports best (the module's docstring), None when no count wins."""
    pieces = [piece for piece in pieces if not impossible_nodemap(piece, pieces)]
    nodemaps = {piece.nodes for piece in pieces if piece.source == "nodemap"}
    kept = [piece for piece in pieces if not (piece.one_per_process and nodemaps and nodemaps != {piece.nodes})]
    measured = [piece for piece in kept if piece.source in MEASURED]
    if not measured:
        labels = {piece.nodes for piece in kept}
        return labels.pop() if len(labels) == 1 else None
    support: dict[int, int] = defaultdict(int)
    for source, nodes in {(piece.source, piece.nodes) for piece in kept}:  # ten phases of one tool: one witness
        if source in MEASURED or nodes in {piece.nodes for piece in measured}:
            support[nodes] += WEIGHTS[source]
    ranked = sorted(support.values(), reverse=True)
    if len(ranked) > 1 and ranked[0] == ranked[1]:
        return None
    return max(support, key=support.__getitem__)


def resolved_client_nodes(facts: RunFacts, counted: int | None) -> int | None:
    """The client-node count a run is listed with: `counted` (what the parser took) while the evidence agrees,
    else the best-supported count (None when no count wins)."""
    pieces = node_count_evidence(facts)
    return best_supported(pieces) if disagree(pieces) else counted
