"""The C application's integrity hashes, re-implemented: score hash and config hash.

``H(s, h)``: for every byte c of s, ``h = rotl32(h, 2) + c`` (mod 2^32, c a signed C char).
``HKV(k, v) = H(v, H(k, 0))``. Both hashes are XORs of HKV terms, so order does not matter, and
are printed with ``%X`` (no zero padding).

* Score hash (``[SCORE] hash``): HKV("version", version) ^ HKV(phase, score string) for the 12
  scored standard phases ^ HKV("MD", md) ^ HKV("BW", bw) ^ HKV("SCORE", score) [^ HKV("valid", "NO")
  for an invalid run]. io500-isc21_v1 builds left MD and BW out. ``[SCOREX] hash``: the same over
  the optional phases only, without the version.
* Which phases enter the ``[SCORE]`` hash depends on the build (``SCORE_HASH_SCOPES``): up to io500
  commit a69cf60 (2026-06-22) every mandatory phase present in ``result.txt`` is hashed with its
  printed score, even a skipped one printed as ``0.000000``. From a69cf60 on the app asks
  ``u_should_hash_phase`` and skips optional phases and phases that do not enter the score: phases
  without a score group (``timestamp``, ``ior-rnd4K-easy-read``), and, read together with the
  c402d45 score formula that leaves phases with a score <= 0 out of the geometric mean, zero-scored phases.
  A phase name the app does not know is hashed (the C predicate returns true for it). Verification
  tries every scope and records the one that matched, so old and new result files both verify.
* Config hash (``config-hash``): XOR of HKV(option, value) over every option whose value is not
  NULL, including options whose default is the empty string. ``config.ini`` prints unset and empty
  options alike, so the empty-string defaults are taken from the option tables of the app
  (``external-mpi-args`` and ``external-extra-args`` of the find phases). A mismatch is a
  consistency flag (edited config, non-tag build), not a rejection.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

MASK = 0xFFFFFFFF
EMPTY_STRING_DEFAULTS = frozenset({"external-mpi-args", "external-extra-args"})


def io500_hash(text: str, seed: int = 0) -> int:
    value = seed
    for byte in text.encode("utf-8", errors="surrogateescape"):
        char = byte - 256 if byte > 127 else byte
        value = ((((value << 2) | (value >> 30)) & MASK) + char) & MASK
    return value


@functools.lru_cache(maxsize=4096)
def hash_key_value(key: str, value: str) -> int:
    """``HKV(key, value)``. Kept for the pairs met again: a score hash is recomputed for every build's scope
    (``SCORE_HASH_SCOPES``, as valid and invalid) over mostly the same phases, and most options of a config
    hash are defaults every run prints; ``io500_hash`` is a Python loop over each byte."""
    return io500_hash(value, io500_hash(key))


def format_hash(value: int) -> str:
    return f"{value:X}"


def score_hash(
    *,
    version: str | None,
    phase_scores: Iterable[tuple[str, str]],
    md: str | None,
    bw: str | None,
    score: str,
    valid: bool,
) -> str:
    """The printed hash of a ``[SCORE]``/``[SCOREX]`` section.

    ``version`` None leaves the version out (``[SCOREX]``); ``md``/``bw`` None leave them out
    (io500-isc21_v1 builds).
    """
    value = 0 if version is None else hash_key_value("version", version)
    for name, printed in phase_scores:
        value ^= hash_key_value(name, printed)
    if md is not None:
        value ^= hash_key_value("MD", md)
    if bw is not None:
        value ^= hash_key_value("BW", bw)
    value ^= hash_key_value("SCORE", score)
    if not valid:
        value ^= hash_key_value("valid", "NO")
    return format_hash(value)


def config_hash(sections: Mapping[str, Mapping[str, str]]) -> str:
    """The ``config-hash`` of an effective ``config.ini`` (see the module docstring for the caveat)."""
    value = 0
    for options in sections.values():
        for key, option_value in options.items():
            if option_value != "" or key.lower() in EMPTY_STRING_DEFAULTS:
                value ^= hash_key_value(key, option_value)
    return format_hash(value)


def same_hash(printed: str, computed: str) -> bool:
    """Compare hex hashes ignoring case and zero padding."""
    try:
        return int(printed.strip(), 16) == int(computed, 16)
    except ValueError:
        return False


def _entered_the_score(printed: str) -> bool:
    try:
        return float(printed) > 0
    except ValueError:
        return False


@dataclass(frozen=True)
class ScoreHashScope:
    """One build family's choice of what the ``[SCORE]`` hash covers.

    ``hashes_phase(group, printed score)`` decides per phase section of ``result.txt``; ``group`` is
    the phase's score group (``bw``, ``md``, ``bw_ext``, ``md_ext``, ``none``) or ``unknown`` for a
    name the app's phase table does not hold.
    """

    name: str
    description: str
    hashes_md_bw: bool
    hashes_phase: Callable[[str, str], bool]


SCORE_HASH_SCOPES: tuple[ScoreHashScope, ...] = (
    ScoreHashScope(
        name="standard",
        description="builds before io500 a69cf60: every mandatory phase, MD and BW",
        hashes_md_bw=True,
        hashes_phase=lambda group, printed: group in ("bw", "md"),
    ),
    ScoreHashScope(
        name="isc21_v1",
        description="io500-isc21_v1 builds: every mandatory phase, MD and BW left out",
        hashes_md_bw=False,
        hashes_phase=lambda group, printed: group in ("bw", "md"),
    ),
    ScoreHashScope(
        name="a69cf60",
        description="builds from io500 a69cf60 (2026-06-22): optional and unscored phases skipped",
        hashes_md_bw=True,
        hashes_phase=lambda group, printed: group in ("bw", "md", "unknown") and _entered_the_score(printed),
    ),
)
