"""Accounts' email addresses: unique (any case), private, verified or not.

The address is kept in the account's credentials hash (keys.credentials: never in the
public user hash), and whether it is verified on the user hash (keys.EMAIL_STATE_FIELD),
so that every page knows it from the read it makes anyway. keys.EMAILS maps each
lowercased address to its account: HSETNX on it decides who gets an address, as
keys.LOGINS does for logins.

A verified address being changed stays the account's until the new one is verified
(``PENDING_EMAIL_FIELD``); the new one is taken only then (verify), so nobody can hold
an address by asking for it. An unverified address is simply replaced.

Order of writes (no step spans two slots): the address is claimed in keys.EMAILS
first, then written to the account, then the old one released; a retry of any step
finds its work done.
"""

from dataclasses import dataclass

from . import keys, scripts

VERIFIED = "verified"
UNVERIFIED = "unverified"


@dataclass(frozen=True)
class Email:
    address: str  # "" for an account without one
    verified: bool
    pending: str  # an address waiting for verification, or ""


def normalized(address):
    return address.strip().lower()


def owner(r, address):
    """The id of the account whose address this is (any case), or None."""
    uid = r.hget(keys.EMAILS, normalized(address))
    return int(uid) if uid else None


def get(r, uid):
    """The account's Email, in one round trip (its two hashes share a slot)."""
    pipe = r.pipeline(transaction=False)
    pipe.hmget(keys.credentials(uid), [keys.EMAIL_FIELD, keys.PENDING_EMAIL_FIELD])
    pipe.hget(keys.user(uid), keys.EMAIL_STATE_FIELD)
    (address, pending), state = pipe.execute()
    return Email(address or "", state == VERIFIED and bool(address), pending or "")


def get_many(r, uids):
    """{uid: Email} of several accounts in one round trip (the moderators' pages)."""
    uids = list(dict.fromkeys(int(uid) for uid in uids))
    if not uids:
        return {}
    pipe = r.pipeline(transaction=False)
    for uid in uids:
        pipe.hmget(keys.credentials(uid), [keys.EMAIL_FIELD, keys.PENDING_EMAIL_FIELD])
        pipe.hget(keys.user(uid), keys.EMAIL_STATE_FIELD)
    replies = pipe.execute()
    found = {}
    for index, uid in enumerate(uids):
        (address, pending), state = replies[2 * index], replies[2 * index + 1]
        found[uid] = Email(address or "", state == VERIFIED and bool(address), pending or "")
    return found


def _claim(r, uid, address):
    """Take ``address`` for ``uid``; whether it is theirs now."""
    key = normalized(address)
    if r.hsetnx(keys.EMAILS, key, uid):
        return True
    return r.hget(keys.EMAILS, key) == str(int(uid))


def _write(r, uid, address, verified):
    """Make ``address`` the account's (already claimed), forgetting any pending one;
    nothing if the account is gone."""
    if not r.exists(keys.user(uid)):
        return False
    pipe = r.pipeline(transaction=True)  # one slot
    pipe.hset(keys.credentials(uid), keys.EMAIL_FIELD, address)
    pipe.hdel(keys.credentials(uid), keys.PENDING_EMAIL_FIELD)
    pipe.hset(keys.user(uid), keys.EMAIL_STATE_FIELD, VERIFIED if verified else UNVERIFIED)
    pipe.execute()
    return True


def set_address(r, uid, address, verified=False):
    """Make ``address`` the account's at once (sign-up, an account without a verified
    address, an operator). False if another account has it."""
    before = get(r, uid)
    if not _claim(r, uid, address):
        return False
    if not _write(r, uid, address, verified):
        scripts.release_email(r, address=address, uid=uid)
        return False
    if before.address and normalized(before.address) != normalized(address):
        scripts.release_email(r, address=before.address, uid=uid)
    return True


def change(r, uid, address):
    """Ask for ``address`` to become the account's. With a verified address, the new
    one waits for verification (returns "pending"); else it replaces the old at once
    ("set"). "same" for the account's own address (a pending change is dropped),
    "taken" if another account has it."""
    taken_by = owner(r, address)
    if taken_by is not None and taken_by != int(uid):
        return "taken"
    current = get(r, uid)
    if current.address and normalized(current.address) == normalized(address):
        if current.pending:
            r.hdel(keys.credentials(uid), keys.PENDING_EMAIL_FIELD)
        return "same"
    if current.verified:
        r.hset(keys.credentials(uid), keys.PENDING_EMAIL_FIELD, address)
        return "pending"
    if not set_address(r, uid, address):
        return "taken"
    return "set"


def verify(r, uid, address):
    """Verify ``address`` of the account: its unverified address, or the pending one
    (which then becomes its address). Returns "verified", "taken" (another account
    took the pending address meanwhile) or "stale" (it is neither any more: a link
    used twice, or for an address changed since)."""
    current = get(r, uid)
    wanted = normalized(address)
    if current.address and normalized(current.address) == wanted and not current.verified:
        r.hset(keys.user(uid), keys.EMAIL_STATE_FIELD, VERIFIED)
        return "verified"
    if current.pending and normalized(current.pending) == wanted:
        return "verified" if set_address(r, uid, current.pending, verified=True) else "taken"
    return "stale"


def release(r, uid):
    """Free the account's address for others (its deletion); whether it had one."""
    address = r.hget(keys.credentials(uid), keys.EMAIL_FIELD)
    if not address:
        return False
    scripts.release_email(r, address=address, uid=uid)
    return True
