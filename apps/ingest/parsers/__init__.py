"""File parsers: result files in, plain records (``records.py``) out. No Django in this package."""
