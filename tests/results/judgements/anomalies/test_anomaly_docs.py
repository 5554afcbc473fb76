"""docs/anomalies.md and the settings examples say what the rules really do.

The rules table is read as the spec a reader trusts: every registered rule has one row, with the
severity the rule class declares and each threshold key it reads at its default value. Every key an
``IOBOARD_ANOMALY_THRESHOLDS`` example names (README, docs, settings) must be a real threshold, since
``resolve_thresholds`` rejects unknown keys at the first run checked.
"""

import ast
import re
from pathlib import Path

import pytest

from apps.results.judgements.anomalies import DEFAULT_THRESHOLDS, RULES

REPO_ROOT = Path(__file__).resolve().parents[4]
ANOMALIES_DOC = REPO_ROOT / "docs" / "anomalies.md"
SETTING = "IOBOARD_ANOMALY_THRESHOLDS"
DICT_LITERAL = re.compile(r"\{[^{}]*\}")


def rules_table() -> dict[str, list[str]]:
    """Rows of the table under "## Rules", keyed by rule name: [fires when, threshold, severity, corpus]."""
    section = ANOMALIES_DOC.read_text().split("## Rules", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("| `") and len(cells) == 5:
            rows[cells[0].strip("`")] = cells[1:]
    return rows


def settings_examples(path: Path) -> list[dict]:
    """Every non-empty dict literal on a line that mentions the setting, or on the line just before it
    (a comment above the assignment)."""
    lines = path.read_text().splitlines()
    examples = []
    for number, line in enumerate(lines):
        if SETTING not in line:
            continue
        for literal in DICT_LITERAL.findall("\n".join(lines[max(0, number - 1) : number + 1])):
            try:
                value = ast.literal_eval(literal)
            except (SyntaxError, ValueError):
                continue
            if isinstance(value, dict) and value:
                examples.append(value)
    return examples


def test_the_rules_table_has_one_row_per_registered_rule():
    assert sorted(rules_table()) == sorted(RULES)


@pytest.mark.parametrize("name", sorted(RULES))
def test_each_row_gives_the_severity_the_rule_declares(name):
    severity_cell = rules_table()[name][2]
    assert severity_cell.split(";")[0].split(" ")[0] == RULES[name].severity


@pytest.mark.parametrize("name", sorted(RULES))
def test_each_row_names_the_rules_thresholds_with_their_defaults(name):
    threshold_cell = rules_table()[name][1]
    for key in RULES[name].thresholds:
        default = DEFAULT_THRESHOLDS[key]
        shown = f"{default:g}" if isinstance(default, float) else str(default)
        assert f"`{key}` {shown}" in threshold_cell
    named = set(re.findall(r"`([a-z_]+)`", threshold_cell)) & set(DEFAULT_THRESHOLDS)
    assert named == set(RULES[name].thresholds)


def test_the_stonewall_only_exception_of_benchmark_marked_invalid_is_documented():
    severity_cell = rules_table()["benchmark_marked_invalid"][2]
    assert severity_cell.startswith("error; warn when every reason is a `stonewall-time` comment")


@pytest.mark.parametrize("path", ["README.md", "docs/anomalies.md", "config/settings.py"])
def test_every_key_of_a_settings_example_is_a_real_threshold(path):
    keys = {key for example in settings_examples(REPO_ROOT / path) for key in example}
    assert keys <= set(DEFAULT_THRESHOLDS), f"{path} names unknown thresholds {sorted(keys - set(DEFAULT_THRESHOLDS))}"


@pytest.mark.parametrize("path", ["docs/anomalies.md", "config/settings.py"])
def test_the_documented_places_do_show_an_example(path):
    assert settings_examples(REPO_ROOT / path)
