"""ioboard settings: one module, driven by environment variables, with embedded defaults.

With nothing but a SECRET_KEY set, ioboard runs on a SQLite file, executes Celery tasks eagerly and caches in
local memory, so `make run` (which turns DEBUG on and passes a development key) works on a fresh machine.
Setting DATABASE_URL switches to PostgreSQL; setting REDIS_URL switches Celery to a Redis broker with real
workers and the cache to Redis. Production knobs (SECRET_KEY, DEBUG, ALLOWED_HOSTS, ...) come from the
environment only; see docker/.env.example.
"""

import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def envbool(name: str, default: bool) -> bool:
    """Read a 0/1 (or true/false) flag; anything else is a configuration error, not a guess."""
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    lowered = raw.strip().lower()
    if lowered in {"1", "true", "yes", "on"}:
        return True
    if lowered in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name} must be 0 or 1, not {raw!r}")


def envint(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} must be an integer, not {raw!r}") from exc


def envsecret(name: str) -> str | None:
    """A secret from NAME, or from the file named by NAME_FILE (Docker/Kubernetes secrets)."""
    path = os.environ.get(f"{name}_FILE")
    if path:
        try:
            return Path(path).read_text().strip()
        except OSError as exc:
            raise ImproperlyConfigured(f"{name}_FILE={path} cannot be read: {exc}") from exc
    return os.environ.get(name) or None


def envlist(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


# Off unless asked for: `make run` and the tests ask (DEBUG=1); a deployment that forgot its .env stays off.
DEBUG = envbool("DEBUG", False)

# No default key, not even with DEBUG on: a key written here would sign the sessions of any deployment that
# forgot its own. `make run` and the tests pass one; anything else must set it.
SECRET_KEY = envsecret("SECRET_KEY")
if not SECRET_KEY:
    raise ImproperlyConfigured(
        "SECRET_KEY (or SECRET_KEY_FILE) must be set: ioboard has no default key (`make run` sets a development one)"
    )

ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", "127.0.0.1,localhost")
CSRF_TRUSTED_ORIGINS = envlist("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "apps.results",
    "apps.ingest",
    "apps.leaderboard",
    "apps.api",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "apps.leaderboard.front.health.HealthCheckHostMiddleware",
    "config.security.SecureCookiesOverHttpsMiddleware",
    "config.security.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "apps.web.rate_limits.PageRateLimit",
    "apps.web.query_guard.QueryStringGuard",
    "config.replica.ReplicaMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "apps.leaderboard.context_processors.navigation",
            ],
        },
    },
    {
        # The hot row templates (a list's rows, a stack's component tree) alone, in Jinja2: why in
        # apps/leaderboard/common/row_templates.py.
        "NAME": "jinja2",
        "BACKEND": "django.template.backends.jinja2.Jinja2",
        "DIRS": [BASE_DIR / "jinja2"],
        "APP_DIRS": False,
        "OPTIONS": {"environment": "apps.leaderboard.common.row_templates.environment"},
    },
]

# PostgreSQL's JIT compiles any plan whose estimated cost passes jit_above_cost. Page queries read a
# few index rows, but a LIMIT plan over a large estimate can pass the bar and then compiles for far
# longer than it runs (a filtered list page spent a thousand times its plan's run time compiling it).
# Off per connection; IOBOARD_DB_JIT=1 keeps the server's default.
POSTGRES_SESSION_OPTIONS = "" if envbool("IOBOARD_DB_JIT", False) else "-c jit=off"
# Database: SQLite file unless DATABASE_URL points at PostgreSQL.
DATABASE_URL = os.environ.get("DATABASE_URL", "")
if DATABASE_URL:
    DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=envint("DB_CONN_MAX_AGE", 60))}
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": os.environ.get("SQLITE_PATH", str(BASE_DIR / "db.sqlite3")),
            # Concurrent writers wait instead of failing with "database is locked".
            "OPTIONS": {"init_command": "PRAGMA busy_timeout = 10000;", "transaction_mode": "IMMEDIATE"},
        }
    }
# A PostgreSQL read replica (streaming replication) for anonymous read-only requests: config/replica.py.
DATABASE_REPLICA_URL = os.environ.get("DATABASE_REPLICA_URL", "")
IOBOARD_REPLICA_PIN_SECONDS = envint("IOBOARD_REPLICA_PIN_SECONDS", 10)
# A replica that is down or lags is skipped for the primary (config/replica.py): checked every CHECK seconds per
# process, connecting within CONNECT_TIMEOUT seconds, usable while at most MAX_LAG seconds behind.
IOBOARD_REPLICA_CHECK_SECONDS = envint("IOBOARD_REPLICA_CHECK_SECONDS", 5)
IOBOARD_REPLICA_CONNECT_TIMEOUT = envint("IOBOARD_REPLICA_CONNECT_TIMEOUT", 2)
IOBOARD_REPLICA_MAX_LAG_SECONDS = envint("IOBOARD_REPLICA_MAX_LAG_SECONDS", 5)
if DATABASE_REPLICA_URL:
    DATABASES["replica"] = dj_database_url.parse(DATABASE_REPLICA_URL, conn_max_age=envint("DB_CONN_MAX_AGE", 60))
    DATABASES["replica"]["CONN_HEALTH_CHECKS"] = True
    DATABASES["replica"].setdefault("OPTIONS", {})["connect_timeout"] = IOBOARD_REPLICA_CONNECT_TIMEOUT
    DATABASES["replica"]["TEST"] = {"MIRROR": "default"}
    DATABASE_ROUTERS = ["config.replica.ReplicaRouter"]
# Behind PgBouncer in transaction pooling mode, .iterator() must not hold a server-side cursor (docs/deployment.md).
for _database in DATABASES.values():
    _database["DISABLE_SERVER_SIDE_CURSORS"] = envbool("DB_DISABLE_SERVER_SIDE_CURSORS", False)
    if _database["ENGINE"].endswith("postgresql") and POSTGRES_SESSION_OPTIONS:
        _database.setdefault("OPTIONS", {})["options"] = POSTGRES_SESSION_OPTIONS
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Redis: broker and cache when REDIS_URL is set; otherwise eager tasks and a local-memory cache.
REDIS_URL = os.environ.get("REDIS_URL", "")
# A Redis that refuses, or accepts and never answers, must not hold a request: every socket to it has a
# deadline (seconds). Cache calls then fail open (apps.results.services.freshness.shared_cache_call); a publish is
# retried once and then left to the sweep (apps.ingest.tasks), so an upload is answered within a few seconds.
IOBOARD_CACHE_SOCKET_TIMEOUT = float(os.environ.get("IOBOARD_CACHE_SOCKET_TIMEOUT", "0.25"))
IOBOARD_BROKER_SOCKET_TIMEOUT = float(os.environ.get("IOBOARD_BROKER_SOCKET_TIMEOUT", "1.0"))
# The page cache (apps.web.page_cache) keeps rendered pages, megabytes of them, in their own Redis: CACHE_URL, an
# instance with maxmemory and allkeys-lru (docker/compose.yml, docs/deployment.md), which evicts old pages and
# nothing else. The default cache on REDIS_URL beside the broker's queues holds only small keys that must not be
# evicted: the data version and the rate limits' counters. Without CACHE_URL the pages share REDIS_URL's server.
CACHE_URL = os.environ.get("CACHE_URL", "") or REDIS_URL


def redis_cache(location: str) -> dict:
    return {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": location,
        "OPTIONS": {
            "socket_connect_timeout": IOBOARD_CACHE_SOCKET_TIMEOUT,
            "socket_timeout": IOBOARD_CACHE_SOCKET_TIMEOUT,
        },
    }


if REDIS_URL:
    CACHES = {"default": redis_cache(REDIS_URL), "pages": redis_cache(CACHE_URL)}
    CELERY_BROKER_URL = REDIS_URL
    CELERY_TASK_ALWAYS_EAGER = False
else:
    CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "default"},
        "pages": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "pages"},
    }
    CELERY_BROKER_URL = "memory://"
    CELERY_TASK_ALWAYS_EAGER = True
CELERY_TASK_EAGER_PROPAGATES = True
# An unacknowledged task is redelivered after a worker dies (acks_late + reject_on_worker_lost),
# so every task must be idempotent; the visibility timeout must exceed the longest ingest.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_SOFT_TIME_LIMIT = envint("CELERY_TASK_SOFT_TIME_LIMIT", 600)
CELERY_TASK_TIME_LIMIT = envint("CELERY_TASK_TIME_LIMIT", 660)
# The ingest task's own limits (apps/ingest/tasks.py). Every upload's work is bounded before it is
# spent (IOBOARD_ARCHIVE_*, IOBOARD_UPLOAD_MAX_RUNS, the grammars' line cap), so a real upload ingests
# in a fraction of a second per run; these end whatever still runs long, a hostile upload within the
# hard limit. The soft limit fails the job with a message; the hard one kills the
# process (a regular expression in C cannot be interrupted by the soft one).
IOBOARD_INGEST_SOFT_TIME_LIMIT = envint("IOBOARD_INGEST_SOFT_TIME_LIMIT", 8)
IOBOARD_INGEST_TIME_LIMIT = envint("IOBOARD_INGEST_TIME_LIMIT", 10)
# The soft limit is wall-clock, but an upload is judged on what it cost, not on how long a busy host kept a niced
# worker (IOBOARD_WORKER_NICE) waiting. An attempt the soft limit ends having had at least this share of it in CPU
# seconds (its worker process's, user and system) cost that much: the job fails. With less, the host starved it:
# the job is given back and retried with the task's growing pauses, five times at most, then fails saying the
# server was too busy (the upload is kept). Half: an upload that really costs the limit has well over half of it on
# a host that gives it a CPU, and a starved one (niceness 19 beside a full host: a few percent of a CPU) far less;
# and an upload still costs at most this share of the limit in CPU per try, six tries.
IOBOARD_INGEST_CPU_SHARE = float(os.environ.get("IOBOARD_INGEST_CPU_SHARE", "0.5"))
# A worker process whose resident memory a task left above this (KiB) is replaced after that task,
# so a fragmented heap never accumulates; the limits above keep one task well under it.
CELERY_WORKER_MAX_MEMORY_PER_CHILD = envint("CELERY_WORKER_MAX_MEMORY_PER_CHILD", 400_000)
# Readers first: a Celery worker lowers its own CPU priority to this niceness when it starts (config.celery), and
# with IOBOARD_WORKER_SCHED_IDLE=1 runs under SCHED_IDLE (a CPU only when nothing else wants it), so ingest on
# a host shared with the web never queues the pages behind it. 0: the worker keeps the priority it started with.
IOBOARD_WORKER_NICE = envint("IOBOARD_WORKER_NICE", 19)
IOBOARD_WORKER_SCHED_IDLE = envbool("IOBOARD_WORKER_SCHED_IDLE", False)
# A killed worker's messages (taken, never acknowledged) return to the queue once they are older than the
# visibility timeout, when a live worker's sweep of unacknowledged messages next runs (kombu's default sweep is
# every 100 s: ten 10 s ticks). 60 s exceeds the ingest's hard limit (IOBOARD_INGEST_TIME_LIMIT) and its claim
# (IOBOARD_INGEST_CLAIM_SECONDS), so a job still running is never taken twice (a redelivered message for it is
# dropped by the claim); swept every 5 s, a dead worker's jobs are done by another within about 70 s
# (tests/hosts/test_separate_hosts.py). A list-upkeep task running past 60 s may be delivered twice: every task
# is idempotent, and list upkeep locks its list's state row.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": envint("CELERY_VISIBILITY_TIMEOUT", 60),
    "unacked_restore_interval": envint("CELERY_UNACKED_RESTORE_SECONDS", 5),
    "unacked_restore_throttle": 1,
    "socket_timeout": IOBOARD_BROKER_SOCKET_TIMEOUT,
    "socket_connect_timeout": IOBOARD_BROKER_SOCKET_TIMEOUT,
}
CELERY_BROKER_CONNECTION_TIMEOUT = IOBOARD_BROKER_SOCKET_TIMEOUT
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 1, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.2}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Tasks: a tasks.py per app, found by autodiscovery, with one retry policy (config/celery.py).
CELERY_BEAT_SCHEDULE = {
    "requeue-stuck-uploads": {"task": "apps.ingest.tasks.requeue_stuck_uploads", "schedule": 300.0},
    "remove-expired-failed-uploads": {"task": "apps.ingest.tasks.remove_expired_failed_uploads", "schedule": 86400.0},
    "release-due-embargoes": {"task": "apps.results.tasks.release_due_embargoes", "schedule": 60.0},
}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", BASE_DIR / "staticfiles"))
STATICFILES_DIRS = [BASE_DIR / "static"]
STATICFILES_FINDERS = [
    "django.contrib.staticfiles.finders.FileSystemFinder",
    "django.contrib.staticfiles.finders.AppDirectoriesFinder",
    "apps.leaderboard.common.finders.PlotlyWheelFinder",
]
MEDIA_URL = "/media/"
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT", BASE_DIR / "media"))
# Uploads are kept where every host reaches them (docs/deployment.md, "What is shared"): in PostgreSQL
# (apps.results.storage), or in an S3-compatible bucket through django-storages when IOBOARD_S3_BUCKET is set.
# Nothing is stored under MEDIA_ROOT; it is read only by the migration that moves older uploads in.
IOBOARD_S3_BUCKET = os.environ.get("IOBOARD_S3_BUCKET", "")
UPLOAD_STORAGE = (
    {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": IOBOARD_S3_BUCKET,
            "endpoint_url": os.environ.get("IOBOARD_S3_ENDPOINT_URL") or None,
            "region_name": os.environ.get("IOBOARD_S3_REGION") or None,
            "access_key": envsecret("IOBOARD_S3_ACCESS_KEY_ID"),
            "secret_key": envsecret("IOBOARD_S3_SECRET_ACCESS_KEY"),
            "location": os.environ.get("IOBOARD_S3_PREFIX", ""),
            "default_acl": "private",
            "querystring_auth": True,
            "file_overwrite": False,
        },
    }
    if IOBOARD_S3_BUCKET
    else {"BACKEND": "apps.results.storage.DatabaseStorage"}
)
STORAGES = {
    "default": UPLOAD_STORAGE,
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

# Security: on by default whenever DEBUG is off (docs/deployment.md). SECURE_SSL_REDIRECT=0 serves plain HTTP
# on loopback or behind a TLS-terminating proxy; set SECURE_PROXY_SSL_HEADER=1 there (the proxy sets
# X-Forwarded-Proto), so that a request that reached the proxy over https counts as secure.
SECURE_SSL_REDIRECT = envbool("SECURE_SSL_REDIRECT", not DEBUG)
if envbool("SECURE_PROXY_SSL_HEADER", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# Cookies are Secure always with SECURE_COOKIES=1 (default: when redirecting to https), and in any case on every
# response to a request that came over https (config.security.SecureCookiesOverHttpsMiddleware).
SESSION_COOKIE_SECURE = envbool("SECURE_COOKIES", not DEBUG and SECURE_SSL_REDIRECT)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SECURE_HSTS_SECONDS = envint("SECURE_HSTS_SECONDS", 0 if DEBUG else 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = envbool("SECURE_HSTS_INCLUDE_SUBDOMAINS", not DEBUG)
# Preloading is a promise to browser vendors that is slow to take back: only when asked for.
SECURE_HSTS_PRELOAD = envbool("SECURE_HSTS_PRELOAD", False)
# check --deploy warns (W021) whenever preload is off; off is the decision above, not an oversight.
SILENCED_SYSTEM_CHECKS = [] if SECURE_HSTS_PRELOAD else ["security.W021"]
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
SECURE_REFERRER_POLICY = "same-origin"
# The container's health check asks http://127.0.0.1:8000/healthz: plain HTTP, and a host that is not the
# site's. /healthz is kept out of the https redirect, and answered for these hosts (and only /healthz is:
# apps.leaderboard.front.health.HealthCheckHostMiddleware).
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
IOBOARD_HEALTHCHECK_HOSTS = envlist("IOBOARD_HEALTHCHECK_HOSTS", "127.0.0.1,localhost")
# Content-Security-Policy (django-csp): every script, style, font and image comes from this site (Plotly is
# served from the installed wheel); no inline script, no eval. The API's Swagger and Redoc pages add what
# their bundles need (config.security.ContentSecurityPolicyMiddleware).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}

# How many reverse proxies in front of the web server append to X-Forwarded-For (docs/deployment.md): 0 when
# gunicorn faces the clients, 1 behind one nginx or load balancer.
IOBOARD_TRUSTED_PROXIES = envint("IOBOARD_TRUSTED_PROXIES", 0)
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "apps.api.common.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    # DRF's parsers, with a depth bound on JSON and every value checked for unstorable text (apps/api/common/inputs.py).
    "DEFAULT_PARSER_CLASSES": [
        "apps.api.common.inputs.JSONParser",
        "apps.api.common.inputs.FormParser",
        "apps.api.common.inputs.MultiPartParser",
    ],
    "DEFAULT_PAGINATION_CLASS": "apps.api.common.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_FILTER_BACKENDS": [
        "django_filters.rest_framework.DjangoFilterBackend",
        "rest_framework.filters.OrderingFilter",
    ],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # The client a rate counts: the socket's address, or the one the outermost of IOBOARD_TRUSTED_PROXIES added
    # to X-Forwarded-For (apps.web.rate_limits); never an address a client wrote into that header itself.
    "NUM_PROXIES": IOBOARD_TRUSTED_PROXIES,
    "DEFAULT_THROTTLE_RATES": {
        "anon": os.environ.get("THROTTLE_ANON", "600/min"),
        "user": os.environ.get("THROTTLE_USER", "6000/min"),
        # Every page but the API's, per client (apps.web.rate_limits.PageRateLimit); the exports besides.
        "pages": os.environ.get("THROTTLE_PAGES", "300/min"),
        "exports": os.environ.get("THROTTLE_EXPORTS", "60/min"),
        "uploads": os.environ.get("THROTTLE_UPLOADS", "120/hour"),
        "custom_lists": os.environ.get("THROTTLE_CUSTOM_LISTS", "30/hour"),
    },
}
SPECTACULAR_SETTINGS = {
    "TITLE": "ioboard API",
    "DESCRIPTION": "IO500, mdtest and IOR results: runs, systems, lists, scaling series, studies and uploads.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # One schema name per choice set that several fields share: runs and uploads both have a "kind" with
    # different choices (an IOR upload makes no run); a change's kind and status share their field names.
    "ENUM_NAME_OVERRIDES": {
        "RunKindEnum": "apps.results.models.Run.Kind",
        "UploadKindEnum": "apps.ingest.tools.upload_kind_choices",
        "ChangeKindEnum": "apps.results.models.Change.Kind",
        "ChangeStatusEnum": "apps.results.models.Change.Status",
        "ListKindEnum": "apps.results.models.list_kinds.LIST_KIND_SLUGS",
        "ReviewStatusEnum": "apps.results.models.ReviewStatus",
        "IngestStatusEnum": "apps.ingest.models.IngestJob.Status",
    },
}

# ioboard's own knobs.
# The work one upload may cost, checked before it is spent (docs/deployment.md, "Bounded work per
# upload"). Real IO500 submissions are about a megabyte expanded (the corpus: at most 1.3 MB, 118
# files, 0.6 MB in one file, 83:1 compression); the defaults leave a margin of 25-50 times.
IOBOARD_UPLOAD_MAX_BYTES = envint("IOBOARD_UPLOAD_MAX_BYTES", 64 * 1024 * 1024)
IOBOARD_ARCHIVE_MAX_ENTRIES = envint("IOBOARD_ARCHIVE_MAX_ENTRIES", 20000)
IOBOARD_ARCHIVE_MAX_EXPANDED_BYTES = envint("IOBOARD_ARCHIVE_MAX_EXPANDED_BYTES", 64 * 1024 * 1024)
IOBOARD_ARCHIVE_MAX_FILE_BYTES = envint("IOBOARD_ARCHIVE_MAX_FILE_BYTES", 16 * 1024 * 1024)
IOBOARD_ARCHIVE_MAX_RATIO = envint("IOBOARD_ARCHIVE_MAX_RATIO", 200)
# IO500 runs (and so systems) one upload may create; a submission is one run.
IOBOARD_UPLOAD_MAX_RUNS = envint("IOBOARD_UPLOAD_MAX_RUNS", 50)
# What uploads may make of an IOR parameter study, the study's whole size after the upload (docs/deployment.md):
# every reader of its page and API pays for its pairwise comparisons (k values of one axis make k(k-1)/2).
IOBOARD_STUDY_MAX_CONFIGURATIONS = envint("IOBOARD_STUDY_MAX_CONFIGURATIONS", 500)
IOBOARD_STUDY_MAX_AXES = envint("IOBOARD_STUDY_MAX_AXES", 16)
IOBOARD_STUDY_MAX_VALUES_PER_AXIS = envint("IOBOARD_STUDY_MAX_VALUES_PER_AXIS", 100)
IOBOARD_STUDY_MAX_COMPARISONS = envint("IOBOARD_STUDY_MAX_COMPARISONS", 5000)
# What one upload may make of a DNE scaling series (its points, after the upload) and of a stack campaign (its
# components and measurements): every reader of their pages and API pays for each. A real DNE campaign is a few hundred
# points (the slice in tests/data: 120), a real stack a few hundred components. At the budget a series page (its groups
# and rows paged) is about 0.2 MB and its API answer under 2 MB, whatever the shape the upload chose.
IOBOARD_SCALING_MAX_POINTS = envint("IOBOARD_SCALING_MAX_POINTS", 2000)
IOBOARD_STACK_MAX_COMPONENTS = envint("IOBOARD_STACK_MAX_COMPONENTS", 2000)
IOBOARD_STACK_MAX_MEASUREMENTS = envint("IOBOARD_STACK_MAX_MEASUREMENTS", 5000)
# The configuration files one run keeps, beside the 256 KiB of each: every reader of the run page pays for them (251
# kept files made a page of 16 MB). Past either budget the rest, in name order, are not kept, and the run says so.
IOBOARD_RUN_KEPT_FILES = envint("IOBOARD_RUN_KEPT_FILES", 100)
IOBOARD_RUN_KEPT_FILE_BYTES = envint("IOBOARD_RUN_KEPT_FILE_BYTES", 2 * 1024 * 1024)
IOBOARD_STUCK_UPLOAD_MINUTES = envint("IOBOARD_STUCK_UPLOAD_MINUTES", 15)
# What one account may store a day (the last 24 hours; staff are not counted): uploads and their bytes. The defaults
# are a campaign's worth (a submitter sends a few archives a day) and 16 uploads at the size cap.
IOBOARD_UPLOAD_QUOTA_UPLOADS_PER_DAY = envint("IOBOARD_UPLOAD_QUOTA_UPLOADS_PER_DAY", 50)
IOBOARD_UPLOAD_QUOTA_BYTES_PER_DAY = envint("IOBOARD_UPLOAD_QUOTA_BYTES_PER_DAY", 1024 * 1024 * 1024)
# A failed upload's stored file is removed this many days after it failed (apps.ingest.retention); its row and its
# message stay, so its uploader can still read why it failed.
IOBOARD_FAILED_UPLOAD_RETENTION_DAYS = envint("IOBOARD_FAILED_UPLOAD_RETENTION_DAYS", 14)
# How long an uploader is asked to wait before polling an unfinished upload again (the Retry-After of its 202 and
# of its status while pending or processing): an IO500 submission ingests in about a second, a queue of them in a
# few, and a client polling back-to-back costs the readers of a shared server their CPU (bench load_deadline).
IOBOARD_UPLOAD_POLL_SECONDS = envint("IOBOARD_UPLOAD_POLL_SECONDS", 2)
# A worker's claim on an ingest job lapses after this (apps.ingest.models.IngestJob.claim): by then the ingest
# task's hard time limit has killed it, so a redelivered message may take the job over; earlier, a duplicate is dropped.
IOBOARD_INGEST_CLAIM_SECONDS = envint("IOBOARD_INGEST_CLAIM_SECONDS", IOBOARD_INGEST_TIME_LIMIT + 5)
# Anonymous list pages are cached until the data version changes (apps.web.page_cache); only with a
# cache shared by every process (Redis), since a per-process cache cannot hear another process's writes.
IOBOARD_PAGE_CACHE_SECONDS = envint("IOBOARD_PAGE_CACHE_SECONDS", 600 if REDIS_URL else 0)
# A larger rendered page is served uncached: a list page of 500 rows is about 0.5 MB.
IOBOARD_PAGE_CACHE_MAX_BYTES = envint("IOBOARD_PAGE_CACHE_MAX_BYTES", 1024 * 1024)
# Every page-cache and data-version key starts with this (apps.results.services.freshness.cache_key), so two
# deployments sharing one Redis never serve each other's pages. Default: one prefix per database.
IOBOARD_CACHE_PREFIX = os.environ.get("IOBOARD_CACHE_PREFIX") or f"ioboard:{Path(DATABASES['default']['NAME']).stem}"
# Rows per page of a list export (apps.leaderboard.lists.exports.ExportPage): each page links the next, so every row is
# reachable while no request writes more than this many. Measured on PostgreSQL, a 2-CPU host at load 7.7: 400 rows
# in 1.0 s (JSON) and 1.7 s (CSV), so a page of 2,000 in well under gunicorn's 30 s timeout even under load.
IOBOARD_EXPORT_PAGE_ROWS = envint("IOBOARD_EXPORT_PAGE_ROWS", 2000)
# Overrides of apps.results.judgements.anomalies.DEFAULT_THRESHOLDS, e.g. {"stat_over_create_easy": 30}.
IOBOARD_ANOMALY_THRESHOLDS: dict = {}
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
# Saved custom lists an account may keep: each is re-evaluated after every upload (apps.results.services.custom_lists).
IOBOARD_CUSTOM_LISTS_PER_USER = envint("IOBOARD_CUSTOM_LISTS_PER_USER", 50)
# After a failed call on the cache (Redis refused or silent), a process goes without it this long
# (apps.results.services.freshness.shared_cache_call), so an outage costs one socket timeout, not one per call.
IOBOARD_CACHE_RETRY_SECONDS = envint("IOBOARD_CACHE_RETRY_SECONDS", 10)
# The longest text an API field takes when neither its model column nor its serializer says otherwise.
IOBOARD_API_MAX_TEXT_CHARS = envint("IOBOARD_API_MAX_TEXT_CHARS", 10000)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    # Eager tasks (embedded mode) run inside the web process and the management commands: one "Task ...
    # succeeded" line per task buried `make run`'s useful lines (41 of them after load_demo). Failures still show.
    "loggers": {"celery.app.trace": {"level": "WARNING"}} if CELERY_TASK_ALWAYS_EAGER else {},
}

# Overrides of apps.results.judgements.changes.detection.DetectionParameters (see docs/changes.md),
# e.g. {"magnitude_floor_pct": 10, "step_sigmas": 5}.
IOBOARD_CHANGE_DETECTION: dict = {}

# --- Accounts: sign-up, sign-in, email and API tokens (issue 37) ------------------------------------------------
# django-allauth does sign-up (email confirmation mandatory), sign-in, password reset and email change; its
# adapter (apps/leaderboard/accounts/adapter.py) holds new accounts for staff approval when asked to.
INSTALLED_APPS += ["allauth", "allauth.account"]
MIDDLEWARE += ["allauth.account.middleware.AccountMiddleware"]
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
LOGIN_URL = "account_login"
ACCOUNT_ADAPTER = "apps.leaderboard.accounts.adapter.AccountAdapter"
ACCOUNT_LOGIN_METHODS = {"username", "email"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "username*", "password1*", "password2*"]
ACCOUNT_EMAIL_VERIFICATION = "mandatory"
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION = False
# Sign-up and password reset answer the same whether an address has an account or not (a mail tells its owner).
ACCOUNT_PREVENT_ENUMERATION = True
ACCOUNT_LOGOUT_ON_PASSWORD_CHANGE = False
# Per client (ip) and per account (key): ten wrong passwords lock sign-in for IOBOARD_SIGNIN_LOCK_MINUTES. The client is
# the one the rate limits name (IOBOARD_TRUSTED_PROXIES): left at allauth's default, behind a proxy every client was the
# proxy's address, and ten wrong passwords from anyone locked everyone's sign-in.
ALLAUTH_TRUSTED_PROXY_COUNT = IOBOARD_TRUSTED_PROXIES
IOBOARD_SIGNIN_LOCK_MINUTES = envint("IOBOARD_SIGNIN_LOCK_MINUTES", 15)
# Sign-ups and password resets one client may ask for (the reset also per address: key).
ACCOUNT_REQUESTS_PER_CLIENT = "20/m/ip"
ACCOUNT_RATE_LIMITS = {
    "login_failed": f"10/{IOBOARD_SIGNIN_LOCK_MINUTES}m/ip,10/{IOBOARD_SIGNIN_LOCK_MINUTES}m/key",
    "signup": ACCOUNT_REQUESTS_PER_CLIENT,
    "reset_password": f"{ACCOUNT_REQUESTS_PER_CLIENT},5/m/key",
    "reset_password_from_key": ACCOUNT_REQUESTS_PER_CLIENT,
    "manage_email": "10/m/user",
    "confirm_email": "1/3m/key",
}
# New accounts wait until staff tick "active" in the admin's Users page.
IOBOARD_ACCOUNTS_NEED_APPROVAL = envbool("IOBOARD_ACCOUNTS_NEED_APPROVAL", False)
# Mail (confirmation, reset, notifications) through Django's backends: a file per message under EMAIL_FILE_PATH
# while DEBUG (`make run`), SMTP from the environment otherwise; the tests use Django's locmem outbox.
EMAIL_BACKEND = os.environ.get(
    "EMAIL_BACKEND",
    "django.core.mail.backends.filebased.EmailBackend" if DEBUG else "django.core.mail.backends.smtp.EmailBackend",
)
EMAIL_FILE_PATH = os.environ.get("EMAIL_FILE_PATH", str(BASE_DIR / "mail"))
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = envint("EMAIL_PORT", 25)
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = envsecret("EMAIL_HOST_PASSWORD") or ""
EMAIL_USE_TLS = envbool("EMAIL_USE_TLS", False)
EMAIL_USE_SSL = envbool("EMAIL_USE_SSL", False)
EMAIL_TIMEOUT = envint("EMAIL_TIMEOUT", 10)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "ioboard <noreply@localhost>")
# Mail to submitters (apps/results/services/notifications.py): the site's address for its links.
IOBOARD_SITE_URL = os.environ.get("IOBOARD_SITE_URL", "http://127.0.0.1:8000").rstrip("/")
