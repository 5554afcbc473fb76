"""Bottom-up benchmarking campaigns ("stacks"): the semantics, in plain Python (no Django).

``semantics.py`` computes what a campaign's measurements mean (``expected``, ``efficiency``,
outliers among peers, the file-system ceiling with what limits it, over-ceiling runs) from an
``Inventory`` and its ``Measurement`` list; ``apps.results.models.stacks`` stores the result and
``apps.ingest.tools.stack.pipeline`` reads a campaign into it. See ``docs/stacks.md``.
"""
