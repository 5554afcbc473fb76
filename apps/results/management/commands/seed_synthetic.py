"""manage.py seed_synthetic --runs 10000: realistic, reproducible fake IO500 runs for benchmarks and demos.

Systems belong to institutions and have a file system, a vendor and sometimes a server count;
their runs span 2017-2025 at many client-node counts (about a third on exactly 10 nodes), with
twelve phases whose values follow the system's capability and the node count, command lines,
configuration, Lustre builds with patches, tunables and striping for Lustre systems, warning
anomalies that flag a run and error anomalies or invalid marks that exclude one. A fifth of the
systems run in production: after the list split (SC21) most of their runs carry a production
declaration the committee accepted and the highest reproducibility level, so the Production
lists fill as the Research lists do.

A handful of DNE scaling series (mdtest over MDT and client counts) come with them.

Runs and their children are written in batches, one transaction per batch: with PostgreSQL's COPY
(rows written as COPY text by hand), elsewhere with batched INSERTs. From BULK_LOAD_RUNS on, the
loaded tables' secondary indexes and foreign keys are added once after the load (apps.results.services.bulk).
Bulk writes go around the write verbs that keep the list entries, so the command then rebuilds them
(apps.results.services.list_entries.rebuild) and ANALYZEs every table it filled: the first page read after
seeding is planned on statistics of the loaded data, even with autovacuum off.

Institution names end in "(synthetic)" and runs carry submission_id "synthetic", so `--replace`
finds and removes exactly what an earlier seeding made. The same --seed gives the same data.
"""

import hashlib
import json
import math
import random
import time
from datetime import UTC, datetime
from decimal import Decimal

import numpy as np
from django.core.management.base import BaseCommand, CommandError
from django.db import connection, models, transaction
from django.utils import timezone

from apps.results.judgements.reproducibility import HIGHEST_LEVEL, PRODUCTION, UNDEFINED
from apps.results.models import (
    Anomaly,
    Institution,
    ListEntry,
    ListRankShift,
    ListState,
    LustreBuild,
    LustrePatch,
    PhaseResult,
    Run,
    ScalingPoint,
    ScalingSeries,
    StorageSystem,
    Striping,
    Tunable,
)
from apps.results.models.list_kinds import SPLIT_DATE
from apps.results.models.systems import identity_key
from apps.results.services import bulk, list_entries
from apps.results.services.runs import rebuild_lists

MARK = "synthetic"
INSTITUTION_SUFFIX = " (synthetic)"

PLACES = [
    "Northbridge",
    "Lakeside",
    "Aldermoor",
    "Kestrel Bay",
    "Rivermouth",
    "Highfield",
    "Stonegate",
    "Westmere",
    "Eastvale",
    "Brightwater",
    "Fernhill",
    "Oakridge Park",
    "Silverton",
    "Marrow Point",
]
KINDS = [
    "University",
    "National Laboratory",
    "Supercomputing Centre",
    "Research Institute",
    "Computing Lab",
    "Weather Service",
    "Energy Research Centre",
]
SYSTEM_WORDS = [
    "Aurora",
    "Borealis",
    "Cirrus",
    "Dynamo",
    "Equinox",
    "Falcon",
    "Gale",
    "Helios",
    "Ion",
    "Juno",
    "Kestrel",
    "Lumen",
    "Meridian",
    "Nimbus",
    "Orion",
    "Polaris",
    "Quasar",
    "Rhea",
    "Sirius",
    "Tempest",
]
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
VERSIONS = {
    2017: "io500-sc17",
    2018: "io500-sc18",
    2019: "io500-sc19",
    2020: "io500-sc20_v3",
    2021: "io500-sc21_v1",
    2022: "io500-isc22_v2",
    2023: "io500-sc23",
    2024: "io500-isc24_v3",
    2025: "io500-isc25_v1",
}
BW_PHASES = {"ior_easy_write": 1.2, "ior_hard_write": 0.12, "ior_easy_read": 1.5, "ior_hard_read": 0.3}
MD_PHASES = {
    "mdtest_easy_write": 1.0,
    "mdtest_hard_write": 0.35,
    "find": 3.5,
    "mdtest_easy_stat": 2.6,
    "mdtest_hard_stat": 1.6,
    "mdtest_easy_delete": 0.8,
    "mdtest_hard_read": 0.9,
    "mdtest_hard_delete": 0.5,
}
PHASE_ORDER = [
    "ior_easy_write",
    "mdtest_easy_write",
    "ior_hard_write",
    "mdtest_hard_write",
    "find",
    "ior_easy_read",
    "mdtest_easy_stat",
    "ior_hard_read",
    "mdtest_hard_stat",
    "mdtest_easy_delete",
    "mdtest_hard_read",
    "mdtest_hard_delete",
]
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
LUSTRE_VERSIONS = [
    ("2.11.0", "2.10.5"),
    ("2.12.2", "2.10.7"),
    ("2.12.54", "2.12.54"),
    ("2.14.0", "2.14.0"),
    ("2.15.3", "2.15.3"),
    ("2.15.5", "2.15.4"),
    ("2.16.0", "2.15.5"),
]
TUNABLES = [
    ("osc.*.max_pages_per_rpc", "client", ["1024", "4096", "16M"]),
    ("osc.*.max_rpcs_in_flight", "client", ["8", "64", "128"]),
    ("ldlm.namespaces.*.lru_size", "client", ["0", "10000", "4000000"]),
    ("mdt.*.dom_lock", "server", ["always", "trylock"]),
    ("llite.*.max_read_ahead_mb", "client", ["64", "1024", "2048"]),
]


#: From this many runs on, the load drops secondary indexes and foreign keys and adds them afterwards (RowWriter).
BULK_LOAD_RUNS = 50000
SERIES_OPERATIONS = ["Directory creation", "File creation", "File stat", "File removal"]
#: Phase name → (unit, score group, the tool its command line runs).
PHASE_SHAPES = {
    name: ("GiB/s", "bw", "ior") if name in BW_PHASES else ("kIOPS", "md", "pfind" if name == "find" else "mdtest")
    for name in PHASE_ORDER
}
RUN_COLUMNS = [
    "id",
    "system_id",
    "identity",
    "content_hash",
    "submission_id",
    "source_path",
    "kind",
    "benchmark_version",
    "era",
    "run_timestamp",
    "year",
    "client_nodes",
    "client_procs",
    "procs_per_node",
    "config",
    "lustre_build_id",
    "score_bw",
    "score_md",
    "score_total",
    "reported_bw",
    "reported_md",
    "reported_total",
    "valid",
    "invalid_reasons",
    "verification",
    "exclusion_reason",
    "flagged",
    "created_at",
    "updated_at",
    "reproducibility",
    "reproducibility_level",
    "production_accepted",
]
#: Share of storage systems run in production: after the list split, most of their runs are submitted
#: to the Production list at the highest reproducibility level, the declaration accepted.
PRODUCTION_SYSTEMS = 0.2
PRODUCTION_RUNS = 0.8
PRODUCTION_DECLARATION = json.dumps(
    {
        "target_list": PRODUCTION,
        "target_level": HIGHEST_LEVEL,
        "production": {
            "production_applications": True,
            "no_single_point_of_failure": True,
            "description": "the system's regular production file system, in service during the run",
        },
    }
)
PHASE_COLUMNS = [
    "run_id",
    "name",
    "position",
    "value",
    "unit",
    "seconds",
    "printed_value",
    "printed_unit",
    "score_group",
    "command",
    "source_file",
    "source_line",
]


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


class RowWriter:
    """Appends rows to a model's table: COPY on PostgreSQL (psycopg's copy), batched INSERTs elsewhere.

    Rows are tuples in the order of the given columns, JSON already as text; columns left out get the
    field's default. Ids are taken from the table's sequence up front, so children can point at their
    run without reading anything back.
    """

    def __init__(self):
        self.postgres = connection.vendor == "postgresql"
        self.next_ids: dict[type, int] = {}

    def reserve_ids(self, model, count: int) -> list[int]:
        table = model._meta.db_table
        with connection.cursor() as cursor:
            if self.postgres:
                cursor.execute(
                    "SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)", [table, count]
                )
                return [pk for (pk,) in cursor.fetchall()]
            if model not in self.next_ids:
                cursor.execute(f"SELECT COALESCE(MAX(id), 0) + 1 FROM {table}")
                self.next_ids[model] = cursor.fetchone()[0]
        first = self.next_ids[model]
        self.next_ids[model] = first + count
        return list(range(first, first + count))

    def relax_durability(self) -> None:
        """Within the current transaction, do not wait for the WAL flush at commit: a crash loses a batch of
        synthetic data at worst, and each batch's commit no longer waits for the disk."""
        if self.postgres:
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL synchronous_commit TO OFF")

    def timestamp(self, moment: datetime):
        return moment if self.postgres else connection.ops.adapt_datetimefield_value(moment)

    def write(self, model, columns: list[str], rows: list[tuple]) -> None:
        if not rows:
            return
        fields = [
            field for field in model._meta.concrete_fields if field.column not in columns and not field.primary_key
        ]
        names = ", ".join([*columns, *(field.column for field in fields)])
        table = model._meta.db_table
        with connection.cursor() as cursor:
            if self.postgres:
                # COPY's text format, written by hand: psycopg's write_row adapts value by value (and re-encodes
                # the JSON defaults of every row), which was most of the client's time at a million runs.
                defaults = "".join(f"\t{copy_text(_default_text(field))}" for field in fields) + "\n"
                lines = ["\t".join([copy_text(value) for value in row]) + defaults for row in rows]
                with cursor.cursor.copy(f"COPY {table} ({names}) FROM STDIN") as copy:
                    for start in range(0, len(lines), COPY_CHUNK):
                        copy.write("".join(lines[start : start + COPY_CHUNK]))
            else:
                defaults = tuple(field.get_db_prep_save(field.get_default(), connection) for field in fields)
                placeholders = ", ".join(["%s"] * (len(columns) + len(fields)))
                cursor.executemany(
                    f"INSERT INTO {table} ({names}) VALUES ({placeholders})", [row + defaults for row in rows]
                )


#: Lines per write to a COPY: large enough to amortise the call, small enough not to double the batch in memory.
COPY_CHUNK = 10000
#: The characters COPY's text format escapes in a value.
COPY_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def copy_text(value) -> str:
    """A value in COPY's text format: NULL as \\N, booleans t/f, text escaped, numbers and times as str()."""
    if value is None:
        return "\\N"
    if value is True or value is False:
        return "t" if value else "f"
    if type(value) is str:
        return (
            value.translate(COPY_ESCAPES) if "\\" in value or "\t" in value or "\n" in value or "\r" in value else value
        )
    return str(value)


def _default_text(field):
    """A column's default as the value COPY receives (JSON as its text)."""
    default = field.get_default()
    return json.dumps(default) if isinstance(field, models.JSONField) else field.get_db_prep_save(default, connection)


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
        writer = RowWriter()
        deferred = (Run, PhaseResult, Anomaly, Tunable, Striping) if runs >= BULK_LOAD_RUNS else ()
        with bulk.checked_afterwards(*deferred):
            for start in range(0, runs, batch):
                with transaction.atomic():
                    writer.relax_durability()
                    self.make_runs(writer, systems, builds, seed, offset + start, min(batch, runs - start))
                if start and start % (batch * 10) == 0:
                    self.stdout.write(f"  {start} runs… ({time.monotonic() - started:.0f} s)")
        self.make_scaling_series(rng, systems, builds, seed, runs // 100000 + 1 if runs else 0)
        loaded = time.monotonic()
        list_entries.analyze_after_bulk_write()  # first: the rebuild reads the runs it just loaded
        list_entries.analyze(LustrePatch, ScalingSeries, ScalingPoint)
        filled = rebuild_lists()  # the runs went in around the ORM: everything derived from them is refilled
        self.stdout.write(
            f"created {runs} synthetic runs over {len(systems['rows'])} systems "
            f"in {time.monotonic() - started:.1f} s (lists, statistics and ANALYZE: "
            f"{time.monotonic() - loaded:.1f} s; list entries {filled})"
        )

    def remove(self) -> int:
        """Delete the synthetic rows with set-based deletes, then rebuild the lists.

        The children and the lists' rows go through `QuerySet.delete()`, one DELETE each (nothing refers to
        them, so Django deletes them without collecting them first). The runs go with one DELETE in SQL: the
        write verb (apps.results.services.runs.delete) would take each of up to a million runs off every list
        one at a time, and the run queryset's delete() refuses to run outside it. Like the load, this is a
        write around the ORM, and `rebuild_lists` below is what follows one: it refills every list from the
        runs left.
        """
        with transaction.atomic():
            synthetic = Run.objects.filter(submission_id=MARK)
            for model in (PhaseResult, Anomaly, Tunable, Striping, ListEntry):
                model.objects.filter(run__in=synthetic.values("pk")).delete()
            for model in (ListRankShift, ListState):
                model.objects.all().delete()
            with connection.cursor() as cursor:
                cursor.execute(f"DELETE FROM {Run._meta.db_table} WHERE submission_id = %s", [MARK])
                removed = cursor.rowcount
            ScalingSeries.objects.filter(notes=MARK).delete()
            LustreBuild.objects.filter(fingerprint__startswith=MARK).delete()
            StorageSystem.objects.filter(description=MARK, runs__isnull=True).delete()
            Institution.objects.filter(name__endswith=INSTITUTION_SUFFIX, systems__isnull=True).delete()
        rebuild_lists()
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
            specs.append(
                {
                    "row": StorageSystem(
                        institution=institution,
                        name=name,
                        filesystem=filesystem,
                        storage_vendor=rng.choice(vendors),
                        server_count=rng.choice([None, 4, 8, 16, 24, 48, 96, 200]),
                        description=MARK,
                        key=identity_key(institution.key, name, filesystem, str(seed)),
                    ),
                    "bw_node": rng.lognormvariate(math.log(2.5), 0.8),  # GiB/s per client node
                    "md_node": rng.lognormvariate(math.log(15.0), 0.9),  # kIOPS per client node
                    "scaling": rng.uniform(0.65, 0.95),
                    "production": rng.random() < PRODUCTION_SYSTEMS,
                }
            )
        StorageSystem.objects.bulk_create([spec["row"] for spec in specs], ignore_conflicts=True)
        by_key = StorageSystem.objects.in_bulk([spec["row"].key for spec in specs], field_name="key")
        return {
            "rows": [by_key[spec["row"].key] for spec in specs],
            "table": {
                name: np.array([spec[name] for spec in specs])
                for name in ("bw_node", "md_node", "scaling", "production")
            },
        }

    def make_builds(self, rng: random.Random, seed: int) -> list[LustreBuild]:
        builds, patches = [], []
        for index, (server, client) in enumerate(LUSTRE_VERSIONS * 2):
            build = LustreBuild(
                server_version=server,
                client_version=client,
                base_tag=f"v{server.replace('.', '_')}",
                base_commit=sha(f"{seed}:{index}")[:10],
                fingerprint=f"{MARK}-{seed}-{index}",
            )
            builds.append(build)
        LustreBuild.objects.bulk_create(builds, ignore_conflicts=True)
        builds = list(LustreBuild.objects.filter(fingerprint__startswith=f"{MARK}-{seed}-").order_by("pk"))
        for build in builds:
            if build.patches.exists():
                continue
            for position, (ticket, component, summary) in enumerate(rng.sample(PATCH_POOL, rng.randint(0, 5))):
                patches.append(
                    LustrePatch(
                        build=build,
                        position=position,
                        commit=sha(f"{build.fingerprint}{ticket}{summary}")[:10],
                        ticket=ticket,
                        component=component,
                        summary=f"{component}: {summary}",
                        review_url=f"https://review.whamcloud.com/#/c/{33000 + position * 611}",
                        status="reverted" if rng.random() < 0.1 else "applied",
                    )
                )
        LustrePatch.objects.bulk_create(patches)
        return builds

    def make_runs(self, writer, systems, builds, seed, first, count):
        """One batch of runs with their phases, anomalies, tunables and striping; random draws vectorised
        with numpy, so a million runs (twelve million phases) take minutes, not an hour."""
        rng = np.random.default_rng([seed, first])
        run_ids = writer.reserve_ids(Run, count)
        now = writer.timestamp(timezone.now())
        table = systems["table"]
        system = rng.integers(0, len(systems["rows"]), count)
        ten = rng.random(count) < 0.35
        nodes = np.where(ten, 10, np.maximum(1, (2 ** rng.uniform(0, 11, count)).astype(int)))
        ppn = rng.choice([8, 16, 32, 48, 64, 96, 128], count)
        year = rng.integers(2017, 2026, count)
        growth = nodes ** table["scaling"][system]
        bw = table["bw_node"][system] * growth * rng.uniform(0.7, 1.3, count)
        md = table["md_node"][system] * growth * rng.uniform(0.6, 1.4, count)
        values = np.empty((count, len(PHASE_ORDER)))
        for column, name in enumerate(PHASE_ORDER):
            base, factor = (bw, BW_PHASES[name]) if name in BW_PHASES else (md, MD_PHASES[name])
            values[:, column] = base * factor * rng.uniform(0.8, 1.2, count)
        roll = rng.random(count)
        anomaly = np.select([roll < 0.03, roll < 0.045, roll < 0.06], [1, 2, 3], 0)  # cache, short, invalid
        stat, create = PHASE_ORDER.index("mdtest_easy_stat"), PHASE_ORDER.index("mdtest_easy_write")
        cache = anomaly == 1
        values[cache, stat] = values[cache, create] * rng.uniform(25, 120, cache.sum())
        bw_columns = [PHASE_ORDER.index(name) for name in BW_PHASES]
        md_columns = [PHASE_ORDER.index(name) for name in MD_PHASES]
        score_bw = np.exp(np.log(values[:, bw_columns]).mean(axis=1))
        score_md = np.exp(np.log(values[:, md_columns]).mean(axis=1))
        total = np.sqrt(score_bw * score_md)
        drift = np.where(rng.random(count) < 0.02, rng.uniform(1.01, 1.05, count), 1.0)
        seconds = np.where(
            ["write" in name for name in PHASE_ORDER],
            rng.uniform(300, 420, (count, len(PHASE_ORDER))),
            rng.uniform(20, 250, (count, len(PHASE_ORDER))),
        )
        when = np.stack([rng.integers(1, 13, count), rng.integers(1, 29, count), rng.integers(0, 24, count)], 1)
        transfers = rng.choice(["1m", "4m", "16m"], count)
        blocks = rng.choice([4, 40, 160], count)
        items = rng.choice([100000, 540000, 1000000], count)
        drops = rng.choice(["TRUE", "FALSE"], count)
        build_pick = rng.integers(0, len(builds), count)
        extra = rng.random((count, 4))
        tunable_picks = rng.integers(0, 3, (count, len(TUNABLES)))
        stripe_counts = rng.choice([-1, 16, 1440], count)
        production = table["production"][system] & (rng.random(count) < PRODUCTION_RUNS)

        runs, phases, anomalies, tunables, stripings = [], [], [], [], []
        for index, run_id in enumerate(run_ids):
            number = first + index
            row = systems["rows"][system[index]]
            run_year = int(year[index])
            run_nodes, run_ppn = int(nodes[index]), int(ppn[index])
            kind_of_anomaly = anomaly[index]
            transfer = str(transfers[index])
            lustre = row.filesystem == "Lustre"
            identity = sha(f"{MARK}:{seed}:{number}")
            invalid_reasons = ["ior_easy_write ran 212 s, less than 300 s"] if kind_of_anomaly == 3 else []
            month, day, hour = (int(part) for part in when[index])
            run_at = datetime(run_year, month, day, hour, tzinfo=UTC)
            in_production = bool(production[index]) and run_at.date() >= SPLIT_DATE
            runs.append(
                (
                    run_id,
                    row.pk,
                    identity,
                    sha(identity),
                    MARK,
                    f"synthetic/{row.institution_id}/{row.name}/{row.filesystem}/{run_year}/run-{number}",
                    "io500",
                    VERSIONS[run_year],
                    Run.Era.SCRIPT if run_year < 2020 else Run.Era.CAPP,
                    writer.timestamp(run_at),
                    run_year,
                    run_nodes,
                    run_nodes * run_ppn,
                    run_ppn,
                    json.dumps(
                        {
                            "ior-easy": {"API": "POSIX", "transferSize": transfer, "blockSize": f"{blocks[index]}g"},
                            "mdtest-easy": {"n": str(items[index])},
                            "global": {"drop-caches": str(drops[index])},
                        }
                    ),
                    builds[build_pick[index]].pk if lustre else None,
                    float(score_bw[index]),
                    float(score_md[index]),
                    float(total[index]),
                    float(score_bw[index]),
                    float(score_md[index]),
                    float(total[index] * drift[index]),
                    bool(kind_of_anomaly != 3),
                    json.dumps(invalid_reasons),
                    "verified" if run_year >= 2020 and drift[index] == 1.0 else "not_verifiable",
                    (
                        f"marked invalid by the benchmark: {invalid_reasons[0]}"
                        if kind_of_anomaly == 3
                        else "phase_too_short: ior_hard_write ran 95 s, less than 300 s"
                        if kind_of_anomaly == 2
                        else ""
                    ),
                    bool(kind_of_anomaly == 1),
                    now,
                    now,
                    PRODUCTION_DECLARATION if in_production else "{}",
                    HIGHEST_LEVEL if in_production else UNDEFINED,
                    in_production,
                )
            )
            procs = run_nodes * run_ppn
            for position, name in enumerate(PHASE_ORDER):
                value = float(values[index, position])
                unit, group, tool = PHASE_SHAPES[name]
                phases.append(
                    (
                        run_id,
                        name,
                        position,
                        value,
                        unit,
                        float(seconds[index, position]),
                        f"{value:.6f}",
                        unit,
                        group,
                        f"mpirun -np {procs} {tool} -t {transfer} -D 300 ./datafiles/{name}",
                        "result.txt",
                        position + 10,
                    )
                )
            if kind_of_anomaly == 1:
                ratio = values[index, stat] / values[index, create]
                anomalies.append(
                    (
                        run_id,
                        "cache_effect_stat",
                        "warn",
                        "mdtest_easy_stat",
                        f"stat phase {ratio:.0f}x faster than its create phase",
                        json.dumps({"ratio": round(float(ratio), 1), "threshold": 20}),
                    )
                )
            elif kind_of_anomaly == 2:
                anomalies.append(
                    (
                        run_id,
                        "phase_too_short",
                        "error",
                        "ior_hard_write",
                        "ior_hard_write ran 95 s, less than 300 s",
                        json.dumps({"seconds": 95.0, "minimum": 300}),
                    )
                )
            if lustre:
                for which, (parameter, scope, choices) in enumerate(TUNABLES):
                    if extra[index, 0] < 0.6 or which < 3:
                        tunables.append((run_id, parameter, choices[tunable_picks[index, which] % len(choices)], scope))
                stripings.append(
                    (run_id, "ior_hard", int(stripe_counts[index]), "16M", bool(extra[index, 1] < 0.3), None, False)
                )
                stripings.append((run_id, "mdtest_hard", None, "", False, -1, bool(extra[index, 2] < 0.5)))
        writer.write(Run, RUN_COLUMNS, runs)
        writer.write(PhaseResult, PHASE_COLUMNS, phases)
        writer.write(Anomaly, ["run_id", "rule", "severity", "phase", "message", "evidence"], anomalies)
        writer.write(Tunable, ["run_id", "parameter", "value", "scope"], tunables)
        writer.write(
            Striping,
            ["run_id", "path_role", "stripe_count", "stripe_size", "overstriping", "dir_stripe_count", "inherited"],
            stripings,
        )

    def make_scaling_series(self, rng, systems, builds, seed, count):
        """DNE scaling series: mdtest rates over MDT counts 1-16 and client counts, on Lustre systems."""
        lustre = [index for index, row in enumerate(systems["rows"]) if row.filesystem == "Lustre"]
        lustre = lustre or list(range(len(systems["rows"])))
        first = ScalingSeries.objects.filter(notes=MARK).count()
        for index in range(first, first + count):
            pick = rng.choice(lustre)
            md_node = systems["table"]["md_node"][pick]
            series = ScalingSeries.objects.create(
                name=f"DNE scaling {seed}-{index + 1} (synthetic)",
                system=systems["rows"][pick],
                lustre_build=rng.choice(builds),
                notes=MARK,
            )
            points = []
            for mdts in (1, 2, 4, 8, 16):
                for nodes in (1, 4, 16):
                    for operation in SERIES_OPERATIONS:
                        rate = md_node * 1000 * nodes**0.8 * mdts ** rng.uniform(0.6, 0.95)
                        points.append(
                            ScalingPoint(
                                series=series,
                                mdt_count=mdts,
                                client_nodes=nodes,
                                tasks=nodes * 16,
                                files_per_dir=100000,
                                striping="inherited",
                                unique_dir=True,
                                operation=operation,
                                max=Decimal(f"{rate * 1.05:.3f}"),
                                min=Decimal(f"{rate * 0.95:.3f}"),
                                mean=Decimal(f"{rate:.3f}"),
                                stddev=Decimal(f"{rate * 0.02:.3f}"),
                                source_file=f"synthetic/dne-{index + 1}/mdtest-{mdts}mdt-{nodes}n.log",
                                log_hash=sha(f"{seed}:{index}:{mdts}:{nodes}"),
                            )
                        )
            ScalingPoint.objects.bulk_create(points)
