"""`apps/` reaches Django and DRF through their public interfaces only: no private attribute of theirs is read or
written, no model instance is built around `__init__`, no rows are deleted around the ORM's collector. A name here
is what the next Django or DRF release may change without a word; `make lint` runs this check."""

import re
from pathlib import Path

from tests.conftest import REPO_ROOT

APPS = REPO_ROOT / "apps"

#: Each banned name and why a reader must not meet it in apps/.
BANNED = {
    "_prefetched_objects_cache": "Django's prefetch cache: use prefetch_related / Prefetch",
    "_result_cache": "a queryset's private cache: evaluate the queryset, or read values()",
    "_prefetch_done": "a queryset's private prefetch flag: use prefetch_related",
    "_iterable_class": "a queryset's private iterable: use values() / values_list()",
    "_chain()": "a queryset's private clone: use all() or filter()",
    "__new__(": "a model built without __init__: use the queryset, or values() rows",
    "source_attrs": "a DRF field's private source path: use a plain serializer or values()-built dicts",
    "_readable_fields": "DRF's private field list: use a plain serializer",
    "PKOnlyObject": "DRF's private related-field stand-in: use a plain serializer",
    "_raw_delete": "a delete around Django's collector: use delete()",
}
PATTERN = re.compile("|".join(re.escape(name) for name in BANNED))


def banned_uses(root: Path) -> list[str]:
    """ "file:line: name (why)" for every banned name in the Python source under `root`."""
    found = []
    for path in sorted(root.rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            for match in PATTERN.finditer(line):
                found.append(f"{path.relative_to(root.parent)}:{number}: {match.group(0)} ({BANNED[match.group(0)]})")
    return found


def test_apps_use_only_the_frameworks_public_interfaces():
    assert banned_uses(APPS) == []


def test_the_check_names_the_file_and_line_of_a_banned_name(tmp_path):
    package = tmp_path / "apps" / "results"
    package.mkdir(parents=True)
    (package / "rows.py").write_text("rows = list(runs)\nrun._prefetched_objects_cache = {}\nrows.source_attrs\n")
    assert banned_uses(tmp_path / "apps") == [
        "apps/results/rows.py:2: _prefetched_objects_cache (Django's prefetch cache: use prefetch_related / Prefetch)",
        "apps/results/rows.py:3: source_attrs (a DRF field's private source path: use a plain serializer or "
        "values()-built dicts)",
    ]
