"""factory_boy factories for the results domain, shared by every test package."""

import hashlib
import itertools

import factory
from django.contrib.auth import get_user_model

from apps.results import models
from apps.results.models.systems import identity_key
from apps.results.services import runs

_counter = itertools.count(1)

IO500_PHASES = [
    ("ior_easy_write", "GiB/s", "bw"),
    ("mdtest_easy_write", "kIOPS", "md"),
    ("ior_hard_write", "GiB/s", "bw"),
    ("mdtest_hard_write", "kIOPS", "md"),
    ("find", "kIOPS", "md"),
    ("ior_easy_read", "GiB/s", "bw"),
    ("mdtest_easy_stat", "kIOPS", "md"),
    ("ior_hard_read", "GiB/s", "bw"),
    ("mdtest_hard_stat", "kIOPS", "md"),
    ("mdtest_easy_delete", "kIOPS", "md"),
    ("mdtest_hard_read", "kIOPS", "md"),
    ("mdtest_hard_delete", "kIOPS", "md"),
]


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.PostGenerationMethodCall("set_password", "pw")


class InstitutionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.Institution
        django_get_or_create = ("key",)

    name = factory.Sequence(lambda n: f"Institution {n}")
    key = factory.LazyAttribute(lambda o: identity_key(o.name))


class StorageSystemFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.StorageSystem
        django_get_or_create = ("key",)

    institution = factory.SubFactory(InstitutionFactory)
    name = factory.Sequence(lambda n: f"System {n}")
    filesystem = "Lustre"
    storage_vendor = "DDN"
    key = factory.LazyAttribute(lambda o: identity_key(o.institution.key, o.name, o.filesystem))


class RunFactory(factory.django.DjangoModelFactory):
    """A scored IO500 run; pass `phases=False` to skip the phase rows."""

    class Meta:
        model = models.Run
        skip_postgeneration_save = True

    system = factory.SubFactory(StorageSystemFactory)
    content_hash = factory.LazyFunction(lambda: hashlib.sha256(str(next(_counter)).encode()).hexdigest())
    source_path = factory.Sequence(lambda n: f"Inst/Sys/Lustre/2024/submission-{n}")
    identity = factory.LazyAttribute(lambda o: models.Run.make_identity(o.content_hash, o.source_path))
    kind = "io500"
    era = "capp"
    benchmark_version = "io500-isc24_v3"
    client_nodes = 10
    client_procs = 160
    procs_per_node = 16
    year = 2024
    score_bw = 100.0
    score_md = 400.0
    score_total = factory.LazyAttribute(lambda o: (o.score_bw * o.score_md) ** 0.5 if o.score_bw else None)
    reported_bw = factory.SelfAttribute("score_bw")
    reported_md = factory.SelfAttribute("score_md")
    reported_total = factory.SelfAttribute("score_total")
    verification = "verified"

    @classmethod
    def _create(cls, model_class, *args, batch=None, **kwargs):
        """Stored through the verb every writer uses (apps.results.services.runs): listed as an ingested
        run would be; in the caller's `batch` of writes when given."""
        return (batch or runs).store(**kwargs)

    @factory.post_generation
    def phases(self, create, extracted, **kwargs):
        if not create or extracted is False:
            return
        rows = []
        for position, (name, unit, group) in enumerate(IO500_PHASES):
            base = self.score_bw if group == "bw" else self.score_md
            rows.append(
                models.PhaseResult(
                    run=self,
                    name=name,
                    position=position,
                    value=base or 0.0,
                    unit=unit,
                    seconds=320.0,
                    printed_value=f"{base or 0.0:f}",
                    printed_unit=unit,
                    score_group=group,
                    command=f"./{name.split('_')[0]} -N 1",
                    source_file="result.txt",
                    source_line=position + 1,
                )
            )
        models.PhaseResult.objects.bulk_create(rows)


class AnomalyFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.Anomaly

    run = factory.SubFactory(RunFactory)
    rule = "cache_effect_stat"
    severity = "warn"
    phase = "mdtest_easy_stat"
    message = "stat phase 20x faster than its create phase"
    evidence = factory.LazyFunction(lambda: {"ratio": 20.0})


class ChangeFactory(factory.django.DjangoModelFactory):
    """A step down of a fifth in a system's score, at one of its runs, as detection stores one."""

    class Meta:
        model = models.Change

    run_after = factory.SubFactory(RunFactory)
    run_before = factory.SelfAttribute("run_after")
    system = factory.SelfAttribute("run_after.system")
    metric = "score"
    kind = "step"
    direction = "down"
    magnitude_pct = -20
    confidence = 0.99


class LustreBuildFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.LustreBuild

    server_version = "2.12.2"
    client_version = "2.10.7"
    base_tag = "v2_12_2"
    base_commit = factory.Sequence(lambda n: f"{n:010x}")
    fingerprint = factory.LazyFunction(lambda: hashlib.sha256(f"build-{next(_counter)}".encode()).hexdigest())


class LustrePatchFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.LustrePatch

    build = factory.SubFactory(LustreBuildFactory)
    position = factory.Sequence(lambda n: n)
    commit = factory.Sequence(lambda n: f"{n + 0xABC000:07x}")
    ticket = factory.Sequence(lambda n: f"LU-{12000 + n}")
    component = "llite"
    summary = factory.Sequence(lambda n: f"llite: improvement {n}")
    review_url = factory.Sequence(lambda n: f"https://review.whamcloud.com/#/c/{33000 + n}")
    status = "applied"


class TunableFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.Tunable

    run = factory.SubFactory(RunFactory)
    parameter = "ldlm.namespaces.*.lru_size"
    value = "4000000"
    scope = "client"


class StripingFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.Striping

    run = factory.SubFactory(RunFactory)
    path_role = "ior_hard"
    stripe_count = -1
    stripe_size = "16M"
    command = "lfs setstripe -c -1 -S 16M $io500_ior_hard"


class RunFileFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.RunFile

    run = factory.SubFactory(RunFactory)
    name = factory.Sequence(lambda n: f"config-{n}.ini")
    content = "[global]\ndatadir = ./datafiles\n"


class UploadFactory(factory.django.DjangoModelFactory):
    """An upload with a stored file (`file__data=b"..."`, `file__filename="x.tgz"` to choose its bytes)."""

    class Meta:
        model = models.Upload

    file = factory.django.FileField(filename="results.tgz", data=b"io500 result archive bytes")
    sha256 = factory.LazyFunction(lambda: hashlib.sha256(f"upload-{next(_counter)}".encode()).hexdigest())
    original_name = "results.tgz"
    size = 26


def add_edition_in_the_admin(admin_client, name: str, title: str):
    """Staff adding an edition through the Django admin's form (no entries: freezing fills them); the response."""
    return admin_client.post(
        "/admin/results/edition/add/",
        {
            "name": name,
            "list_kind": "io500",
            "title": title,
            "description": "",
            "entries-TOTAL_FORMS": "0",
            "entries-INITIAL_FORMS": "0",
            "entries-MIN_NUM_FORMS": "0",
            "entries-MAX_NUM_FORMS": "1000",
        },
    )
