"""The benchmarks: one package, run as ``.venv/bin/python -m bench NAME [options]`` (``--list`` names them).

Each benchmark measures in child processes started through ``rig`` (so each figure has its own peak RSS),
prints a Markdown table, and with ``--json FILE`` writes its figures for ``python -m bench report``, which
regenerates docs/performance.md as one current table. The benchmarks are registered by name in
``bench/registry.py``; the plumbing they share is in ``bench/harness/``; the data they generate comes from
``synth``. Everything talks to 127.0.0.1 only; every loop is bounded in count and in time.
"""
