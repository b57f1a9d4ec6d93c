"""Mentions, hashtags and links in a message: Twitter's ``entities``, parsed once.

A status's message is parsed when it is posted (statuses.post_status) into Twitter's
``entities`` object::

    {"hashtags": [{"text": "Redis", "indices": [6, 12]}],
     "user_mentions": [{"screen_name": "bob", "id": 2, "indices": [0, 4]}],
     "urls": [{"url": "https://redis.io/docs", "expanded_url": "https://redis.io/docs",
               "display_url": "redis.io/docs", "indices": [13, 34]}]}

Indices are [start, end) in code points of the message (Python's str indices), as
Twitter's, and include the "@", the "#" and the scheme. The status hash keeps them
packed (pack: positions and mention ids only; the texts are slices of the message), and
pages, the live page and the streaming API unpack them from there: nothing parses a
message again to show it.

The rules (docs/decisions/0020):
- A link starts with ``http://`` or ``https://`` (any case) not right after a letter or
  digit, runs to the first space, control character, ``<``, ``>`` or ``"``, and loses
  trailing punctuation (``.,:;!?'``) and closing brackets that close nothing. Its host
  is letters, digits, marks, ``.``, ``-`` and ``_`` (and a port), starting with a letter
  or digit; anything else (``http://``, ``http://a@b``, ``http://[::1]``) is no link.
  Every link counts as URL_WEIGHT characters toward the length limit (weighted_length).
  static/js/site.js finds links by the same rules, for the form's counter.
- A mention is ``@login``, the "@" not right after a letter, digit, mark, ``_``, ``/``
  or ``=``, the login being the run of login characters (accounts.forms.LOGIN_PATTERN)
  that follows: 1 to 30 of them, not followed by another "@" (``@bob@example.org`` is
  someone elsewhere). Only logins of existing users become entities.
- A hashtag is ``#`` or the full-width ``＃``, not right after a letter, digit, mark,
  ``_``, ``&``, ``/`` or another hash sign, then the run of letters, marks, digits and
  ``_`` that follows: 1 to MAX_TAG_LENGTH of them with at least one letter (a longer run
  is no hashtag: cutting it would make a tag nobody wrote). Tags are compared after NFKC
  and lower-casing (normalize_tag); the normalized form names the tag's timeline and
  must itself be such a run.
- Nothing inside a link is a mention or a hashtag (``https://example.org/#top``).

Plain Python: no Redis, no Django.
"""

import json
import re
import unicodedata

# Every link counts as this many characters toward the length limit, however long it
# is, as on Twitter and Mastodon: a long link costs no more than a short one.
URL_WEIGHT = 23
# A link is shown without its scheme, cut after this many characters with an ellipsis.
DISPLAY_URL_LENGTH = 30
# The longest hashtag, in characters, as written and as normalized.
MAX_TAG_LENGTH = 64
# The login alphabet and length of accounts.forms.LOGIN_PATTERN.
LOGIN_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
MAX_LOGIN_LENGTH = 30

_SCHEME = re.compile(r"[Hh][Tt][Tt][Pp][Ss]?://")
# What ends a link: C0 and C1 controls, DEL, the byte-order mark (which JavaScript's \s
# counts as space), and <, >, ". Spaces are tested with str.isspace().
_URL_STOPS = frozenset([chr(c) for c in range(0x20)] + [chr(c) for c in range(0x7F, 0xA0)])
_URL_STOPS |= frozenset('\ufeff<>"')
_TRAILING = frozenset(".,:;!?'")
_CLOSERS = {")": "(", "]": "["}
_PORT = re.compile(r":[0-9]{1,5}")
_MENTION_AFTER = frozenset("/=")
_HASH_SIGNS = frozenset("#＃")
_HASHTAG_AFTER = frozenset("&/#＃")


def _category(char):
    return unicodedata.category(char)[0]


def _is_word(char):
    """A letter, mark or digit, or "_": what a mention or hashtag may not follow."""
    return char == "_" or _category(char) in "LMN"


def _is_tag_char(char):
    return char == "_" or _category(char) in "LM" or unicodedata.category(char) == "Nd"


def _has_letter(text):
    return any(_category(char) == "L" for char in text)


# --- finding them --------------------------------------------------------------------


class Found:
    """Where the entities of a message are, before mentions are resolved: lists of
    (start, end) spans, each sorted."""

    __slots__ = ("urls", "mentions", "hashtags")

    def __init__(self, urls, mentions, hashtags):
        self.urls, self.mentions, self.hashtags = urls, mentions, hashtags

    def mentioned_logins(self, message):
        """The logins mentioned, lowercased, each once, in order (to resolve)."""
        return list(dict.fromkeys(message[start + 1 : end].lower() for start, end in self.mentions))


def find(message):
    """Where the links, mentions and hashtags of ``message`` are (a Found)."""
    urls = link_spans(message)
    taken = iter(urls)
    mentions, hashtags = [], []
    length = len(message)
    next_url = next(taken, None)
    for index, char in enumerate(message):
        if char != "@" and char not in _HASH_SIGNS:
            continue
        while next_url is not None and next_url[1] <= index:
            next_url = next(taken, None)
        if next_url is not None and next_url[0] <= index:
            continue  # inside a link
        before = message[index - 1] if index else " "
        if char == "@":
            if _is_word(before) or before in _MENTION_AFTER:
                continue
            end = index + 1
            while end < length and message[end] in LOGIN_CHARACTERS:
                end += 1
            if 1 <= end - index - 1 <= MAX_LOGIN_LENGTH and not message.startswith("@", end):
                mentions.append((index, end))
        else:
            if _is_word(before) or before in _HASHTAG_AFTER:
                continue
            end = index + 1
            while end < length and _is_tag_char(message[end]):
                end += 1
            if _is_hashtag(message[index + 1 : end]):
                hashtags.append((index, end))
    return Found(urls, mentions, hashtags)


def _is_hashtag(written):
    if not 1 <= len(written) <= MAX_TAG_LENGTH or not _has_letter(written):
        return False
    return is_tag(normalize_tag(written))


def link_spans(message):
    """The (start, end) spans of the links in ``message``, in order."""
    spans = []
    length = len(message)
    for match in _SCHEME.finditer(message):
        start = match.start()
        if spans and start < spans[-1][1]:
            continue  # "http://" again inside the link before
        if start and _category(message[start - 1]) in "LN":
            continue  # "xhttp://": part of a word
        end = match.end()
        while end < length and not (message[end] in _URL_STOPS or message[end].isspace()):
            end += 1
        end = _trim_trailing(message, match.end(), end)
        if _is_host(message[match.end() : end]):
            spans.append((start, end))
    return spans


def _trim_trailing(message, body_start, end):
    """``end`` moved back past punctuation that ends a sentence rather than the link."""
    while end > body_start:
        last = message[end - 1]
        if last in _TRAILING:
            end -= 1
        elif last in _CLOSERS:
            body = message[body_start:end]
            if body.count(_CLOSERS[last]) >= body.count(last):
                break
            end -= 1
        else:
            break
    return end


def _is_host(rest):
    """Whether the part of a link after its scheme starts with a host we link."""
    authority = rest
    for separator in "/?#":
        authority = authority.partition(separator)[0]
    host, colon, port = authority.rpartition(":")
    if colon and _PORT.fullmatch(colon + port):
        authority = host
    if not authority or _category(authority[0]) not in "LN":
        return False
    return all(char in "._-" or _category(char) in "LMN" for char in authority)


# --- what they are --------------------------------------------------------------------


def normalize_tag(text):
    """A hashtag's text (without the hash sign) as compared and as named in its
    timeline's key and URL: NFKC, then lower case. "Ｒｅｄｉｓ" and "REDIS" are "redis"."""
    return unicodedata.normalize("NFKC", text).lower()


def is_tag(normalized):
    """Whether ``normalized`` (normalize_tag's result) names a tag: 1 to MAX_TAG_LENGTH
    letters, marks, digits and "_", with at least one letter."""
    return (
        1 <= len(normalized) <= MAX_TAG_LENGTH
        and all(map(_is_tag_char, normalized))
        and _has_letter(normalized)
        and normalize_tag(normalized) == normalized
    )


def is_tag_prefix(normalized):
    """Whether ``normalized`` (normalize_tag's result) could begin a tag: 1 to
    MAX_TAG_LENGTH characters a tag may hold (search's tag prefixes)."""
    return 1 <= len(normalized) <= MAX_TAG_LENGTH and all(map(_is_tag_char, normalized))


def display_url(url):
    """How a link is shown: without its scheme, cut after DISPLAY_URL_LENGTH characters
    with an ellipsis."""
    rest = url[_SCHEME.match(url).end() :]
    if len(rest) > DISPLAY_URL_LENGTH:
        return rest[:DISPLAY_URL_LENGTH] + "…"
    return rest


def weighted_length(message):
    """The length of ``message`` as the status limit counts it: characters (code
    points), every link counting URL_WEIGHT whatever its own length."""
    spans = link_spans(message)
    return len(message) + sum(URL_WEIGHT - (end - start) for start, end in spans)


def parse(message, user_ids):
    """The entities of ``message`` in Twitter's format. ``user_ids``: {lowercased login:
    user id} of the mentioned logins that exist (users.get_user_ids); mentions of other
    logins stay plain text."""
    return build(message, find(message), user_ids)


def build(message, found, user_ids):
    """parse's result from find's: for a caller that resolved the mentioned logins
    (Found.mentioned_logins) in between."""
    mentions = []
    for start, end in found.mentions:
        uid = user_ids.get(message[start + 1 : end].lower())
        if uid is not None:
            mentions.append((start, end, int(uid)))
    return _expanded(message, found.hashtags, mentions, found.urls)


def empty():
    """The entities of a message with none."""
    return {"hashtags": [], "user_mentions": [], "urls": []}


def _expanded(message, hashtags, mentions, urls):
    return {
        "hashtags": [
            {"text": message[start + 1 : end], "indices": [start, end]} for start, end in hashtags
        ],
        "user_mentions": [
            {"screen_name": message[start + 1 : end], "id": uid, "indices": [start, end]}
            for start, end, uid in mentions
        ],
        "urls": [
            {
                "url": message[start:end],
                "expanded_url": message[start:end],
                "display_url": display_url(message[start:end]),
                "indices": [start, end],
            }
            for start, end in urls
        ],
    }


def tags(entities):
    """The normalized tags of ``entities``, each once, in order."""
    return list(dict.fromkeys(normalize_tag(tag["text"]) for tag in entities["hashtags"]))


# --- stored with the status -------------------------------------------------------------
# The status hash keeps only what the message does not say: positions, and the ids of
# the mentioned users. {"h": [[start, end], ...], "m": [[start, end, id], ...],
# "u": [[start, end], ...]}, empty lists left out, no spaces: a status with a hashtag
# and a link stores some 30 bytes where Twitter's format takes 150 and more, and a
# message with long links stays under hash-max-listpack-value (docs/decisions/0017).


def pack(entities):
    """``entities`` as the status hash keeps them; "" when there are none (the field is
    then left out)."""
    packed = {}
    if entities["hashtags"]:
        packed["h"] = [tag["indices"] for tag in entities["hashtags"]]
    if entities["user_mentions"]:
        packed["m"] = [[*m["indices"], m["id"]] for m in entities["user_mentions"]]
    if entities["urls"]:
        packed["u"] = [url["indices"] for url in entities["urls"]]
    return json.dumps(packed, separators=(",", ":")) if packed else ""


def unpack(message, packed):
    """The entities (Twitter's format) of a status with ``message`` whose hash holds
    ``packed`` (pack's result; None or "" for none, as for a status posted before
    statuses had entities). Spans that do not fit the message are left out, so a
    damaged field shows as plain text rather than failing a page."""
    if not packed:
        return empty()
    try:
        data = json.loads(packed)
        hashtags = _spans(message, data.get("h", ()), "#＃")
        mentions = [
            (*span, int(entry[2]))
            for entry in data.get("m", ())
            for span in _spans(message, [entry[:2]], "@")
        ]
        urls = [
            span
            for span in _spans(message, data.get("u", ()), "hH")
            if _SCHEME.match(message, span[0])
        ]
    except (ValueError, TypeError, AttributeError, IndexError):
        return empty()
    return _expanded(message, hashtags, mentions, urls)


def _spans(message, pairs, first_chars):
    spans = []
    for start, end in pairs:
        start, end = int(start), int(end)
        if 0 <= start < end <= len(message) and message[start] in first_chars:
            spans.append((start, end))
    return spans


def in_order(entities):
    """Every entity of ``entities`` as (start, end, kind, entity), kind being "hashtag",
    "mention" or "url", by position, without any that overlaps one before it: what a
    page walks to make the message's markup."""
    every = [
        *((*e["indices"], "hashtag", e) for e in entities["hashtags"]),
        *((*e["indices"], "mention", e) for e in entities["user_mentions"]),
        *((*e["indices"], "url", e) for e in entities["urls"]),
    ]
    every.sort(key=lambda item: (item[0], item[1]))
    kept = []
    reached = 0
    for item in every:
        if item[0] >= reached:
            kept.append(item)
            reached = item[1]
    return kept
