"""The rig: the real components (PostgreSQL, Redis, gunicorn, Celery workers) started on loopback.

The benchmarks (``bench``) and the tests that need a whole stack (``tests/config``, ``tests/faults``) start
their services through it, so both stop what they started by its process group and talk to 127.0.0.1 only.
It imports no app: a child process is configured by its environment, never by importing the site.
"""

import sys
from pathlib import Path

#: The repository's root (manage.py, config/, apps/): the one definition the benchmarks and the rig use.
REPO_ROOT = Path(__file__).resolve().parents[1]
VENV_BIN = REPO_ROOT / ".venv" / "bin"
#: The interpreter a child runs: the project's virtualenv when there is one, else this one.
PYTHON = str(VENV_BIN / "python") if (VENV_BIN / "python").exists() else sys.executable
