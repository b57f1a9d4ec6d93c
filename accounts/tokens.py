"""The tokens of the links the site mails: address verification and password reset.

Both are HMACs under SECRET_KEY over the account's state, so each stops working once
used (the state it names has changed) and when it expires:
- verification (``/accounts/verify/<token>/``): a signed (uid, HMAC of the address), good
  for settings.EMAIL_VERIFICATION_TIMEOUT while the address is still waiting for it;
- password reset (``/accounts/reset/<uidb64>/<token>/``): Django's
  PasswordResetTokenGenerator over the password hash and the address, good for
  settings.PASSWORD_RESET_TIMEOUT and only until the password changes.
"""

from django.conf import settings
from django.contrib.auth.tokens import PasswordResetTokenGenerator
from django.core import signing
from django.utils.crypto import constant_time_compare, salted_hmac
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_decode, urlsafe_base64_encode

from socialsite.repository.ids import parse_id

VERIFY_SALT = "accounts.tokens.verification"


def _address_mac(address):
    return salted_hmac(VERIFY_SALT, address.strip().lower(), algorithm="sha256").hexdigest()[:32]


def verification_token(uid, address):
    return signing.dumps({"u": int(uid), "a": _address_mac(address)}, salt=VERIFY_SALT)


def read_verification_token(token):
    """(uid, address MAC) of a verification token still in time, else None."""
    try:
        data = signing.loads(token, salt=VERIFY_SALT, max_age=settings.EMAIL_VERIFICATION_TIMEOUT)
        return int(data["u"]), str(data["a"])
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        return None


def names_address(mac, address):
    return bool(address) and constant_time_compare(mac, _address_mac(address))


class PasswordResetTokens(PasswordResetTokenGenerator):
    """Django's reset tokens, for a ResetState instead of a model user."""

    key_salt = "accounts.tokens.PasswordResetTokens"

    def _make_hash_value(self, user, timestamp):
        return f"{user.pk}{user.password}{timestamp}{user.email.lower()}"


class ResetState:
    """What a reset token is made from: the account, its password hash and address."""

    def __init__(self, uid, password_hash, email):
        self.pk = int(uid)
        self.password = password_hash or ""
        self.email = email or ""


password_reset_tokens = PasswordResetTokens()


def uidb64(uid):
    return urlsafe_base64_encode(force_bytes(int(uid)))


def uid_from_b64(value):
    """The account id in a reset link, or None if it is not one."""
    try:
        text = urlsafe_base64_decode(value).decode()
    except (ValueError, UnicodeDecodeError):
        return None
    return parse_id(text)
