"""Phase names, groups and units shared by every IO500 grammar.

Names are normalised to lowercase with underscores, whatever the file says: the bash scripts print
``ior_easy_write``, the C app ``ior-easy-write`` / ``ior-rnd4K-easy-read``, the SC17 scripts
``md-easy-create``. One vocabulary lets scores, anomaly rules and charts ignore the era.
"""

from __future__ import annotations

from apps.results.judgements.scoring import (
    BW_PHASES,
    EXTENDED_BW_ONLY,
    EXTENDED_BW_ONLY_ISC21,
    EXTENDED_MD_ONLY,
    MD_PHASES,
)

GIB = "GiB/s"
KIOPS = "kIOPS"

STANDARD_PHASES = BW_PHASES + MD_PHASES
# The mdtest phases that read back what another phase created; from 2019-07 the benchmark runs them
# with ``-N 1`` so that no rank touches the files it created itself (defeats client caches).
MDTEST_READBACK_PHASES = (
    "mdtest_easy_stat",
    "mdtest_easy_delete",
    "mdtest_hard_stat",
    "mdtest_hard_read",
    "mdtest_hard_delete",
)
# The C app's ``timestamp`` step (a ``[timestamp]`` section in result.txt, ``[      ] timestamp 0.000000
# kIOPS`` in result_summary.txt) only notes the time the write phases ended, the reference time of
# find's ``-newer``; it measures nothing, so it is run metadata, never a phase.
TIMESTAMP_STEP = "timestamp"
MDTEST_OPERATION = {"write": "creation", "stat": "stat", "read": "read", "delete": "removal"}

_SC17_ALIASES = {
    "md_easy_create": "mdtest_easy_write",
    "md_hard_create": "mdtest_hard_write",
    "md_easy_stat": "mdtest_easy_stat",
    "md_hard_stat": "mdtest_hard_stat",
    "md_easy_delete": "mdtest_easy_delete",
    "md_hard_delete": "mdtest_hard_delete",
    "md_hard_read": "mdtest_hard_read",
    "md_easy_read": "mdtest_easy_read",
}


def normalise_phase_name(raw: str) -> str:
    """``ior-rnd4K-easy-read`` -> ``ior_rnd4k_easy_read``, SC17 ``md-easy-create`` -> ``mdtest_easy_write``.

    SC17 spelled the mdtest phases ``md-<easy|hard>-<create|stat|read|delete>``.
    """
    name = raw.strip().lower().replace("-", "_").replace(" ", "_")
    return _SC17_ALIASES.get(name, name)


def unit_for(name: str) -> str:
    """The true unit of a phase value: IOR phases are GiB/s, everything else kIOPS.

    The C app chose the printed label by the phase name's first letter; the bash and C values were
    always GiB/s even where the label said GB/s.
    """
    return GIB if name.startswith("ior") else KIOPS


def score_group(name: str) -> str:
    if name in BW_PHASES:
        return "bw"
    if name in MD_PHASES:
        return "md"
    if name in EXTENDED_BW_ONLY or name in EXTENDED_BW_ONLY_ISC21:
        return "bw_ext"
    if name in EXTENDED_MD_ONLY:
        return "md_ext"
    return "none"


# Phases the C app runs without a score group (printed with ``[      ]``)
UNSCORED_PHASES = ("timestamp", "ior_rnd4k_easy_read", "mdworkbench_create", "mdworkbench_delete")


def hash_group(name: str) -> str:
    """The score group as the C app's phase table sees it: ``unknown`` for a name it does not hold."""
    group = score_group(name)
    if group == "none" and name not in UNSCORED_PHASES:
        return "unknown"
    return group


def mdtest_operation(name: str) -> str | None:
    """The mdtest SUMMARY row (``creation``/``stat``/``read``/``removal``) a phase is scored from."""
    if not name.startswith("mdtest_"):
        return None
    return MDTEST_OPERATION.get(name.rsplit("_", 1)[-1])
