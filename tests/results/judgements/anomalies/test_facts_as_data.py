"""A run's facts are stored as the plain data the standard library's ``dataclasses.asdict`` makes of them, and
read back to the same facts, without the deep copy asdict pays for (issue 39)."""

from dataclasses import asdict

from apps.results.judgements.anomalies.facts import PhaseFacts, RunFacts, ScoreFacts, TaskReordering


def facts() -> RunFacts:
    return RunFacts(
        source_path="2023/submission-1",
        phases={
            "ior-easy-write": PhaseFacts(
                value=12.5,
                unit="GiB/s",
                task_reordering=TaskReordering(constant=True, offset=1),
                details={"tasks": 64, "stonewall": [{"rank": 0, "done": 10}, {"rank": 1, "done": (9, 10)}]},
            )
        },
        computed_score=ScoreFacts(bw=1.0, md=2.0, total=1.41),
        tool_node_counts=[{"tool": "ior", "nodes": 4}],
        rank_stats={"ior-easy-write": {"p50": 1.0}},
    )


def test_facts_as_data_are_what_asdict_makes_of_them_and_read_back_the_same():
    data = facts().to_dict()

    assert data == asdict(facts())
    assert isinstance(data["phases"]["ior-easy-write"], dict)
    assert isinstance(data["phases"]["ior-easy-write"]["task_reordering"], dict)
    assert RunFacts.from_dict(data).to_dict() == data


def test_the_data_are_new_containers_the_facts_do_not_share():
    source = facts()
    data = source.to_dict()

    data["phases"]["ior-easy-write"]["details"]["tasks"] = 1
    data["tool_node_counts"].append({"tool": "mdtest"})

    assert source.phases["ior-easy-write"].details["tasks"] == 64
    assert source.tool_node_counts == [{"tool": "ior", "nodes": 4}]
