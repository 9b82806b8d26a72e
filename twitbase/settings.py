"""Django settings for TwitBase. Every setting a deployment changes comes from
an environment variable (see .env.example); there is no relational database:
users and everything else live in HBase."""

from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from . import logconfig, portsfile
from .env import (
    env_bool,
    env_choice,
    env_header,
    env_int,
    env_is_set,
    env_list,
    env_networks,
    env_str,
)
from .secret_key import data_dir_secret_key, unsafe_secret_key

BASE_DIR = Path(__file__).resolve().parent.parent

# Where `manage.py devstack` keeps the local HBase server's RocksDB directory,
# and development keeps its secret key.
TWITBASE_DATA_DIR = Path(env_str("TWITBASE_DATA_DIR", str(BASE_DIR / "var" / "data")))

# As in healthchecks: development is the default, a deployment sets DJANGO_DEBUG=0
# and must then provide its own secret key.
DEBUG = env_bool("DJANGO_DEBUG", True)
SECRET_KEY = env_str("DJANGO_SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY is not set; it is required unless DJANGO_DEBUG=1"
        )
    # Never a constant: one random key per data directory, kept there.
    SECRET_KEY = data_dir_secret_key(TWITBASE_DATA_DIR)
elif not DEBUG and (unsafe := unsafe_secret_key(SECRET_KEY)):
    raise ImproperlyConfigured(f"DJANGO_SECRET_KEY is unsafe: {unsafe}")
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])

INSTALLED_APPS = [
    "django.contrib.sessions",
    "django.contrib.messages",
    # Template filters only (intcomma): it has no models.
    "django.contrib.humanize",
    # Before staticfiles: feeds' runserver (JSON errors for /api/) wins.
    "storage",
    "feeds",
    "worker",
    "django.contrib.staticfiles",
    "csp",
    # django-ninja's templates and static files: /api/docs (Swagger UI) from
    # this site, not a CDN.
    "ninja",
    # Last: its ready() runs after every other app's (twitbase/startup.py).
    "twitbase",
]
# Development tooling (devstack, localhbase, the benchmarks' commands) where a
# checkout has it; the app image holds only the product, and so runs without.
if find_spec("devtools") is not None:
    INSTALLED_APPS.insert(INSTALLED_APPS.index("django.contrib.staticfiles"), "devtools")

MIDDLEWARE = [
    # First: times every request (Prometheus, /metrics) and names it in log lines.
    "feeds.observability.middleware.RequestMetricsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    # Inside the two above, so that its 413 and 503 answers carry their headers.
    "feeds.failures.FailureMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "feeds.auth.SessionAuthMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last: the styled 404 for unknown URLs, inside CommonMiddleware's APPEND_SLASH.
    "feeds.failures.NotFoundPageMiddleware",
]

# A refused form's 403 page, rendered with the request so it keeps the header.
CSRF_FAILURE_VIEW = "feeds.views.site.csrf_failure"

# No SQL database: sessions live in signed cookies, messages in cookies too.
SESSION_ENGINE = "django.contrib.sessions.backends.signed_cookies"
SESSION_COOKIE_HTTPONLY = True
MESSAGE_STORAGE = "django.contrib.messages.storage.cookie.CookieStorage"
LOGIN_URL = "login"

# Checked at sign-up and password change (feeds/services/accounts.py), without
# django.contrib.auth's models: the similarity check reads these attributes
# of a small stand-in for the account.
_VALIDATION = "django.contrib.auth.password_validation."
AUTH_PASSWORD_VALIDATORS = [
    {
        "NAME": _VALIDATION + "UserAttributeSimilarityValidator",
        "OPTIONS": {"user_attributes": ("userid", "name", "email")},
    },
    {"NAME": _VALIDATION + "MinimumLengthValidator", "OPTIONS": {"min_length": 8}},
    {"NAME": _VALIDATION + "CommonPasswordValidator"},
    {"NAME": _VALIDATION + "NumericPasswordValidator"},
]

ROOT_URLCONF = "twitbase.urls"
WSGI_APPLICATION = "twitbase.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.messages.context_processors.messages",
                "feeds.viewhelpers.unread_notifications",
                "feeds.viewhelpers.unread_messages",
            ]
        },
    },
    # The twit card, rendered by the dozen on a page (feeds/jinja.py says why).
    {
        "BACKEND": "django.template.backends.jinja2.Jinja2",
        "DIRS": [BASE_DIR / "templates" / "jinja2"],
        "APP_DIRS": False,
        "OPTIONS": {"environment": "feeds.jinja.environment"},
    },
]

# Form fields (the composer's nine on every home page) are rendered by
# Jinja2's copies of Django's widget templates: about half the time of
# Django's engine for the same HTML. The renderer remembers what it rendered
# (feeds/jinja.py, FormRenderer, says why that is exact).
FORM_RENDERER = "feeds.jinja.FormRenderer"

# No SQL database: HBase is the only store.
DATABASES: dict[str, dict[str, str]] = {}

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "var" / "static"
if not DEBUG:
    # The app serves its own static files in production too (no CDN), from
    # STATIC_ROOT (collectstatic); in development runserver serves them.
    MIDDLEWARE.insert(
        MIDDLEWARE.index("django.middleware.security.SecurityMiddleware") + 1,
        "whitenoise.middleware.WhiteNoiseMiddleware",
    )

# -- Security -------------------------------------------------------------------
# Production (DJANGO_DEBUG=0) defaults pass `manage.py check --deploy` with no
# warning; each can be changed for a deployment that needs it.
# Cookies (session, CSRF, messages) only over HTTPS.
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = env_bool("DJANGO_SECURE_COOKIES", not DEBUG)
# Redirect http:// to https://, except the health check and the metrics
# (probes and Prometheus speak plain HTTP on the private network).
SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", not DEBUG)
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^metrics$"]
# Behind a TLS-terminating proxy: the header (and value) that says the
# client's request was HTTPS, e.g. "X-Forwarded-Proto: https". Set it only
# if the proxy always sets or strips that header.
SECURE_PROXY_SSL_HEADER = env_header("DJANGO_SECURE_PROXY_SSL_HEADER")
SECURE_HSTS_SECONDS = env_int("DJANGO_SECURE_HSTS_SECONDS", 0 if DEBUG else 31_536_000, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
SECURE_HSTS_PRELOAD = env_bool("DJANGO_SECURE_HSTS_PRELOAD", True)
# Request bodies larger than this get 413 before they are read (feeds.failures).
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("DJANGO_DATA_UPLOAD_MAX_MEMORY_SIZE", 2_621_440, minimum=1024)
# Content-Security-Policy (django-csp), enforced with DEBUG on too, so that
# development shows what production would block. No inline script or style
# anywhere: every script and stylesheet is a static file of this site.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'none'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}

# -- HBase ---------------------------------------------------------------------
# The Thrift1 server to talk to: the local HBase server (`manage.py localhbase`)
# or a real HBase ThriftServer. Both speak the same API.
# Environment variables win; without them, the ports file of a devstack
# running on TWITBASE_DATA_DIR (twitbase/portsfile.py); without it, HBase's
# usual Thrift port.
_DEVSTACK = portsfile.read(TWITBASE_DATA_DIR)
TWITBASE_HBASE_HOST = env_str(
    "TWITBASE_HBASE_HOST", _DEVSTACK.hbase_host if _DEVSTACK else "127.0.0.1"
)
TWITBASE_HBASE_PORT = env_int(
    "TWITBASE_HBASE_PORT", _DEVSTACK.hbase_port if _DEVSTACK else 9090, minimum=1, maximum=65535
)
# HBase's Thrift2 server (THBaseService), through which tables are created
# pre-split (storage/admin.py): HBase runs it as a second ThriftServer (the
# local server on --thrift2-port; devstack sets both). 0: none, and every
# table is created as one region.
TWITBASE_HBASE_THRIFT2_PORT = env_int(
    "TWITBASE_HBASE_THRIFT2_PORT",
    _DEVSTACK.hbase_thrift2_port if _DEVSTACK else 0,
    minimum=0,
    maximum=65535,
)
# Regions each hash-keyed table is created with (split on even hash
# boundaries; docs/schema.md, docs/scaling.md). 1: no pre-split.
TWITBASE_PRESPLIT_REGIONS = env_int("TWITBASE_PRESPLIT_REGIONS", 16, minimum=1, maximum=4096)
# Where the two above came from, for messages that say where HBase was looked for.
_HBASE_VARS = [v for v in ("TWITBASE_HBASE_HOST", "TWITBASE_HBASE_PORT") if env_is_set(v)]
if _HBASE_VARS:
    TWITBASE_HBASE_SOURCE = "from " + " and ".join(_HBASE_VARS)
elif _DEVSTACK:
    TWITBASE_HBASE_SOURCE = (
        f"from devstack's ports file {portsfile.path_in(TWITBASE_DATA_DIR)} (pid {_DEVSTACK.pid})"
    )
else:
    TWITBASE_HBASE_SOURCE = (
        "the default: no TWITBASE_HBASE_HOST/PORT set and no running devstack's "
        f"ports file in {TWITBASE_DATA_DIR}"
    )
TWITBASE_HBASE_TRANSPORT = env_choice(
    "TWITBASE_HBASE_TRANSPORT", "buffered", ["buffered", "framed"]
)
TWITBASE_HBASE_PROTOCOL = env_choice("TWITBASE_HBASE_PROTOCOL", "binary", ["binary", "compact"])
TWITBASE_HBASE_POOL_SIZE = env_int("TWITBASE_HBASE_POOL_SIZE", 8, minimum=1, maximum=256)
TWITBASE_HBASE_TIMEOUT_MS = env_int("TWITBASE_HBASE_TIMEOUT_MS", 10_000, minimum=100)
# Prepended (with an underscore) to every table name, keeping environments apart.
TWITBASE_TABLE_PREFIX = env_str("TWITBASE_TABLE_PREFIX", "twitbase")
# Twits one user may post per minute (HTTP 429 beyond).
TWITBASE_POSTS_PER_MINUTE = env_int("TWITBASE_POSTS_PER_MINUTE", 30, minimum=1)
# The home page's trending box is read at most once per this many seconds
# in a process (feeds/services/tags.py, trending_box); 0 reads it each time.
TWITBASE_TRENDING_CACHE_S = env_int("TWITBASE_TRENDING_CACHE_S", 30, minimum=0)
# How long a process keeps a reader's who-to-follow ranking (services.suggest_follows).
TWITBASE_SUGGEST_CACHE_S = env_int("TWITBASE_SUGGEST_CACHE_S", 300, minimum=0)
# How long a process keeps what a page looked up under a counter each change
# of it raises: a reader's likes and reposts of the twits their pages showed
# (reactions.FlagsCache), and who is suspended (accounts.SuspendedCache). The
# bound on what a crash mid-change leaves stale; 0: asked on every page.
TWITBASE_PAGE_CACHE_S = env_int("TWITBASE_PAGE_CACHE_S", 60, minimum=0)
# The other costly actions, each counted per minute as posts are (HTTP 429
# beyond; feeds/services/ratelimit.py declares them): sign-ups per client
# address; follows and unfollows, likes and reposts (and taking them back),
# avatar uploads and reports per account; password resets asked per account
# and per client address.
TWITBASE_SIGNUPS_PER_MINUTE = env_int("TWITBASE_SIGNUPS_PER_MINUTE", 5, minimum=1)
TWITBASE_FOLLOWS_PER_MINUTE = env_int("TWITBASE_FOLLOWS_PER_MINUTE", 30, minimum=1)
TWITBASE_REACTIONS_PER_MINUTE = env_int("TWITBASE_REACTIONS_PER_MINUTE", 60, minimum=1)
TWITBASE_AVATAR_UPLOADS_PER_MINUTE = env_int("TWITBASE_AVATAR_UPLOADS_PER_MINUTE", 5, minimum=1)
TWITBASE_REPORTS_PER_MINUTE = env_int("TWITBASE_REPORTS_PER_MINUTE", 10, minimum=1)
# Blocks and mutes, of accounts and words, and undoing them, per account.
TWITBASE_BLOCKS_PER_MINUTE = env_int("TWITBASE_BLOCKS_PER_MINUTE", 30, minimum=1)
# Direct messages one account may send per minute.
TWITBASE_MESSAGES_PER_MINUTE = env_int("TWITBASE_MESSAGES_PER_MINUTE", 30, minimum=1)
# A twit's images uploaded (up to four a twit; each is decoded and re-encoded),
# and lists made, deleted or given or taken members.
TWITBASE_IMAGE_UPLOADS_PER_MINUTE = env_int("TWITBASE_IMAGE_UPLOADS_PER_MINUTE", 30, minimum=1)
TWITBASE_LIST_CHANGES_PER_MINUTE = env_int("TWITBASE_LIST_CHANGES_PER_MINUTE", 30, minimum=1)
TWITBASE_PASSWORD_RESETS_PER_MINUTE = env_int("TWITBASE_PASSWORD_RESETS_PER_MINUTE", 3, minimum=1)
TWITBASE_PASSWORD_RESETS_PER_ADDRESS = env_int(
    "TWITBASE_PASSWORD_RESETS_PER_ADDRESS", 10, minimum=1
)
# An avatar upload's pixels (width x height, read from the image's header
# before anything is decoded): what one upload may cost to decode.
TWITBASE_AVATAR_MAX_PIXELS = env_int(
    "TWITBASE_AVATAR_MAX_PIXELS", 16_000_000, minimum=65_536, maximum=100_000_000
)
# Failed log-ins allowed per account from untrusted clients (those without a
# device token for it), and per client address (REMOTE_ADDR),
# in each window of TWITBASE_LOGIN_WINDOW_S seconds; beyond, HTTP 429. The
# window is at most a day: the logins table's TTL (two days) must outlast it.
TWITBASE_LOGIN_WINDOW_S = env_int("TWITBASE_LOGIN_WINDOW_S", 900, minimum=60, maximum=86400)
TWITBASE_LOGIN_FAILS_PER_ACCOUNT = env_int("TWITBASE_LOGIN_FAILS_PER_ACCOUNT", 10, minimum=1)
TWITBASE_LOGIN_FAILS_PER_ADDRESS = env_int("TWITBASE_LOGIN_FAILS_PER_ADDRESS", 50, minimum=1)
# Failed log-ins allowed per window from a client holding a device token for
# the account (OWASP's device cookies: these do not count against the
# account's untrusted clients), and wrong passwords per session or API token
# when it changes the password or deletes the account.
TWITBASE_LOGIN_FAILS_PER_DEVICE = env_int("TWITBASE_LOGIN_FAILS_PER_DEVICE", 10, minimum=1)

# -- Celery (the broker for background work) ------------------------------------
CELERY_BROKER_URL = env_str(
    "CELERY_BROKER_URL", _DEVSTACK.broker_url if _DEVSTACK else "redis://127.0.0.1:6379/0"
)
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_IGNORE_RESULT = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1  # with acks_late: a worker holds one task at a time
# A request must not hang when the broker is down: give up fast, the sweep
# (or the inline fallback) takes over.
CELERY_BROKER_CONNECTION_TIMEOUT = 2
# A task a worker took but never acknowledged (acks_late: the worker died
# holding it, running or waiting out a retry delay) goes back on the queue
# this many seconds after it was delivered; kombu's default is an hour. It
# must outlast the longest run plus the longest retry delay (60 s): a task
# still held past it runs twice, harmless (tasks are idempotent) but wasted.
TWITBASE_TASK_VISIBILITY_S = env_int("TWITBASE_TASK_VISIBILITY_S", 300, minimum=1)
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "socket_timeout": 2,
    "socket_connect_timeout": 2,
    "visibility_timeout": TWITBASE_TASK_VISIBILITY_S,
    # How often a worker looks for such tasks (each look is one Redis query).
    "unacked_restore_interval": max(1, min(10, TWITBASE_TASK_VISIBILITY_S // 5)),
    "unacked_restore_throttle": 1,
}
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 1, "interval_start": 0, "interval_step": 0.2}
# Beat writes its schedule file after every task it sends, so the file's age
# tells a healthcheck whether beat is still ticking (docker-compose.yml).
CELERY_BEAT_SYNC_EVERY = 1
# How often Celery beat runs the pending fan-out sweep (tests set it short).
TWITBASE_SWEEP_EVERY_S = env_int("TWITBASE_SWEEP_EVERY_S", 60, minimum=1)
# How often each table is counted and its key spread sampled for the console
# (a scan of every row: the pages read the result); a table is also left for
# 20 times as long as its last count took (console.stats.RECOUNT_AFTER_TIMES).
TWITBASE_TABLE_STATS_EVERY_S = env_int("TWITBASE_TABLE_STATS_EVERY_S", 600, minimum=1)
CELERY_BEAT_SCHEDULE = {
    "sweep-pending-fanouts": {
        "task": "worker.tasks.sweep_pending_fanouts",
        "schedule": float(TWITBASE_SWEEP_EVERY_S),
    },
    # Images uploaded for a twit that never came (feeds/services/media.py).
    "sweep-unattached-media": {
        "task": "worker.tasks.sweep_unattached_media",
        "schedule": 3600.0,
    },
    "refresh-table-stats": {
        "task": "worker.tasks.refresh_table_stats",
        # Often, but each table only when due: see console.refresh_stats.
        "schedule": float(min(60, TWITBASE_TABLE_STATS_EVERY_S)),
        "kwargs": {"due_only": 1},
    },
}

# -- Fan-out ----------------------------------------------------------------------
# Followers per fan-out task; beyond, further tasks take the rest. Each task
# costs a Celery hop (its message through Redis and the worker's parent
# process) and a few round trips besides its write, so larger chunks go
# faster until too few are left to share between workers: at 5,000, a
# 10,000-follower post is one chunk for each of two workers, and a chunk
# the size of a whole post leaves nothing to share (docs/benchmarks.md,
# "Fan-out"; docs/changelog.md says how the size was chosen).
TWITBASE_FANOUT_CHUNK = env_int("TWITBASE_FANOUT_CHUNK", 5_000, minimum=1)
# Stream rows kept per reader (the newest), trimmed one write in this many,
# so a stream holds up to about twice this between trims.
TWITBASE_STREAM_MAX = env_int("TWITBASE_STREAM_MAX", 1000, minimum=1)
# Authors with more followers are not fanned out; readers merge their twits.
TWITBASE_CELEBRITY_THRESHOLD = env_int("TWITBASE_CELEBRITY_THRESHOLD", 10_000, minimum=0)
# Each web process keeps the list of those authors this long (0: reads it on
# every stream request); a newly listed author is still fanned out for twice
# this long, so no reader misses a twit meanwhile (see streams.CELEBRITIES).
TWITBASE_CELEBRITY_CACHE_S = env_int("TWITBASE_CELEBRITY_CACHE_S", 30, minimum=0)
# A fan-out's lease lasts this long after its last renewal (doubled for each
# takeover); the sweep queues again only fan-outs whose lease has expired.
TWITBASE_SWEEP_AFTER_S = env_int("TWITBASE_SWEEP_AFTER_S", 60, minimum=0)

# -- Email (password reset links: feeds/services/passwordreset.py) -------------------
# Django's email backend: SMTP by default with DJANGO_DEBUG=0; in development
# (devstack included) the console backend, which prints each email to the
# web process's log, link and all.
EMAIL_BACKEND = env_str(
    "DJANGO_EMAIL_BACKEND",
    "django.core.mail.backends.smtp.EmailBackend"
    if not DEBUG
    else "django.core.mail.backends.console.EmailBackend",
)
EMAIL_HOST = env_str("DJANGO_EMAIL_HOST", "localhost")
EMAIL_PORT = env_int("DJANGO_EMAIL_PORT", 25, minimum=1, maximum=65535)
EMAIL_HOST_USER = env_str("DJANGO_EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env_str("DJANGO_EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("DJANGO_EMAIL_USE_TLS", False)  # STARTTLS, usually port 587
EMAIL_USE_SSL = env_bool("DJANGO_EMAIL_USE_SSL", False)  # TLS from the start, usually 465
if EMAIL_USE_TLS and EMAIL_USE_SSL:
    raise ImproperlyConfigured(
        "DJANGO_EMAIL_USE_TLS and DJANGO_EMAIL_USE_SSL are both on; set at most one"
    )
EMAIL_TIMEOUT = env_int("DJANGO_EMAIL_TIMEOUT_S", 10, minimum=1)
DEFAULT_FROM_EMAIL = env_str("DJANGO_DEFAULT_FROM_EMAIL", "TwitBase <noreply@localhost>")

# -- Live updates -------------------------------------------------------------------
# How often (milliseconds) an open home page asks whether newer twits have
# arrived; the page backs off from this when hidden or when requests fail.
TWITBASE_LIVE_POLL_MS = env_int("TWITBASE_LIVE_POLL_MS", 20_000, minimum=100)

# -- Logs and metrics (docs/deploy.md, "Observability") -------------------------------
# One JSON object per line in production, plain text lines in development
# (twitbase/logconfig.py).
TWITBASE_LOG_FORMAT = logconfig.log_format(DEBUG)
LOGGING = logconfig.logging_config(TWITBASE_LOG_FORMAT, logconfig.log_level())
# /metrics answers requests from these networks (made directly, not through
# a proxy), and any request with "Authorization: Bearer <this token>".
TWITBASE_METRICS_NETWORKS = env_networks(
    "TWITBASE_METRICS_NETWORKS",
    ["127.0.0.0/8", "::1/128", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"],
)
TWITBASE_METRICS_TOKEN = env_str("TWITBASE_METRICS_TOKEN", "")
# How long a scrape waits for HBase's and Redis's figures before it reports
# that source as down (twitbase_scrape_source_up 0) and answers without them.
TWITBASE_METRICS_TIMEOUT_MS = env_int("TWITBASE_METRICS_TIMEOUT_MS", 2000, minimum=10)
