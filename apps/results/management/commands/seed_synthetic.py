"""manage.py seed_synthetic --runs 10000: realistic, reproducible fake IO500 runs for benchmarks and demos.

Systems belong to institutions and have a file system, a vendor and sometimes a server count;
their runs span 2017-2025 at many client-node counts (about a third on exactly 10 nodes), with
twelve phases whose values follow the system's capability and the node count, command lines,
configuration, Lustre builds with patches, tunables and striping for Lustre systems, warning
anomalies that flag a run and error anomalies or invalid marks that exclude one.

Everything is written with bulk_create in batches, one transaction per batch. Institution names
end in "(synthetic)" and runs carry submission_id "synthetic", so `--replace` finds and removes
exactly what an earlier seeding made. The same --seed gives the same data.
"""

import hashlib
import math
import random
import time
from datetime import UTC, datetime

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from apps.results.freshness import bump_data_version
from apps.results.models import (
    Anomaly,
    Institution,
    LustreBuild,
    LustrePatch,
    PhaseResult,
    Run,
    StorageSystem,
    Striping,
    Tunable,
    identity_key,
)

MARK = "synthetic"
INSTITUTION_SUFFIX = " (synthetic)"

PLACES = ["Northbridge", "Lakeside", "Aldermoor", "Kestrel Bay", "Rivermouth", "Highfield", "Stonegate",
          "Westmere", "Eastvale", "Brightwater", "Fernhill", "Oakridge Park", "Silverton", "Marrow Point"]
KINDS = ["University", "National Laboratory", "Supercomputing Centre", "Research Institute", "Computing Lab",
         "Weather Service", "Energy Research Centre"]
SYSTEM_WORDS = ["Aurora", "Borealis", "Cirrus", "Dynamo", "Equinox", "Falcon", "Gale", "Helios", "Ion", "Juno",
                "Kestrel", "Lumen", "Meridian", "Nimbus", "Orion", "Polaris", "Quasar", "Rhea", "Sirius", "Tempest"]
FILESYSTEMS = [  # (type, weight, vendors)
    ("Lustre", 45, ["DDN", "HPE", "Dell EMC", "Lenovo", "Whamcloud"]),
    ("DAOS", 10, ["Intel", "HPE"]),
    ("Spectrum Scale", 10, ["IBM", "Lenovo"]),
    ("BeeGFS", 10, ["ThinkParQ", "Dell/ThinkParQ"]),
    ("WekaFS", 8, ["WekaIO"]),
    ("CephFS", 5, ["Red Hat", "SUSE"]),
    ("IME", 5, ["DDN"]),
    ("VAST", 4, ["VAST Data"]),
    ("OrangeFS", 3, ["Omnibond"]),
]
VERSIONS = {2017: "io500-sc17", 2018: "io500-sc18", 2019: "io500-sc19", 2020: "io500-sc20_v3",
            2021: "io500-sc21_v1", 2022: "io500-isc22_v2", 2023: "io500-sc23", 2024: "io500-isc24_v3",
            2025: "io500-isc25_v1"}
BW_PHASES = {"ior_easy_write": 1.2, "ior_hard_write": 0.12, "ior_easy_read": 1.5, "ior_hard_read": 0.3}
MD_PHASES = {"mdtest_easy_write": 1.0, "mdtest_hard_write": 0.35, "find": 3.5, "mdtest_easy_stat": 2.6,
             "mdtest_hard_stat": 1.6, "mdtest_easy_delete": 0.8, "mdtest_hard_read": 0.9, "mdtest_hard_delete": 0.5}
PHASE_ORDER = ["ior_easy_write", "mdtest_easy_write", "ior_hard_write", "mdtest_hard_write", "find",
               "ior_easy_read", "mdtest_easy_stat", "ior_hard_read", "mdtest_hard_stat", "mdtest_easy_delete",
               "mdtest_hard_read", "mdtest_hard_delete"]
PATCH_POOL = [
    ("LU-12043", "llite", "improve single-thread read performance"),
    ("LU-12043", "llite", "readahead: don't use max RPC size always"),
    ("LU-11518", "ldlm", "control lru size for extent lock"),
    ("LU-12325", "dom", "use LCK_PR with 'trylock' mode"),
    ("LU-11623", "mdt", "Opportunistically return UPDATE and PERM bits on open"),
    ("LU-10213", "lnd", "calculate qp max send wrs properly"),
    ("LU-13186", "obdclass", "batch statfs requests"),
    ("LU-14535", "llite", "parallel directory operations"),
    ("LU-15117", "ofd", "don't block destroys on the OST"),
    ("LU-16365", "llite", "add read-ahead stats for DoM"),
]
LUSTRE_VERSIONS = [("2.11.0", "2.10.5"), ("2.12.2", "2.10.7"), ("2.12.54", "2.12.54"), ("2.14.0", "2.14.0"),
                   ("2.15.3", "2.15.3"), ("2.15.5", "2.15.4"), ("2.16.0", "2.15.5")]
TUNABLES = [("osc.*.max_pages_per_rpc", "client", ["1024", "4096", "16M"]),
            ("osc.*.max_rpcs_in_flight", "client", ["8", "64", "128"]),
            ("ldlm.namespaces.*.lru_size", "client", ["0", "10000", "4000000"]),
            ("mdt.*.dom_lock", "server", ["always", "trylock"]),
            ("llite.*.max_read_ahead_mb", "client", ["64", "1024", "2048"])]


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


class Command(BaseCommand):
    help = "Create N realistic synthetic IO500 runs (systems, phases, anomalies, Lustre builds) with bulk inserts."

    def add_arguments(self, parser):
        parser.add_argument("--runs", type=int, default=1000, help="how many runs to create (default 1000)")
        parser.add_argument("--seed", type=int, default=500, help="random seed: the same seed gives the same data")
        parser.add_argument("--replace", action="store_true", help="delete earlier synthetic data first")
        parser.add_argument("--batch", type=int, default=2000, help="runs per insert transaction")

    def handle(self, *args, runs, seed, replace, batch, **options):
        if runs < 0 or batch < 1:
            raise CommandError("--runs must be >= 0 and --batch >= 1")
        started = time.monotonic()
        if replace:
            self.stdout.write(f"removed {self.remove()} synthetic runs")
        rng = random.Random(seed)
        offset = Run.objects.filter(submission_id=MARK).count()
        systems = self.make_systems(rng, runs, seed)
        builds = self.make_builds(rng, seed)
        for start in range(0, runs, batch):
            with transaction.atomic():
                self.make_runs(rng, systems, builds, seed, offset + start, min(batch, runs - start))
            if start and start % (batch * 10) == 0:
                self.stdout.write(f"  {start} runs…")
        bump_data_version()
        self.stdout.write(f"created {runs} synthetic runs over {len(systems)} systems "
                          f"in {time.monotonic() - started:.1f} s")

    def remove(self) -> int:
        with transaction.atomic():
            synthetic = Run.objects.filter(submission_id=MARK)
            for model in (PhaseResult, Anomaly, Tunable, Striping):
                model.objects.filter(run__in=synthetic.values("pk")).delete()
            removed, _ = synthetic.delete()
            LustreBuild.objects.filter(fingerprint__startswith=MARK).delete()
            StorageSystem.objects.filter(description=MARK, runs__isnull=True).delete()
            Institution.objects.filter(name__endswith=INSTITUTION_SUFFIX, systems__isnull=True).delete()
        bump_data_version()
        return removed

    def make_systems(self, rng: random.Random, runs: int, seed: int) -> list[dict]:
        institutions = []
        for index in range(max(3, runs // 40)):
            name = f"{rng.choice(PLACES)} {rng.choice(KINDS)} {index + 1}{INSTITUTION_SUFFIX}"
            institutions.append(Institution(name=name, key=identity_key(f"{name} {seed}")))
        Institution.objects.bulk_create(institutions, ignore_conflicts=True)
        institutions = list(Institution.objects.filter(key__in=[i.key for i in institutions]))
        weights = [weight for _, weight, _ in FILESYSTEMS]
        specs = []
        for index in range(max(5, runs // 8)):
            filesystem, _, vendors = rng.choices(FILESYSTEMS, weights)[0]
            institution = rng.choice(institutions)
            name = f"{rng.choice(SYSTEM_WORDS)}-{index + 1}"
            specs.append({
                "row": StorageSystem(
                    institution=institution, name=name, filesystem=filesystem, storage_vendor=rng.choice(vendors),
                    server_count=rng.choice([None, 4, 8, 16, 24, 48, 96, 200]), description=MARK,
                    key=identity_key(institution.key, name, filesystem, str(seed)),
                ),
                "bw_node": rng.lognormvariate(math.log(2.5), 0.8),  # GiB/s per client node
                "md_node": rng.lognormvariate(math.log(15.0), 0.9),  # kIOPS per client node
                "scaling": rng.uniform(0.65, 0.95),
            })
        StorageSystem.objects.bulk_create([spec["row"] for spec in specs], ignore_conflicts=True)
        by_key = StorageSystem.objects.in_bulk([spec["row"].key for spec in specs], field_name="key")
        for spec in specs:
            spec["row"] = by_key[spec["row"].key]
        return specs

    def make_builds(self, rng: random.Random, seed: int) -> list[LustreBuild]:
        builds, patches = [], []
        for index, (server, client) in enumerate(LUSTRE_VERSIONS * 2):
            build = LustreBuild(server_version=server, client_version=client, base_tag=f"v{server.replace('.', '_')}",
                                base_commit=sha(f"{seed}:{index}")[:10], fingerprint=f"{MARK}-{seed}-{index}")
            builds.append(build)
        LustreBuild.objects.bulk_create(builds, ignore_conflicts=True)
        builds = list(LustreBuild.objects.filter(fingerprint__startswith=f"{MARK}-{seed}-").order_by("pk"))
        for build in builds:
            if build.patches.exists():
                continue
            for position, (ticket, component, summary) in enumerate(rng.sample(PATCH_POOL, rng.randint(0, 5))):
                patches.append(LustrePatch(
                    build=build, position=position, commit=sha(f"{build.fingerprint}{ticket}{summary}")[:10],
                    ticket=ticket, component=component, summary=f"{component}: {summary}",
                    review_url=f"https://review.whamcloud.com/#/c/{33000 + position * 611}",
                    status="reverted" if rng.random() < 0.1 else "applied",
                ))
        LustrePatch.objects.bulk_create(patches)
        return builds

    def make_runs(self, rng, systems, builds, seed, first, count):
        runs, plans = [], []
        for number in range(first, first + count):
            spec = rng.choice(systems)
            system = spec["row"]
            nodes = 10 if rng.random() < 0.35 else max(1, int(2 ** rng.uniform(0, 11)))
            ppn = rng.choice([8, 16, 32, 48, 64, 96, 128])
            year = rng.randint(2017, 2025)
            bw = spec["bw_node"] * nodes ** spec["scaling"] * rng.uniform(0.7, 1.3)
            md = spec["md_node"] * nodes ** spec["scaling"] * rng.uniform(0.6, 1.4)
            values = {name: bw * factor * rng.uniform(0.8, 1.2) for name, factor in BW_PHASES.items()}
            values.update({name: md * factor * rng.uniform(0.8, 1.2) for name, factor in MD_PHASES.items()})
            roll = rng.random()
            anomaly = "cache" if roll < 0.08 else "short" if roll < 0.11 else "invalid" if roll < 0.14 else None
            if anomaly == "cache":
                values["mdtest_easy_stat"] = values["mdtest_easy_write"] * rng.uniform(25, 120)
            score_bw = math.prod(values[n] for n in BW_PHASES) ** (1 / len(BW_PHASES))
            score_md = math.prod(values[n] for n in MD_PHASES) ** (1 / len(MD_PHASES))
            total = math.sqrt(score_bw * score_md)
            drift = rng.uniform(1.01, 1.05) if rng.random() < 0.02 else 1.0
            identity = sha(f"{MARK}:{seed}:{number}")
            transfer = rng.choice(["1m", "4m", "16m"])
            lustre = system.filesystem == "Lustre"
            invalid_reasons = ["ior_easy_write ran 212 s, less than 300 s"] if anomaly == "invalid" else []
            runs.append(Run(
                system=system, identity=identity, content_hash=sha(identity), submission_id=MARK,
                source_path=f"synthetic/{system.institution_id}/{system.name}/{system.filesystem}/{year}/run-{number}",
                kind="io500", benchmark_version=VERSIONS[year], era="script" if year < 2020 else "capp",
                run_timestamp=datetime(year, rng.randint(1, 12), rng.randint(1, 28), rng.randint(0, 23), tzinfo=UTC),
                year=year, client_nodes=nodes, client_procs=nodes * ppn, procs_per_node=ppn,
                config={"ior-easy": {"API": "POSIX", "transferSize": transfer,
                                     "blockSize": f"{rng.choice([4, 40, 160])}g"},
                        "mdtest-easy": {"n": str(rng.choice([100000, 540000, 1000000]))},
                        "global": {"drop-caches": rng.choice(["TRUE", "FALSE"])}},
                lustre_build=rng.choice(builds) if lustre else None,
                score_bw=score_bw, score_md=score_md, score_total=total,
                reported_bw=score_bw, reported_md=score_md, reported_total=total * drift,
                valid=anomaly != "invalid", invalid_reasons=invalid_reasons,
                verification="verified" if year >= 2020 and drift == 1.0 else "not_verifiable",
                exclusion_reason=(
                    f"marked invalid by the benchmark: {invalid_reasons[0]}" if anomaly == "invalid"
                    else "phase_too_short: ior_hard_write ran 95 s, less than 300 s" if anomaly == "short" else ""
                ),
                flagged=anomaly == "cache",
            ))
            plans.append((values, anomaly, transfer, lustre, nodes * ppn))
        Run.objects.bulk_create(runs)
        phases, anomalies, tunables, stripings = [], [], [], []
        for run, (values, anomaly, transfer, lustre, procs) in zip(runs, plans, strict=True):
            for position, name in enumerate(PHASE_ORDER):
                tool = "ior" if name.startswith("ior") else "mdtest" if name.startswith("mdtest") else "pfind"
                phases.append(PhaseResult(
                    run=run, name=name, position=position, value=values[name],
                    unit="GiB/s" if name in BW_PHASES else "kIOPS",
                    seconds=rng.uniform(300, 420) if "write" in name else rng.uniform(20, 250),
                    printed_value=f"{values[name]:.6f}", printed_unit="GiB/s" if name in BW_PHASES else "kIOPS",
                    score_group="bw" if name in BW_PHASES else "md",
                    command=f"mpirun -np {procs} {tool} -t {transfer} -D 300 ./datafiles/{name}",
                    source_file="result.txt", source_line=position + 10,
                ))
            if anomaly == "cache":
                ratio = values["mdtest_easy_stat"] / values["mdtest_easy_write"]
                anomalies.append(Anomaly(run=run, rule="cache_effect_stat", severity="warn", phase="mdtest_easy_stat",
                                         message=f"stat phase {ratio:.0f}x faster than its create phase",
                                         evidence={"ratio": round(ratio, 1), "threshold": 20}))
            elif anomaly == "short":
                anomalies.append(Anomaly(run=run, rule="phase_too_short", severity="error", phase="ior_hard_write",
                                         message="ior_hard_write ran 95 s, less than 300 s",
                                         evidence={"seconds": 95.0, "minimum": 300}))
            if lustre:
                for parameter, scope, choices in rng.sample(TUNABLES, 3):
                    tunables.append(Tunable(run=run, parameter=parameter, value=rng.choice(choices), scope=scope))
                stripings.append(Striping(run=run, path_role="ior_hard", stripe_count=rng.choice([-1, 16, 1440]),
                                          stripe_size="16M", overstriping=rng.random() < 0.3))
                stripings.append(Striping(run=run, path_role="mdtest_hard", dir_stripe_count=-1,
                                          inherited=rng.random() < 0.5))
        PhaseResult.objects.bulk_create(phases, batch_size=5000)
        Anomaly.objects.bulk_create(anomalies)
        Tunable.objects.bulk_create(tunables)
        Striping.objects.bulk_create(stripings)
