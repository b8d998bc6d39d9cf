"""Django settings, driven by environment variables (``docs/operations.md`` lists them all).

``MASTERY_ENV=development`` (the default) runs on embedded defaults: SQLite under ``var/``, email to the
console and to ``var/mail/``. ``MASTERY_ENV=production`` requires ``SECRET_KEY``, ``ALLOWED_HOSTS`` and
``DATABASE_URL`` and turns on every ``check --deploy`` hardening.
"""

from __future__ import annotations

from email.utils import parseaddr
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url
import django_stubs_ext
from celery.schedules import crontab

from .env import env_bool, env_choice, env_int, env_list, env_str

django_stubs_ext.monkeypatch()  # generic Django classes (ModelAdmin[User], ModelForm[User]) at run time

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("MASTERY_VAR_DIR", str(BASE_DIR / "var")))

ENVIRONMENT = env_choice("MASTERY_ENV", "development", ("development", "production", "test"))
PRODUCTION = ENVIRONMENT == "production"

DEBUG = env_bool("DEBUG", not PRODUCTION)
SECRET_KEY = env_str("SECRET_KEY", None if PRODUCTION else "dev-insecure-" + "x" * 50)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", [] if PRODUCTION else ["127.0.0.1", "localhost", "testserver"])
if PRODUCTION and not ALLOWED_HOSTS:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured("ALLOWED_HOSTS is required in production")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

SITE_URL = env_str("SITE_URL", "http://127.0.0.1:8000")
#: Issue 32: whether a game webhook may post to ``http://127.0.0.1[:port]`` (development and tests); in
#: production only https URLs to public addresses are accepted (games.services.webhooks).
WEBHOOKS_ALLOW_LOCALHOST = env_bool("WEBHOOKS_ALLOW_LOCALHOST", not PRODUCTION)
#: The site's name in emails and pages ("Hello from Medieval Mastery!"); written with SITE_URL's host into
#: django.contrib.sites' Site after every migrate (accounts.apps), so allauth's emails use it (issue 16).
SITE_NAME = env_str("SITE_NAME", "Medieval Mastery")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.sites",
    "django.contrib.humanize",
    "allauth",
    "allauth.account",
    "anymail",
    "django_htmx",
    "template_partials",
    "accounts",
    "games",
    "anarchy",
    "tournaments",  # issue 34: events of Medieval Mastery tables
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Above everything that queries the database (session, user): a lost connection is a 503 "try again"
    # (JSON under /api/), and a GET or HEAD runs once more on a fresh connection (issue 28).
    "mastery.unavailable.DatabaseUnavailableMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "accounts.middleware.UserLanguageMiddleware",  # the profile language wins over cookie and browser
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    "accounts.middleware.UserTimezoneMiddleware",
]

ROOT_URLCONF = "mastery.urls"
WSGI_APPLICATION = "mastery.wsgi.application"
ASGI_APPLICATION = "mastery.asgi.application"

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
                "accounts.context_processors.away",
                "games.web.context.your_turn",
            ],
        },
    }
]

DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'db.sqlite3'}"),
        conn_max_age=env_int("DB_CONN_MAX_AGE", 60),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    VAR_DIR.mkdir(parents=True, exist_ok=True)  # embedded default: the database lives under var/
    DATABASES["default"].setdefault("OPTIONS", {})
    DATABASES["default"]["OPTIONS"].update({"timeout": 20, "transaction_mode": "IMMEDIATE"})
    DATABASES["default"]["CONN_MAX_AGE"] = 0
elif env_bool("DB_SERVER_SIDE_BINDING", True):
    # PostgreSQL: psycopg sends parameters separately (no large JSON literals in the SQL text for the
    # server to scan) and prepares a statement after its 5th run on a connection, so the statements every
    # request repeats (the ORM builds the same SQL text each time) skip parsing and planning (psycopg docs
    # "Prepared statements"; Django turns them off unless OPTIONS asks). Set DB_SERVER_SIDE_BINDING=0
    # behind a transaction-mode PgBouncer.
    _prepare = env_int("DB_PREPARE_THRESHOLD", 5)  # a negative value: never prepare
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"server_side_binding": True, "prepare_threshold": _prepare if _prepare >= 0 else None}
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_USER_MODEL = "accounts.User"
# Django's and allauth's backends with a pre-built user lookup (accounts/backends.py). A session names the
# backend that logged it in, so renaming these logs everyone out once.
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
SITE_ID = 1
LOGIN_URL = "account_login"
LOGIN_REDIRECT_URL = "games:my_games"
ACCOUNT_LOGOUT_REDIRECT_URL = "home"

# django-allauth (docs.allauth.org "Advanced usage: custom user models")
ACCOUNT_USER_MODEL_USERNAME_FIELD = None
ACCOUNT_LOGIN_METHODS = {"email"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "password1*", "password2*"]
ACCOUNT_EMAIL_VERIFICATION = env_choice(
    "ACCOUNT_EMAIL_VERIFICATION", "mandatory", ("mandatory", "optional", "none")
)
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION = True  # confirming the address just signed up with logs in (issue 16)
ACCOUNT_EMAIL_SUBJECT_PREFIX = "[Medieval Mastery] "
ACCOUNT_DEFAULT_HTTP_PROTOCOL = "https" if PRODUCTION else "http"
ACCOUNT_FORMS = {"signup": "accounts.forms.SignupForm"}
# allauth's emails are rendered in the request and sent after it through the outbox, so a sign-up takes as
# long whether or not its address has an account (issue 28; docs.allauth.org "Adapter", send_mail)
ACCOUNT_ADAPTER = "accounts.adapter.AccountAdapter"

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("sv", "Svenska"), ("pl", "Polski"), ("ko", "한국어")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
# Outside production WhiteNoise serves straight from the app and project static folders (no collectstatic).
WHITENOISE_USE_FINDERS = not PRODUCTION
WHITENOISE_AUTOREFRESH = DEBUG
if not PRODUCTION:
    STATIC_ROOT.mkdir(parents=True, exist_ok=True)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if PRODUCTION
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

EMAIL_BACKEND = env_str("EMAIL_BACKEND", "mastery.mail.ConsoleAndFileBackend")
EMAIL_FILE_PATH = VAR_DIR / "mail"
EMAIL_HOST = env_str("EMAIL_HOST", "localhost")
EMAIL_PORT = env_int("EMAIL_PORT", 25)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
#: Seconds an SMTP connection waits for the server before giving up (Django's EMAIL_TIMEOUT; none by
#: default, so a hung server would hold a worker for ever).
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 30)
#: Seconds an outbox row may stay "being sent" before another flush sends its stored copy again, with the
#: same Message-ID: its sender was killed between the SMTP call and the mark (games.notify.send; issue 28).
#: Longer than any SMTP exchange under EMAIL_TIMEOUT.
OUTBOX_SENDING_LEASE = env_int("OUTBOX_SENDING_LEASE", 300)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Medieval Mastery <noreply@localhost>")

SESSION_COOKIE_SECURE = PRODUCTION
CSRF_COOKIE_SECURE = PRODUCTION
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", PRODUCTION)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31_536_000 if PRODUCTION else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = PRODUCTION
SECURE_HSTS_PRELOAD = PRODUCTION
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if PRODUCTION else None
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "WARNING")},
}

# Per-process memory cache for rendered game panels ({% cache %} keyed by game, seq and viewer).
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "OPTIONS": {"MAX_ENTRIES": env_int("CACHE_MAX_ENTRIES", 20_000)},
    }
}

# Celery (docs.celeryq.dev "Configuration"): Redis in production; without REDIS_URL tasks run eagerly
# in-process (the embedded default), and the development server sweeps deadlines in a thread.
REDIS_URL = env_str("REDIS_URL", "")

# Sessions are read through a cache and written through to the database (Django docs "Using cached
# sessions"), which saves a query on every page and poll. The cache must be shared by every web process,
# or a session logged out in one process would live on in another's memory: Redis when there is one;
# without Redis, production reads sessions from the database, and the development server and tests (one
# process) use the per-process memory cache.
if REDIS_URL:
    CACHES["sessions"] = {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": env_str("SESSION_REDIS_URL", REDIS_URL),
        "KEY_PREFIX": "mastery-session",
    }
    SESSION_CACHE_ALIAS = "sessions"
SESSION_ENGINE = (
    "django.contrib.sessions.backends.db"
    if PRODUCTION and not REDIS_URL
    else "django.contrib.sessions.backends.cached_db"
)
CELERY_BROKER_URL = REDIS_URL or "memory://localhost/"
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", not REDIS_URL)
CELERY_TASK_EAGER_PROPAGATES = True
# The queue tasks are sent to and a worker consumes by default. Only the integration tests and the email
# benchmark change it (one queue per run), so that concurrent runs sharing a Redis never take each other's
# tasks, including those a worker enqueues itself (notifications after a timeout).
CELERY_TASK_DEFAULT_QUEUE = env_str("CELERY_TASK_DEFAULT_QUEUE", "celery")
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_IGNORE_RESULT = True
CELERY_TIMEZONE = "UTC"
#: Seconds between Celery beat's sweeps. Beat drops a tick it cannot publish (Redis away), so the worker
#: also runs both sweeps once whenever it (re)connects to the broker (mastery.worker.CatchUp): an overdue
#: deadline is applied within one interval while all is well, and within seconds of the broker's return
#: after an outage of any length (issue 28, docs/operations.md "Faults").
DEADLINE_SWEEP_INTERVAL = env_int("DEADLINE_SWEEP_INTERVAL", 30)
OUTBOX_SWEEP_INTERVAL = env_int("OUTBOX_SWEEP_INTERVAL", 60)
#: Seconds between beat's tournaments sweeps (issue 34: sign-up, starts, next rounds, finishes).
TOURNAMENTS_SWEEP_INTERVAL = env_int("TOURNAMENTS_SWEEP_INTERVAL", 60)
CELERY_BEAT_SCHEDULE = {
    "deadline-sweep": {"task": "games.tasks.deadline_sweep", "schedule": float(DEADLINE_SWEEP_INTERVAL)},
    "outbox-sweep": {"task": "games.tasks.outbox_sweep", "schedule": float(OUTBOX_SWEEP_INTERVAL)},
    # issue 32: the game webhooks' retries (a first post is published after its write commits)
    "webhooks-sweep": {"task": "games.tasks.webhooks_send", "schedule": float(OUTBOX_SWEEP_INTERVAL)},
    # issue 33: Castle Defence's pending replies, unsolved puzzles and waiting planner solves
    "anarchy-sweep": {"task": "anarchy.tasks.anarchy_sweep", "schedule": float(OUTBOX_SWEEP_INTERVAL)},
    # issue 34: events open sign-up, start, get their next round and finish by the clock (idempotent)
    "tournaments-sweep": {
        "task": "tournaments.tasks.events_sweep",
        "schedule": float(TOURNAMENTS_SWEEP_INTERVAL),
    },
    # issue 33: the daily Castle Defence puzzle email at 06:00 (CELERY_TIMEZONE), once per player and day;
    # a timed entry, so the worker's catch-up (mastery.worker.CatchUp) does not run it on a reconnection
    "anarchy-puzzle-mail": {"task": "anarchy.tasks.puzzle_mails_send", "schedule": crontab(hour=6, minute=0)},
}
# Redis redelivers a task a killed worker had taken after this many seconds (acks_late); the outbox sweep
# sends its rows within a minute anyway.
# A request publishes its notification task after commit (games.services.outbox.enqueue_send): a Redis that
# hangs costs it at most these seconds, then the outbox sweep sends the rows (kombu's Redis transport
# options ``socket_connect_timeout`` and ``socket_timeout``).
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 3600),
    "socket_connect_timeout": 1.0,
    "socket_timeout": 2.0,
    "max_retries": 0,  # a publish tries to connect once (kombu retries for ever by default)
}
CELERY_TASK_REJECT_ON_WORKER_LOST = True
# A worker retries the broker for ever, every 2 s at most (mastery.worker.Consumer); Celery's default gives
# up after 100 tries and the worker exits.
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_WORKER_CONSUMER = "mastery.worker:Consumer"
# kombu's Redis transport, surviving a closed connection with messages unacknowledged (mastery.broker).
CELERY_BROKER_TRANSPORT = "mastery.broker:Transport" if REDIS_URL else None
# A publish that fails (Redis down) gives up at once instead of retrying inside a request: the outbox
# sweep sends the rows once Redis is back.
CELERY_TASK_PUBLISH_RETRY = False
#: Seconds between the embedded sweeper thread's runs (development server only).
DEADLINE_SWEEP_SECONDS = env_int("DEADLINE_SWEEP_SECONDS", 30)
#: After this many missed turn deadlines in a row a seat is absent: a bot plays it until "I'm back".
ABSENT_AFTER_MISSES = env_int("ABSENT_AFTER_MISSES", 3)

#: Reminders go out when this share of a deadline's time has passed.
REMINDER_FRACTION = 0.75
#: Local hour (in each user's time zone) after which the daily digest is sent.
DIGEST_HOUR = env_int("DIGEST_HOUR", 8)
#: Seconds a signed email link stays valid (it also dies with the decision it names, and after one use).
EMAIL_LINK_MAX_AGE = env_int("EMAIL_LINK_MAX_AGE", 7 * 86_400)

#: Replies to decision emails (issue 18). Each decision email has its own Reply-To address,
#: ``<REPLY_LOCAL_PART>+<token>@<REPLY_DOMAIN>``; the domain defaults to SITE_URL's host.
REPLY_LOCAL_PART = env_str("REPLY_LOCAL_PART", "play")
REPLY_DOMAIN = env_str("REPLY_DOMAIN", urlsplit(SITE_URL).hostname or "localhost")
#: Seconds a reply address stays valid after its email was queued (then the answer is the current decision).
REPLY_MAX_AGE = env_int("REPLY_MAX_AGE", 30 * 86_400)
#: Answers to emailed replies one address may get in 24 hours (issue 30: a mail loop with an auto-responder
#: stops here at the latest); the answers beyond are not sent. A player answering every decision of several
#: daily games by email gets a few dozen a day.
REPLY_ANSWERS_PER_DAY = env_int("REPLY_ANSWERS_PER_DAY", 100)
#: Inbound mail larger than this many bytes is refused (1 MB).
INBOUND_MAX_BYTES = env_int("INBOUND_MAX_BYTES", 1_048_576)
#: The ``authserv-id`` of the MTA whose ``Authentication-Results`` header (RFC 8601) the receiver trusts:
#: a reply it marks ``dmarc=fail`` is refused as forged. Empty: the header is not read.
INBOUND_AUTHSERV_ID = env_str("INBOUND_AUTHSERV_ID", "")
#: Port of the local SMTP receiver the development server runs in a thread (0: none; embedded default).
MAIL_RECEIVER_PORT = env_int("MAIL_RECEIVER_PORT", 2525)
#: django-anymail (anymail.dev): the shared secret of inbound webhooks (``user:password`` in the webhook
#: URL's basic auth), checked by anymail before its ``inbound`` signal fires. Without one (production
#: default) the webhook URLs are not served at all.
ANYMAIL_WEBHOOK_SECRET = env_str("ANYMAIL_WEBHOOK_SECRET", "" if PRODUCTION else "dev:insecure-secret")
ANYMAIL = {"WEBHOOK_SECRET": ANYMAIL_WEBHOOK_SECRET}

#: Web Push (issue 32; RFC 8292 VAPID, docs/operations.md "Web Push"): the site's P-256 key pair, base64url
#: (the public key uncompressed, 65 bytes: PushManager.subscribe's applicationServerKey; the private key
#: the raw 32-byte scalar), and the contact named in every push's JWT ("mailto:…" or an https URL). From
#: the environment; outside production and tests, a key left unset is read from ``VAPID_KEYS_FILE``, which
#: ``manage.py vapid_keys --write`` makes (``make run`` does). Without keys no push is sent and the
#: profile says so.
VAPID_KEYS_FILE = VAR_DIR / "vapid.json"
_vapid_stored: dict[str, str] = {}
if ENVIRONMENT == "development" and VAPID_KEYS_FILE.is_file():
    import json as _json

    _vapid_stored = {str(k): str(v) for k, v in _json.loads(VAPID_KEYS_FILE.read_text()).items()}
VAPID_PUBLIC_KEY = env_str("VAPID_PUBLIC_KEY", _vapid_stored.get("VAPID_PUBLIC_KEY", ""))
VAPID_PRIVATE_KEY = env_str("VAPID_PRIVATE_KEY", _vapid_stored.get("VAPID_PRIVATE_KEY", ""))
_vapid_contact = "mailto:" + (parseaddr(DEFAULT_FROM_EMAIL)[1] or "noreply@localhost")
VAPID_SUBJECT = env_str("VAPID_SUBJECT", _vapid_stored.get("VAPID_SUBJECT", _vapid_contact))
#: Seconds a push service keeps an undelivered push (the ``TTL`` header, RFC 8030 §5.2); a decision's push
#: lives no longer than its deadline.
PUSH_TTL = env_int("PUSH_TTL", 86_400)

#: Chat rate limits per user (issue 19): messages a minute and a day.
CHAT_PER_MINUTE = env_int("CHAT_PER_MINUTE", 10)
CHAT_PER_DAY = env_int("CHAT_PER_DAY", 200)

#: A rating is "provisional" until the player has this many rated games in its pool.
PROVISIONAL_GAMES = 10

#: Seconds between the game page's cheap polls (204 when nothing changed).
GAME_POLL_SECONDS = env_int("GAME_POLL_SECONDS", 5)
#: Seconds between the polls of a finished game's page: only the table talk can still change (issue 19).
GAME_POLL_FINISHED_SECONDS = env_int("GAME_POLL_FINISHED_SECONDS", 30)
#: A snapshot of the state is stored every this many actions (fast history loads).
SNAPSHOT_EVERY = env_int("SNAPSHOT_EVERY", 50)
