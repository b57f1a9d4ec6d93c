"""Ids as clients give them and as the repository reads them back: the one rule every
door (API parameters, paths, forms, page links) and every reader of a stored id uses.

An id is a whole number from 1 to MAX_ID written in ASCII digits. MAX_ID is 2**53 - 1:
Lua numbers are doubles, so a larger id passed through a script comes back rounded, or
written as a float ("9.2233720368547758e+18") that ``int()`` refuses; JavaScript apps
that read an id as a number lose the same digits. Every id the site makes (INCR
counters, millisecond times) stays far below it."""

MAX_ID = 2**53 - 1


def parse_id(value, lowest=1):
    """``value`` (text or a number from a JSON body) as an id, or None if it is not
    one: ASCII digits only (no sign, no space, no "²"), between ``lowest`` (0 for a
    paging cursor such as ``min_id=0``, "from the start") and MAX_ID."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return None  # a list, a dict, null, a float or true sent where an id goes
    text = str(value)
    if not (text.isascii() and text.isdigit()) or len(text) > len(str(MAX_ID)):
        return None
    number = int(text)
    return number if lowest <= number <= MAX_ID else None


# A paging cursor is read up to this many digits: the longest 64-bit number, as clients
# written for Mastodon's 64-bit ids may send; int() of it costs nothing.
MAX_CURSOR_DIGITS = 20


def parse_cursor(value):
    """A paging cursor (``max_id``, ``min_id``, a page's ``before``...) as an int from 0
    to MAX_ID, or None if it is not one. Digits as parse_id reads them; a larger number
    is MAX_ID: a cursor is never stored, and one past every id means "past every entry"
    (``since_id=99999999999999999999`` reads as nothing newer, as Mastodon answers)."""
    text = str(value) if isinstance(value, (str, int)) and not isinstance(value, bool) else ""
    if not (text.isascii() and text.isdigit()) or len(text) > MAX_CURSOR_DIGITS:
        return None
    return min(int(text), MAX_ID)


def stored_id(value):
    """An id read back from Redis (bytes, text or None) as an int, or None when it is
    absent or not one the code can read (a float written by an older version, a value
    out of range): such a value counts as absent, never as an error on every page."""
    if isinstance(value, bytes):
        value = value.decode("ascii", "replace")
    return None if value is None else parse_id(value, lowest=0)
