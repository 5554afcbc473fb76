"""The published IO500 record (io500.org's SQL files): their replay (`replay.py`) and the corrections of their
known defects (`corrections.py`)."""
