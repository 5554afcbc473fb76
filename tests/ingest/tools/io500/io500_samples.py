"""Sample IO500 result trees in tests/data/io500 and helpers to copy and edit them in a temp folder.

Samples (each a copy of one public IO500/submission-data submission, huge raw outputs removed):

* ``bash-results``: NCI Raijin Gdata4 submission-100, io500.sh era, ``results/`` + io500.sh at the root
* ``bash-product``: CERN submission-179, io500.sh era whose TOTAL is BW x MD
* ``capp-result-dir``: LCPQ Ampere submission-686, C app io500-sc23, ``results/<timestamp>/``
* ``capp-extended``: HHMIJRC submission-578, C app io500-sc21 extended mode, flat layout
  (mdworkbench-create/-delete raw outputs dropped)
* ``sc17-product``: DKRZ submission-109 JCAHPC-17, SC17 job stdout and its per-family result files
* ``raw``: single IOR/mdtest outputs of several tool versions (see tests/data/io500/README.md)
"""

import shutil
from pathlib import Path

SAMPLES = Path(__file__).resolve().parents[3] / "data" / "io500"
RAW = SAMPLES / "raw"

BASH_RUN = "bash-results/submission-100/results"
PRODUCT_RUN = "bash-product/submission-179/results"
CAPP_RUN = "capp-result-dir/submission-686/results/2023.10.25-16.06.23"
EXTENDED_RUN = "capp-extended/submission-578"
SC17_RUN = "sc17-product/submission-109/JCAHPC-17/jcahpc"


def copy_sample(name: str, destination: Path) -> Path:
    """Copy one sample tree into ``destination/name`` (writable) and return that folder."""
    target = destination / name
    shutil.copytree(SAMPLES / name, target)
    for path in [target, *target.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return target


def edit_lines(path: Path, edit) -> None:
    """Rewrite a text file through ``edit(list of lines) -> list of lines`` (line ends kept)."""
    lines = path.read_text(encoding="utf-8", errors="surrogateescape").splitlines(keepends=True)
    path.write_text("".join(edit(lines)), encoding="utf-8", errors="surrogateescape")
