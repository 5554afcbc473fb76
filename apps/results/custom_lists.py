"""Custom lists: a registered list's members ranked by a reader's equation (apps.results.equations).

The equation is parsed when the list is saved (a bad one is refused with its position) and evaluated per run
on the run's phase values and scores. Runs whose value cannot be computed (a phase missing, a division by
zero) are listed unranked at the end. Ranks are competition ranks ("1224"), like the built-in lists.
"""

import secrets
from dataclasses import dataclass

from django.db.models import Prefetch

from apps.results.equations import Equation, parse_equation
from apps.results.list_kinds import list_kind
from apps.results.models import CustomList, ListEntry, PhaseResult, Run
from apps.results.scoring.io500 import (
    BW_PHASES,
    EXTENDED_BW_ONLY,
    EXTENDED_BW_ONLY_ISC21,
    EXTENDED_MD_ONLY,
    MD_PHASES,
)

#: Score names an equation may use besides the phase names: the run's recomputed scores.
SCORE_NAMES = {"score": "score_total", "bw": "score_bw", "md": "score_md"}
NAMES = frozenset((*BW_PHASES, *MD_PHASES, *EXTENDED_BW_ONLY, *EXTENDED_BW_ONLY_ISC21, *EXTENDED_MD_ONLY,
                   *SCORE_NAMES))


def compile_equation(text: str) -> Equation:
    """Parse a ranking equation over phase names and score, bw, md; raises EquationError with the position."""
    return parse_equation(text, NAMES)


def save_custom_list(name: str, equation: str, base_list: str = "full") -> CustomList:
    """Check the equation and the base list, and save the list under a new random token (its stable link)."""
    compile_equation(equation)
    list_kind(base_list)
    return CustomList.objects.create(token=secrets.token_urlsafe(12), name=name.strip()[:200] or equation[:200],
                                     equation=equation, base_list=base_list)


@dataclass
class CustomRow:
    rank: int | None
    value: float | None
    run: Run


def run_values(run: Run) -> dict[str, float | None]:
    values = {phase.name: phase.value for phase in run.phases.all()}
    values.update({name: getattr(run, field) for name, field in SCORE_NAMES.items()})
    return values


def ranked_rows(custom: CustomList) -> list[CustomRow]:
    """The base list's members, ranked by the equation (highest first), unranked runs last."""
    equation = compile_equation(custom.equation)
    run_ids = ListEntry.objects.filter(kind=custom.base_list).values_list("run_id", flat=True)
    phases = PhaseResult.objects.only("run_id", "name", "value")
    runs = Run.objects.filter(pk__in=run_ids).with_list_columns().prefetch_related(Prefetch("phases", queryset=phases))
    scored = [(equation.evaluate(run_values(run)), run) for run in runs]
    scored.sort(key=lambda pair: (pair[0] is None, -(pair[0] or 0.0), pair[1].pk))
    rows, previous, previous_rank = [], None, 0
    for position, (value, run) in enumerate(scored, start=1):
        if value is None:
            rows.append(CustomRow(None, None, run))
            continue
        rank = previous_rank if value == previous else position
        rows.append(CustomRow(rank, value, run))
        previous, previous_rank = value, rank
    for row in rows:
        row.run.rank = row.rank  # the list columns every export reads
    return rows
