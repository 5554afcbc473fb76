"""A campaign that names an unknown component, lists a log for an operation it does not measure, or
prints a unit its tool cannot read is refused with the file and line, and nothing is stored."""

import shutil
from pathlib import Path

import pytest
from django.core.management import call_command

from apps.results.models import Stack, StackComponent, StackMeasurement

DATA = Path(__file__).resolve().parents[3] / "data" / "stack" / "beacon-io2"

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign(tmp_path) -> Path:
    copy = tmp_path / "campaign"
    shutil.copytree(DATA, copy)
    return copy


def refused(campaign: Path, capsys) -> str:
    with pytest.raises(SystemExit):
        call_command("ingest", "--kind", "stack", str(campaign), "--name", "bad")
    assert Stack.objects.count() == 0
    assert StackComponent.objects.count() == 0
    assert StackMeasurement.objects.count() == 0
    return capsys.readouterr().err


def edit_manifest(campaign: Path, old: str, new: str) -> int:
    manifest = campaign / "manifest.csv"
    lines = manifest.read_text().splitlines()
    number = next(index for index, line in enumerate(lines, start=1) if old in line)
    lines[number - 1] = lines[number - 1].replace(old, new)
    manifest.write_text("\n".join(lines) + "\n")
    return number


def test_an_unknown_component_is_refused_with_the_manifest_line(campaign, capsys):
    line = edit_manifest(campaign, ",io2-card1,", ",io2-card9,")
    assert f"manifest.csv:{line}: unknown component 'io2-card9'" in refused(campaign, capsys)


def test_a_log_without_the_listed_operation_is_refused_naming_the_log(campaign, capsys):
    # the brw write log listed for read: lst measured what the servers received, not what they sent
    line = edit_manifest(campaign, "io2-brw-read.txt,io2-o2ib,lnet,read", "io2-brw-write.txt,io2-o2ib,lnet,read")
    assert line
    assert "logs/lnet_selftest/io2-brw-write.txt: this lnet_selftest log has no read measurement" in refused(
        campaign, capsys
    )


def test_a_unit_the_tool_cannot_read_is_refused_with_the_log_line(campaign, capsys):
    log = campaign / "logs" / "iozone" / "io2" / "ost0pool.txt"
    lines = log.read_text().splitlines()
    number = next(i for i, text in enumerate(lines, start=1) if "Children see throughput" in text)
    lines[number - 1] = lines[number - 1].replace("KB/sec", "ops/sec")
    log.write_text("\n".join(lines) + "\n")
    assert f"logs/iozone/io2/ost0pool.txt:{number}: IOzone unit 'ops/sec'" in refused(campaign, capsys)


def test_a_component_standing_on_an_unknown_one_is_refused_with_the_yaml_line(campaign, capsys):
    stack = campaign / "stack.yaml"
    lines = stack.read_text().splitlines()
    number = next(i for i, text in enumerate(lines, start=1) if '"io2-ost0pool"' in text and "groups" in text)
    lines[number - 1] = lines[number - 1].replace('"io2-card1"', '"io2-card7"')
    stack.write_text("\n".join(lines) + "\n")
    assert f"stack.yaml:{number}: io2-ost0pool: unknown component 'io2-card7'" in refused(campaign, capsys)


def test_a_log_outside_the_campaign_is_refused(campaign, capsys):
    line = edit_manifest(campaign, "logs/iozone/io2/ost0pool.txt", "../../etc/passwd")
    assert f"manifest.csv:{line}: log '../../etc/passwd' must be a path inside the campaign" in refused(
        campaign, capsys
    )


def test_yaml_aliases_are_refused_with_their_line(campaign, capsys):
    stack = campaign / "stack.yaml"
    stack.write_text(stack.read_text() + 'laughs: &a ["ha", "ha"]\nmore: [*a, *a]\n')
    line = len(stack.read_text().splitlines())
    assert f"stack.yaml:{line}: not valid YAML: aliases (*name) are not allowed" in refused(campaign, capsys)


def test_manifest_columns_are_found_by_name_in_any_order(campaign):
    manifest = campaign / "manifest.csv"
    lines = manifest.read_text().splitlines()
    reordered = [",".join([*reversed(line.split(",")), "note"]) for line in lines]
    manifest.write_text("\n".join(reordered) + "\n")
    call_command("ingest", "--kind", "stack", str(campaign), "--name", "reordered")
    assert Stack.objects.get(name="reordered").measurements.count() == 58


def test_a_manifest_row_csv_cannot_read_is_refused_with_its_line(campaign, capsys):
    manifest = campaign / "manifest.csv"
    manifest.write_text(manifest.read_text() + 'logs/x,"' + "y" * 200_000 + '",device,read,xdd\n')
    assert "manifest.csv:" in refused(campaign, capsys)
