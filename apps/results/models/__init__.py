"""The results domain: systems, runs, phases, Lustre provenance, anomalies, editions, DNE scaling series.

Everything else in ioboard depends on this app and it depends on nothing else: ingest writes
these rows, leaderboard and api read them. `Upload` lives here rather than in ingest because a
run points at the upload it came from, and that arrow must not point from results to ingest.

A package, one module per sub-domain (changes, lists, provenance, published, review, runs, series, stacks,
systems, uploads), with the querysets (`querysets.py`) and the list kinds (`list_kinds.py`) beside them. Every
model is imported here: Django finds them in `apps.results.models`; the migrations name them `results.<Model>`.
"""

from apps.results.models.accounts import ApiToken, Profile
from apps.results.models.changes import Annotation, Change, MetricNoise
from apps.results.models.lists import (
    CustomList,
    CustomListEntry,
    Edition,
    EditionEntry,
    ListEntry,
    ListRankShift,
    ListState,
)
from apps.results.models.provenance import LustreBuild, LustrePatch
from apps.results.models.published import PublishedChange
from apps.results.models.review import ReviewCheck, ReviewNote, RulesEdition
from apps.results.models.runs import Anomaly, PhaseRankStats, PhaseResult, ReviewStatus, Run, RunFile, Striping, Tunable
from apps.results.models.series import ScalingPoint, ScalingSeries, Study, StudyPoint
from apps.results.models.stacks import Stack, StackComponent, StackMeasurement, StackServer, StackSpec
from apps.results.models.systems import Institution, InstitutionAlias, StorageSystem, SystemAlias
from apps.results.models.uploads import Upload, UploadBlob

__all__ = [
    "Annotation",
    "Anomaly",
    "ApiToken",
    "Change",
    "CustomList",
    "CustomListEntry",
    "Edition",
    "EditionEntry",
    "Institution",
    "InstitutionAlias",
    "ListEntry",
    "ListRankShift",
    "ListState",
    "LustreBuild",
    "LustrePatch",
    "MetricNoise",
    "PhaseRankStats",
    "PhaseResult",
    "Profile",
    "PublishedChange",
    "ReviewCheck",
    "ReviewNote",
    "ReviewStatus",
    "RulesEdition",
    "Run",
    "RunFile",
    "ScalingPoint",
    "ScalingSeries",
    "Stack",
    "StackComponent",
    "StackMeasurement",
    "StackServer",
    "StackSpec",
    "StorageSystem",
    "Striping",
    "Study",
    "StudyPoint",
    "SystemAlias",
    "Tunable",
    "Upload",
    "UploadBlob",
]
