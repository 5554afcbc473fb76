"""What the grammars share: ``ParseError`` (``errors.py``), the line cap and walk (``lines.py``), printed numbers
and manifest rows (``values.py``), command lines, JSON-safe values, the Lustre readers. No Django in this package.

A reader that only one tool uses lives in that tool's folder (``apps/ingest/tools/<tool>/``)."""
