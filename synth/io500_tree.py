"""A tree of IO500 submissions N times the size of a real one, each copy a distinct result of another system.

The public corpus holds 142 submissions; the issue asks for the ingest on a tree ten times that (issue 39). Copy
0 of the tree is the source as it is. Copy k (k = 1 .. N-1) renames every institution folder ``<name> (copy k)``
and every ``submission-<id>`` folder ``submission-<id + k * SUBMISSION_ID_STEP>``: the archive layout
(``Institution/System/Filesystem/Year/submission-N``) gives each copy its own institutions, systems and submission
ids. A byte copy would be the same result filed again (same content hash, same scores): the duplicate_result rule
would flag every copy and each new one would re-check the others, an ingest no real archive asks for. So each copy
is another system's run instead:

- every measured phase value of a submission (bandwidth and rate alike) is multiplied by one factor, drawn per
  (seed, copy, submission) from 0.8-1.25 (log-uniform, so a copy is as likely faster as slower), in every file
  that prints it: ``result.txt`` (phase ``score`` and its stonewall figure), ``result_summary.txt`` (the run's
  and the copies at the submission root), the bash era's ``io-500-summary.<TS>.txt`` (and the scanned count of
  its ``[FIND]`` line, from which the script computed find), SC17 job output; each number keeps the precision
  it was printed with;
- the scores are what the era's rules give for those phases: every era's BW and MD are geometric means, which a
  common factor multiplies by that factor, and its TOTAL is sqrt(BW x MD) (so x factor) or, for the 2017-18
  product formula, BW x MD (so x factor squared); the product is told apart by which of the two the printed
  TOTAL is;
- ``result.txt``'s score hash (and the ``[SCOREX]`` one) is recomputed over the new strings as the C application
  computes it (``IO500_HASH``), with the terms the original hash verified with; one that did not verify in the
  source is left as it was, unverifiable in the copy as in the source;
- every ``YYYY.MM.DD-HH.MM.SS`` in folder and file names and every timestamp in the files above is shifted by
  ``k`` x ``TIME_SHIFT``.

The raw IOR/mdtest outputs and per-rank CSVs are copied as they are: the parse work is the same, and what they
feed is evidence (node counts, rank imbalance, the raw-value cross-check), not a finding the copy would gain.
A submission's duplicates in the source (CERN 179/193 and the like) stay duplicates in copy 0 only: each copy of
them draws its own factor. What the generator returns (the counts, the factor of every copied submission) is the
truth a benchmark or a test checks the ingest against.
"""

from __future__ import annotations

import math
import random
import re
import shutil
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

SUBMISSION = re.compile(r"^submission-(\d+)$")
#: Added to a submission id per copy: above every id the public archive has used.
SUBMISSION_ID_STEP = 1_000_000
#: The range of the factor a copy's phase values are multiplied by.
FACTOR_RANGE = (0.8, 1.25)
#: How far each copy's timestamps move from the previous copy's.
TIME_SHIFT = timedelta(hours=1, minutes=1)

FOLDER_TIMESTAMP = re.compile(r"\d{4}\.\d{2}\.\d{2}-\d{2}\.\d{2}\.\d{2}")
TEXT_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}")
NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
#: A phase or score value followed by its unit, in the [RESULT] and [SCORE] lines of both summary grammars.
VALUE_WITH_UNIT = re.compile(rf"(\s)({NUMBER})(\s+(?:GiB/s|GB/s|kIOPS|kiops)\s*:)")
TOTAL = re.compile(rf"(TOTAL\s+)({NUMBER})")
SCORE_LINE = re.compile(rf"Bandwidth\s+({NUMBER})\s.*IOPS\s+({NUMBER})\s.*TOTAL\s+({NUMBER})")
FIND_LINE = re.compile(r"^(\[FIND\] MATCHED \d+/)(\d+)")
SC17_PHASE = re.compile(rf"((?:BW|IOPs):\s*)({NUMBER})")
SC17_SCORE = re.compile(rf"^(IO-500 (?:bw |md )?score:\s*)({NUMBER})")
INI_SECTION = re.compile(r"^\s*\[([^\]]*)\]")
INI_KEY = re.compile(r"^(\s*([0-9A-Za-z_.-]+)\s*=\s?)(\S*)(.*)$")
#: result.txt keys whose value a copy's factor scales, by section kind.
SCALED_PHASE_KEYS = {"score", "throughput-stonewall", "rate-stonewall", "total-files"}
SCORE_KEYS = {"MD", "BW", "SCORE"}

# The C application's score groups (docs/io500-formats.md 3.1-3.2), for the terms of its score hashes.
MANDATORY_PHASES = frozenset(
    {
        "ior-easy-write",
        "ior-easy-read",
        "ior-hard-write",
        "ior-hard-read",
        "mdtest-easy-write",
        "mdtest-easy-stat",
        "mdtest-easy-delete",
        "mdtest-hard-write",
        "mdtest-hard-stat",
        "mdtest-hard-read",
        "mdtest-hard-delete",
        "find",
    }
)
OPTIONAL_PHASES = frozenset(
    {
        "ior-rnd-write",
        "ior-rnd-read",
        "ior-rnd4k-write",
        "ior-rnd4k-read",
        "ior-rnd1mb-write",
        "ior-rnd1mb-read",
        "find-easy",
        "find-hard",
        "mdworkbench-bench",
    }
)
UNSCORED_PHASES = frozenset({"timestamp", "ior-rnd4k-easy-read", "mdworkbench-create", "mdworkbench-delete"})
NOT_PHASES = frozenset({"run", "score", "scorex"})

#: An ``io500_info_*`` assignment naming the institution or the system (io500.sh, system-information.txt, the
#: bash stdout's variable dump): the ingest prefers what the files say to the folder names.
DECLARED_NAME = re.compile(
    r"^(\s*(?:export\s+|local\s+)?io500_info_(?:institution|institute_name|institute|system|system_name)=)"
    r"(['\"]?)([^'\"#\n]*?)(['\"]?)(\s*(?:#.*)?)$",
    re.MULTILINE,
)
#: Values the info-creator templates ship with, which mean "not filled in" (the ingest then reads the folders).
PLACEHOLDERS = {"", "xxx", "xx", "x", "none", "null", "n/a", "na", "unknown", "whatever", "todo", "tbd", "-"}


@dataclass(frozen=True)
class ScaledTree:
    root: Path
    copies: int
    files: int
    bytes: int
    submissions: int
    #: The factor each copied submission's phase values were multiplied by, by its path in the tree.
    factors: dict[str, float] = field(default_factory=dict)


def copy_name(name: str, copy: int, *, top_level: bool) -> str:
    """The name of one path part in copy ``copy``: institutions and submission folders renamed, timestamps
    shifted, the rest kept."""
    if copy == 0:
        return name
    if top_level:
        return f"{name} (copy {copy})"
    match = SUBMISSION.match(name)
    if match:
        return f"submission-{int(match.group(1)) + copy * SUBMISSION_ID_STEP}"
    return FOLDER_TIMESTAMP.sub(lambda found: shifted(found.group(), "%Y.%m.%d-%H.%M.%S", copy), name)


def copy_factor(seed: int, copy: int, submission: str) -> float:
    """The factor of one submission in one copy: log-uniform in FACTOR_RANGE, the same for the same arguments."""
    low, high = (math.log(bound) for bound in FACTOR_RANGE)
    return math.exp(random.Random(f"{seed}:{copy}:{submission}").uniform(low, high))


def shifted(text: str, pattern: str, copy: int) -> str:
    try:
        return (datetime.strptime(text, pattern) + copy * TIME_SHIFT).strftime(pattern)
    except ValueError:
        return text


def scaled(token: str, factor: float, *, significant: bool = False) -> str:
    """``token`` times ``factor``, printed with as many decimals as ``token`` has; with ``significant``, a token of
    fewer than six decimals is taken for the bash scripts' awk ``%.6g`` (``146.2`` is 146.200 printed so) and the
    product printed with six significant digits, as the script would have."""
    value = float(token)
    if not math.isfinite(value):
        return token
    if "e" in token.lower():
        return f"{value * factor:e}"
    decimals = len(token.split(".", 1)[1]) if "." in token else 0
    if significant and decimals < 6 and abs(value * factor) < 1e6:
        return f"{value * factor:.6g}"
    return f"{value * factor:.{decimals}f}"


def total_factor(line: str, factor: float) -> float:
    """What the TOTAL of a score line is multiplied by: ``factor`` for sqrt(BW x MD), its square for BW x MD."""
    found = SCORE_LINE.search(line)
    if not found:
        return factor
    bw, md, total = (float(value) for value in found.groups())
    product = abs(total - bw * md) < abs(total - math.sqrt(max(bw * md, 0.0)))
    return factor * factor if product and bw * md > 0 else factor


def scale_summary_line(line: str, factor: float) -> str:
    """A [RESULT]/[SCORE] line of either summary grammar, a [FIND] line or an SC17 result line, scaled."""
    stripped = line.lstrip()
    if stripped.startswith("[RESULT") or stripped.startswith("[      ]") or stripped.startswith("[SCORE"):
        score = stripped.startswith("[SCORE")
        scaled_line = VALUE_WITH_UNIT.sub(
            lambda m: m.group(1) + scaled(m.group(2), factor, significant=score) + m.group(3), line
        )
        if score:
            by = total_factor(line, factor)
            scaled_line = TOTAL.sub(lambda m: m.group(1) + scaled(m.group(2), by, significant=True), scaled_line)
        return scaled_line
    if stripped.startswith("[FIND]"):
        return FIND_LINE.sub(lambda m: m.group(1) + str(round(int(m.group(2)) * factor)), line)
    if stripped.startswith("IO-500"):
        by = factor * factor if re.match(r"IO-500 score:", stripped) else factor
        return SC17_SCORE.sub(lambda m: m.group(1) + scaled(m.group(2), by), line)
    return SC17_PHASE.sub(lambda m: m.group(1) + scaled(m.group(2), factor), line)


def scale_summary(text: str, factor: float, copy: int) -> str:
    lines = [scale_summary_line(line, factor) for line in text.split("\n")]
    return shift_text("\n".join(lines), copy)


def shift_text(text: str, copy: int) -> str:
    text = FOLDER_TIMESTAMP.sub(lambda found: shifted(found.group(), "%Y.%m.%d-%H.%M.%S", copy), text)
    return TEXT_TIMESTAMP.sub(lambda found: shifted(found.group(), "%Y-%m-%d %H:%M:%S", copy), text)


def io500_hash(text: str, seed: int = 0) -> int:
    """The C application's string hash: h = rotl32(h, 2) + c for every (signed) byte c."""
    value = seed
    for byte in text.encode("utf-8", errors="surrogateescape"):
        value = ((((value << 2) | (value >> 30)) & 0xFFFFFFFF) + (byte - 256 if byte > 127 else byte)) & 0xFFFFFFFF
    return value


def hash_terms(terms: list[tuple[str, str]]) -> int:
    value = 0
    for key, text in terms:
        value ^= io500_hash(text, io500_hash(key))
    return value


@dataclass
class ResultTxt:
    """What the score hashes of one result.txt are computed over: its version, the first token of every phase's
    ``score`` and of the [SCORE]/[SCOREX] values, and the printed hashes."""

    version: str = ""
    phases: dict[str, str] = field(default_factory=dict)
    sections: dict[str, dict[str, str]] = field(default_factory=lambda: {"score": {}, "scorex": {}})

    @classmethod
    def read(cls, lines: list[str]) -> ResultTxt:
        result, section = cls(), "run"
        for line in lines:
            opened = INI_SECTION.match(line)
            if opened:
                section = opened.group(1).strip()
                continue
            found = INI_KEY.match(line)
            if not found:
                continue
            key, value = found.group(2), found.group(3) + found.group(4)
            if section == "run" and key == "version":
                result.version = value.strip()
            elif section.lower() in ("score", "scorex"):
                result.sections[section.lower()][key] = value
            elif key == "score":
                result.phases[section] = value.split()[0] if value.split() else ""
        return result

    def candidate_terms(self, section: str) -> list[list[tuple[str, str]]]:
        """The term lists the section's hash may be over, one per build family and validity (io500-formats 2.3)."""
        values = self.sections[section]
        if not all(key in values for key in SCORE_KEYS):
            return []
        tokens = values["SCORE"].split()
        score = [("SCORE", tokens[0] if tokens else "")]
        md_bw = [("MD", values["MD"].strip()), ("BW", values["BW"].strip())]
        if section == "scorex":
            optional = [(name, text) for name, text in self.phases.items() if name.lower() in OPTIONAL_PHASES]
            return [optional + md_bw + score + validity for validity in ([], [("valid", "NO")])]
        version = [("version", self.version)]
        mandatory = [(name, text) for name, text in self.phases.items() if name.lower() in MANDATORY_PHASES]
        hashed_since_a69cf60 = [
            (name, text)
            for name, text in self.phases.items()
            if name.lower() not in OPTIONAL_PHASES | UNSCORED_PHASES and _positive(text)
        ]
        families = [mandatory + md_bw, mandatory, hashed_since_a69cf60 + md_bw]
        return [version + terms + score + validity for terms in families for validity in ([], [("valid", "NO")])]

    def verifying_family(self, section: str) -> int | None:
        """The index (into ``candidate_terms``) of the term list the printed hash verifies with, or None."""
        printed = self.sections[section].get("hash", "").strip()
        try:
            wanted = int(printed, 16)
        except ValueError:
            return None
        candidates = self.candidate_terms(section)
        return next((index for index, terms in enumerate(candidates) if hash_terms(terms) == wanted), None)


def _positive(text: str) -> bool:
    try:
        return float(text) > 0
    except ValueError:
        return False


def scale_result_txt(text: str, factor: float, copy: int) -> str:
    """result.txt with every phase's score and stonewall figure and the scores scaled, its hashes recomputed."""
    lines = text.split("\n")
    original = ResultTxt.read(lines)
    families = {section: original.verifying_family(section) for section in ("score", "scorex")}
    section, out = "run", []
    for line in lines:
        opened = INI_SECTION.match(line)
        if opened:
            section = opened.group(1).strip()
        found = None if opened else INI_KEY.match(line)
        if found and found.group(3):
            key, kind = found.group(2), section.lower()
            scale = (kind not in NOT_PHASES and key in SCALED_PHASE_KEYS) or (
                kind in ("score", "scorex") and key in ("MD", "BW", "SCORE")
            )
            if scale:
                by = factor
                if kind in ("score", "scorex") and key == "SCORE":
                    values = original.sections[kind]
                    by = total_factor(f"Bandwidth {values['BW']} IOPS {values['MD']} TOTAL {found.group(3)}", factor)
                line = found.group(1) + scaled(found.group(3), by) + found.group(4)
        out.append(line)
    copied = ResultTxt.read(out)
    for kind, family in families.items():
        if family is not None:
            copied.sections[kind]["hash"] = f"{hash_terms(copied.candidate_terms(kind)[family]):X}"
    section, final = "run", []
    for line in out:
        opened = INI_SECTION.match(line)
        if opened:
            section = opened.group(1).strip()
        found = None if opened else INI_KEY.match(line)
        kind = section.lower()
        if found and found.group(2) == "hash" and kind in families and families[kind] is not None:
            line = found.group(1) + copied.sections[kind]["hash"]
        final.append(line)
    return shift_text("\n".join(final), copy)


def rename_declared(text: str, copy: int) -> str:
    """Every declared institution and system name of the text with `` (copy k)`` appended, as the folders are."""

    def renamed(found: re.Match) -> str:
        head, quote, value, close, tail = found.groups()
        if value.strip().lower() in PLACEHOLDERS:
            return found.group()
        return f"{head}{quote}{value.rstrip()} (copy {copy}){close}{tail}"

    return DECLARED_NAME.sub(renamed, text)


def declares_names(name: str) -> bool:
    """A file the ingest reads ``io500_info_*`` values from."""
    return name.endswith(".sh") or name == "system-information.txt" or name.startswith("io-500-summary")


def is_summary(name: str) -> bool:
    """A file that prints a run's phase values and scores (all eras), which a copy rewrites."""
    return (
        name == "result_summary.txt"
        or (name.startswith("io-500-summary") and name.endswith(".txt"))
        or name.endswith("-results.txt")
        or name.endswith(".out")
    )


def write_copy(path: Path, destination: Path, factor: float, copy: int) -> None:
    name = path.name
    if copy == 0 or not (name == "result.txt" or is_summary(name) or declares_names(name)):
        shutil.copyfile(path, destination)
        return
    data = path.read_bytes()
    if b"\0" in data[:4096]:
        shutil.copyfile(path, destination)
        return
    text = data.decode("utf-8", errors="surrogateescape")
    if name == "result.txt":
        text = scale_result_txt(text, factor, copy)
    elif is_summary(name):
        text = scale_summary(text, factor, copy)
    if declares_names(name):
        text = rename_declared(text, copy)
    destination.write_bytes(text.encode("utf-8", errors="surrogateescape"))


def write_scaled_tree(source: Path, target: Path, times: int, *, seed: int = 0) -> ScaledTree:
    """Write ``times`` copies of the tree ``source`` into ``target`` (which must not exist yet)."""
    if times < 1:
        raise ValueError("times must be at least 1")
    source, target = Path(source), Path(target)
    target.mkdir(parents=True)
    files = size = submissions = 0
    factors: dict[str, float] = {}
    sources = sorted(path for path in source.rglob("*") if path.is_file())
    for copy in range(times):
        for path in sources:
            parts = path.relative_to(source).parts
            renamed = [copy_name(part, copy, top_level=index == 0) for index, part in enumerate(parts)]
            at = next((index for index, part in enumerate(parts[:-1]) if SUBMISSION.match(part)), None)
            factor = 1.0
            if copy and at is not None:
                factor = copy_factor(seed, copy, "/".join(parts[: at + 1]))
                factors["/".join(renamed[: at + 1])] = factor
            destination = target.joinpath(*renamed)
            destination.parent.mkdir(parents=True, exist_ok=True)
            write_copy(path, destination, factor, copy)
            files += 1
            size += destination.stat().st_size
        submissions += sum(1 for path in source.rglob("submission-*") if path.is_dir() and SUBMISSION.match(path.name))
    return ScaledTree(root=target, copies=times, files=files, bytes=size, submissions=submissions, factors=factors)
