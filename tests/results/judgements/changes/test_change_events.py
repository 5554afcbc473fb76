"""Which attribution entries make a step another experiment (expected), rather than a change of the file system."""

from apps.results.judgements.changes.attribution import configuration_entries

NODES = {"field": "client_nodes", "before": "10", "after": "20"}
RULES = {"field": "config:rules", "before": "regular", "after": "scc"}
TUNABLE = {"field": "tunable:client: osc.*.max_pages_per_rpc", "before": "16M", "after": "4M"}
UPGRADE = {"field": "lustre.server_version", "before": "2.15.3", "after": "2.15.4"}


def test_client_nodes_and_the_rules_mode_are_another_configuration():
    assert configuration_entries([TUNABLE, NODES, UPGRADE, RULES]) == [NODES, RULES]


def test_an_upgrade_or_a_tunable_is_a_change_of_the_same_system():
    assert configuration_entries([TUNABLE, UPGRADE]) == []
    assert configuration_entries([]) == []
