"""The layers hold: results is the ground, no module of apps/ is part of an import cycle."""

import subprocess
import sys
from pathlib import Path

import grimp

from tests.conftest import REPO_ROOT


def test_no_module_of_apps_is_part_of_an_import_cycle():
    graph = grimp.build_graph("apps")
    cycles = sorted(
        f"{importer} -> {imported} -> ... -> {importer}"
        for importer in graph.modules
        for imported in graph.find_modules_directly_imported_by(importer)
        if graph.chain_exists(importer=imported, imported=importer)
    )
    assert cycles == []


def test_the_import_contracts_of_pyproject_are_kept():
    done = subprocess.run(
        [str(Path(sys.executable).parent / "lint-imports"), "--no-cache"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def test_a_tool_folder_is_plain_python_but_for_its_pipeline():
    # The contract in pyproject lists the plain modules' names; this catches a new module it does not name.
    graph = grimp.build_graph("apps", "django")
    tool_modules = graph.find_descendants("apps.ingest.tools") | {"apps.ingest.tools"}
    plain = sorted(module for module in tool_modules if not module.endswith(".pipeline"))
    assert len(plain) > 30
    reaching_django = [
        module
        for module in plain
        if any(upstream.startswith("django") for upstream in graph.find_upstream_modules(module))
    ]
    assert reaching_django == []
    assert {module for module in tool_modules if module.endswith(".pipeline")} == {
        f"apps.ingest.tools.{tool}.pipeline" for tool in ("io500", "mdtest", "ior", "stack")
    }
