"""Device cookies: which browsers have logged in to an account (OWASP's "device
cookies", the defence against locking people out by failing their log-ins on purpose).

The cookie itself is made and checked by the site (accounts/devices.py: signed, naming
the login, the account, a random nonce and the account's device generation). What the
repository keeps is that generation: a random token in the account's credentials hash
(keys.credentials, field keys.DEVICE_GENERATION_FIELD). A cookie is good while the
generation it names is the account's; revoke_all replaces the token, which makes every
cookie issued before worthless at once, with no list of cookies to keep or trim.

A device cookie's own failed log-ins are counted by the throttles
(throttles.device_counter), not here.
"""

import secrets

from . import keys, scripts


def generation(r, uid):
    """The device generation of user ``uid`` ("" until their first revocation), or
    None if there is no such account (deleted): what a device cookie must name to be
    good. One round trip."""
    pipe = r.pipeline(transaction=False)  # one key: one node
    pipe.exists(keys.credentials(uid))
    pipe.hget(keys.credentials(uid), keys.DEVICE_GENERATION_FIELD)
    exists, token = pipe.execute()
    if not exists:
        return None
    return token or ""


def revoke_all(r, uid):
    """Make every device cookie of user ``uid`` worthless: a new random generation in
    their credentials hash, written only while the hash exists (set_user_field.lua: a
    deleted account is not given a hash of one field). A password change calls it, and
    so must a password reset. Repeating it revokes again, which is harmless. Whether the
    account exists."""
    token = secrets.token_hex(8)
    return bool(
        scripts.set_user_field(
            r, uid=uid, field=keys.DEVICE_GENERATION_FIELD, value=token, credentials=True
        )
    )
