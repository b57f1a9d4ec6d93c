"""The user objects Django code sees as ``request.user``. No ORM: built from Redis hashes."""

import functools

from django.conf import settings
from django.utils.crypto import salted_hmac

from socialsite.connection import get_redis
from socialsite.repository import direct, notifications, users


class SiteUser:
    """A signed-up user, from the repository's public hash (plus, privately, the hash
    of their password, used only to derive the session auth hash)."""

    is_authenticated = True
    is_anonymous = False

    def __init__(self, data, password_hash=""):
        self.id = int(data["id"])
        self.login = data["login"]
        self.name = data["name"]
        self.followers = int(data.get("followers", 0))
        self.following = int(data.get("following", 0))
        self.posts = int(data.get("posts", 0))
        self.signup = float(data.get("signup", 0))
        # Public fields of the hash (repository/keys.py): suspended, being deleted,
        # moderator. Read with the session at no extra cost.
        self.hidden = users.is_hidden(data)
        self.suspended = users.is_suspended(data)
        self.is_moderator = bool(data.get("moderator"))
        # "verified", "unverified", or None for an account without an address
        # (repository/emails.py); the address itself is never in this hash.
        self.email_state = data.get("email_state")
        # The time zone the pages show times in (keys.TIME_ZONE_FIELD): UTC by default.
        self.time_zone = data.get("time_zone") or "UTC"
        # The theme the reader chose ("light", "dark"), "" for the system's: the page's
        # <html data-theme> (keys.THEME_FIELD).
        self.theme = data.get("theme", "")
        # The Top timeline's tuning and the tab the home opens with (keys.TOP_WEIGHTS_FIELD,
        # keys.HOME_TAB_FIELD; socialsite.actions.settings.set_top).
        self.top_weights = data.get("top_weights", "")
        self.home_tab = data.get("home_tab") or "latest"
        # Whether their public statuses may be found by search (keys.INDEXABLE_FIELD).
        self.indexable = data.get("indexable") == "1"
        self._password_hash = password_hash or ""
        self._notifications = None
        self._direct_unread = None

    @property
    def notifications(self):
        """The user's unread notifications (notifications.Unread: count, version and
        read mark), for the navigation's badge: read with the session when its key
        names the user (session_store), else read now."""
        if self._notifications is None:
            self._notifications = notifications.unread(get_redis(), self.id)
        return self._notifications

    @notifications.setter
    def notifications(self, unread):
        self._notifications = unread

    @property
    def direct_unread(self):
        """The user's conversations with unread messages (direct.Unread: count and
        version), for the navigation's badge: read with the session, else now."""
        if self._direct_unread is None:
            self._direct_unread = direct.unread(get_redis(), self.id)
        return self._direct_unread

    @direct_unread.setter
    def direct_unread(self, unread):
        self._direct_unread = unread

    @property
    def must_verify_email(self):
        """Whether this account may only read until it verifies its address
        (EMAIL_VERIFICATION=required): it cannot post, follow, like or repost."""
        return settings.EMAIL_VERIFICATION == "required" and self.email_state == "unverified"

    @property
    def email_notice(self):
        """What the pages' banner asks of this account: "verify", "add" (no address
        yet), or None."""
        if settings.EMAIL_VERIFICATION == "off":
            return None
        if self.email_state == "unverified":
            return "verify"
        return "add" if self.email_state is None else None

    def get_session_auth_hash(self):
        """An HMAC of the password hash, kept in the session as Django does.

        Changing the password changes it, which ends every other session of the user.
        """
        return _session_auth_hash(self._password_hash, settings.SECRET_KEY)

    def password_changed(self, password_hash):
        self._password_hash = password_hash

    def __str__(self):
        return self.login

    def __eq__(self, other):
        return isinstance(other, SiteUser) and other.id == self.id

    def __hash__(self):
        return hash(self.id)


class AnonymousUser:
    id = None
    login = ""
    name = ""
    is_authenticated = False
    is_anonymous = True
    is_moderator = False
    must_verify_email = False
    email_notice = None

    def __str__(self):
        return "AnonymousUser"


@functools.lru_cache(maxsize=4096)
def _session_auth_hash(password_hash, secret_key):
    # Remembered: every logged-in request checks it, and deriving it takes two SHA-256
    # passes. The key holds all it depends on.
    key_salt = "accounts.users.SiteUser.get_session_auth_hash"
    return salted_hmac(key_salt, password_hash, secret=secret_key, algorithm="sha256").hexdigest()
