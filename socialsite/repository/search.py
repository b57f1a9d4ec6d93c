"""Search and autocomplete: people by login and display name, tags by prefix.

The index is the Redis documentation's secondary-indexing pattern (and the book's
chapter 6 autocomplete): sorted sets whose members all score 0, which Redis keeps in
byte order, so that every member starting with a prefix is one ZRANGE ... BYLEX.

- **People** (keys.people_index): "<term>\\x00<uid>" for each term of each shown user
  (person_terms: the lowercased login, and every word of the display name folded:
  NFKC, accents removed, case folded). One key per first character of the term: a
  prefix always falls in one key, and the index spreads over a cluster's slots.
- **Tags** (keys.TAG_NAMES, keys.TAG_USES): the normalized tags in use, each after
  its folded form ("réseau" is found by "rese", as people are), and the same tags
  scored by the id of the newest status that used them (ids grow with time: the most
  recent use ranks first). Written in posting's own round trip (queue_tag_use).

Kept in the same step as what changes it: sign-up (users.create_user), a display-name
change (rename), a suspension and its end (moderation.py: set_hidden, set_shown), the
start of an account's deletion (leaving.begin_deletion: set_hidden; and a deletion
step, forget_person). Each of those sends the index's writes in the round trip that
changes the user hash: a pipeline may span slots, a script may not. Every write is a
ZADD or ZREM of a fixed member, safe to repeat.

Reading checks again what the index says: the users found are read (one pipeline) and
dropped if they are gone, suspended or being deleted, or if their login and name no
longer match the query (a rename a crash cut short); people who block the viewer or
whom the viewer blocks are dropped too. ``rebuild`` mends the index from the users.

**Ranking and its bound**: people rank by followers, then login. The counts are in the
users' hashes, which a lex range cannot order by, so a query reads at most
limits.SEARCH_CANDIDATES entries of its range (alphabetical by the matching word, then
user id), reads those users' counts in one pipeline and ranks them. A prefix matching
more than that ("a" on a large site) would rank only the first matches in alphabetical
order, and miss the most followed "a..." person. Hence the **tiers**
(limits.SEARCH_TIERS: 0, 10, 100, 1,000, 10,000 followers): the same entries again, in keys of the
same slot, for the people with at least that many followers. A query reads up to
SEARCH_CANDIDATES of a tier's range, from the highest tier down, and stops once the
tiers read hold the page's people (lua/search_people.lua: everyone below has fewer
followers, so only a few dozen hashes are read where thousands match); every matching
person with at least the followers of the lowest tier whose range fits the cap is among
the candidates, so the ranking is exact down to that count (``Results.exact_from``),
and only the order of the less followed is taken from the first alphabetical matches.
A person moves up a tier in the follow that gives them the count (graph.follow reads
what it needs in its own round trip, followers_changed writes, rarely: only near a
threshold), down in the unfollow that takes it away. The work of a query is bounded
by (tiers x SEARCH_CANDIDATES) hashes read, whatever the prefix. Tags are ranked inside
Redis (lua/search_tags.lua), where only the page crosses the network.
"""

import re
import unicodedata
from dataclasses import dataclass, field

from . import entities, keys, scripts
from .limits import (
    SEARCH_CANDIDATES,
    SEARCH_COMPLETIONS,
    SEARCH_QUERY_MAX_LENGTH,
    SEARCH_TERM_MAX_LENGTH,
    SEARCH_TERMS_PER_PERSON,
    SEARCH_TIER_WINDOW,
    SEARCH_TIERS,
)

# A word of a folded name or query: letters, digits and "_" (str.isalnum's idea of
# them, after folding). Other characters separate words.
_WORD = re.compile(r"\w+")
# Separates a term from the user id in a member: sorts below every character, so that
# "al\x00..." (the term "al") comes before "alice\x00...".
_SEPARATOR = "\x00"
# The fields of a user hash a search reads for each candidate.
_PERSON_FIELDS = ("login", "name", "followers", "private", keys.SUSPENDED_FIELD, keys.LEAVING_FIELD,
                  keys.AVATAR_SMALL_FIELD, "following", "posts", "signup")  # fmt: skip


class QueryError(ValueError):
    """A query that cannot be searched; its text says why, for the page."""


def fold(text):
    """``text`` as the index compares it: NFKC (full-width "Ａ" is "A"), accents and
    other combining marks removed (NFKD, then the marks dropped: "é" is "e"), case
    folded ("Straße" is "strasse"), NFKC again to recompose what is left."""
    decomposed = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text))
    bare = "".join(char for char in decomposed if not unicodedata.combining(char))
    return unicodedata.normalize("NFKC", bare.casefold())


def words(text):
    """The folded words of ``text``, each cut to SEARCH_TERM_MAX_LENGTH characters."""
    return [word[:SEARCH_TERM_MAX_LENGTH] for word in _WORD.findall(fold(text))]


def person_terms(login, name):
    """The index terms of a person: the lowercased login, then the distinct folded
    words of the display name (the first SEARCH_TERMS_PER_PERSON in all)."""
    terms = dict.fromkeys([login.lower(), *words(name or "")])
    return list(terms)[:SEARCH_TERMS_PER_PERSON]


def _member(term, uid):
    return f"{term}{_SEPARATOR}{int(uid)}"


def tiers_of(followers):
    """The tiers of the people index (limits.SEARCH_TIERS) a person with ``followers``
    followers is in."""
    return [tier for tier in SEARCH_TIERS if followers >= tier]


def queue_add_person(pipe, uid, login, name, followers=0, tiers=None):
    """Queue on ``pipe`` adding user ``uid`` to the people index under each term, in
    each tier their ``followers`` reach (or in ``tiers``)."""
    tiers = tiers_of(int(followers or 0)) if tiers is None else tiers
    for term in person_terms(login, name):
        member = {_member(term, uid): 0}
        for tier in tiers:
            pipe.zadd(keys.people_index(term[0], tier), member)


def queue_remove_person(pipe, uid, login, name, keep=(), tiers=None):
    """Queue on ``pipe`` taking user ``uid`` off the people index (every tier, or
    ``tiers``), for each term of ``login`` and ``name`` not in ``keep``."""
    tiers = SEARCH_TIERS if tiers is None else tiers
    for term in person_terms(login, name):
        if term not in keep:
            for tier in tiers:
                pipe.zrem(keys.people_index(term[0], tier), _member(term, uid))


# What followers_changed needs of a user hash, read right after the count changed.
_TIER_FIELDS = ("login", "name", "followers", keys.SUSPENDED_FIELD, keys.LEAVING_FIELD)


def queue_read_for_tiers(pipe, uid):
    """Queue on ``pipe`` the read followers_changed takes (in the round trip that
    changed the user's follower count, after the change: no round trip of its own)."""
    pipe.hmget(keys.user(uid), _TIER_FIELDS)


def followers_changed(r, uid, reply, gained):
    """Move user ``uid`` between the index's tiers after a follow (``gained``) or an
    unfollow changed their follower count; ``reply`` is queue_read_for_tiers's. A
    round trip only when there is something to write, which is rare: a follow that
    leaves the count at a tier's threshold or up to SEARCH_TIER_WINDOW above it (ZADD,
    which changes nothing when they are there already: of follows racing across the
    threshold, each reads a count at least its own and the one that crossed it reads
    one within the window), an unfollow that leaves one follower fewer than a tier
    needs. An unfollow that a racing one hides from this check leaves an entry that
    ranks by the real count anyway; rebuild removes it."""
    person = dict(zip(_TIER_FIELDS, reply, strict=True))
    if not person["login"] or _is_hidden(person):
        return
    followers = int(person["followers"] or 0)
    if gained:
        tiers = [tier for tier in SEARCH_TIERS[1:] if 0 <= followers - tier < SEARCH_TIER_WINDOW]
    else:
        tiers = [tier for tier in SEARCH_TIERS[1:] if followers == tier - 1]
    if not tiers:
        return
    pipe = r.pipeline(transaction=False)
    if gained:
        queue_add_person(pipe, uid, person["login"], person["name"], tiers=tiers)
    else:
        queue_remove_person(pipe, uid, person["login"], person["name"], tiers=tiers)
    pipe.execute()


def queue_tag_use(pipe, sid, tags):
    """Queue on ``pipe`` noting that status ``sid`` used ``tags`` (normalized): each is
    in the tag index, and ``sid`` is its latest use unless a newer one is noted (GT:
    a status posted again by a retry changes nothing)."""
    if tags:
        pipe.zadd(keys.TAG_NAMES, {_tag_member(tag): 0 for tag in tags})
        pipe.zadd(keys.TAG_USES, {tag: int(sid) for tag in tags}, gt=True)


def _tag_member(tag):
    return f"{fold(tag)}{_SEPARATOR}{tag}"


def _is_hidden(user):
    return bool(user.get(keys.SUSPENDED_FIELD) or user.get(keys.LEAVING_FIELD))


def set_hidden(r, user, flag, value):
    """Set ``flag`` (keys.SUSPENDED_FIELD, keys.LEAVING_FIELD) of the user dict ``user``
    to ``value`` (flag_user.lua: only if not set yet, only while the user exists) and
    take the user off the people index, in one round trip. Whether the flag changed."""

    def fill(pipe):
        scripts.flag_user.queue(pipe, uid=user["id"], field=flag, value=value)
        queue_remove_person(pipe, user["id"], user["login"], user["name"])

    return bool(scripts.run_pipeline(r, fill)[0])


def set_shown(r, user, flag):
    """Remove ``flag`` from the user dict ``user``'s hash and, unless another flag
    still hides them, put them back in the people index; one round trip. Whether the
    flag changed."""
    still_hidden = _is_hidden({**user, flag: None})

    def fill(pipe):
        scripts.flag_user.queue(pipe, uid=user["id"], field=flag, value="")
        if not still_hidden:
            queue_add_person(pipe, user["id"], user["login"], user["name"], user["followers"])

    return bool(scripts.run_pipeline(r, fill)[0])


def rename(r, user, name):
    """Give the user dict ``user`` the display name ``name`` (already checked, as
    sign-up checks it) and index them under its words instead of the old name's, in
    one round trip. False if the user is gone."""
    uid, login = user["id"], user["login"]
    new_terms = person_terms(login, name)

    def fill(pipe):
        scripts.set_user_field.queue(pipe, uid=uid, field="name", value=name)
        queue_remove_person(pipe, uid, login, user["name"], keep=new_terms)
        if not _is_hidden(user):
            queue_add_person(pipe, uid, login, name, user["followers"])

    return bool(scripts.run_pipeline(r, fill)[0])


def forget_person(r, uid, budget=None):
    """Take ``uid`` off the people index under the terms of their hash as it is (an
    account being deleted: leaving.DELETION_STEPS). Nothing if the hash is gone."""
    login, name = r.hmget(keys.user(uid), ["login", "name"])
    if login:
        pipe = r.pipeline(transaction=False)
        queue_remove_person(pipe, uid, login, name)
        pipe.execute()
    return 0


# --- queries ------------------------------------------------------------------------


@dataclass(frozen=True)
class Query:
    """A parsed query: ``people`` and ``tags`` say what it searches ("@": people only,
    "#": tags only, else both); ``words``, the folded words people must match (each
    the start of their login or of a word of their name); ``tag``, the normalized
    prefix, folded, that tags must start with ("" if it cannot start any tag)."""

    text: str
    people: bool
    tags: bool
    words: tuple
    tag: str


def parse_query(text):
    """The Query of what a user typed; QueryError (its message for the page) if it is
    empty, longer than SEARCH_QUERY_MAX_LENGTH characters, or holds no letter or digit."""
    text = (text or "").strip()
    if not text:
        raise QueryError("Type at least one letter or digit to search.")
    if len(text) > SEARCH_QUERY_MAX_LENGTH:
        raise QueryError(
            f"A search is at most {SEARCH_QUERY_MAX_LENGTH} characters; this one has {len(text)}."
        )
    people = tags = True
    body = text
    if text[0] == "@":
        tags, body = False, text[1:]
    elif text[0] in "#\uff03":  # "#" or the full-width "＃", as hashtags
        people, body = False, text[1:]
    found = tuple(dict.fromkeys(words(body)))
    tag = entities.normalize_tag(body.strip())
    tag = fold(tag) if entities.is_tag_prefix(tag) else ""  # else no tag starts so
    if not found and not tag:
        raise QueryError("Type at least one letter or digit to search.")
    return Query(text, people, tags, found, tag)


def _lex_range(prefix):
    """The ZRANGE BYLEX bounds of every member starting with ``prefix``."""
    encoded = prefix.encode()
    return b"[" + encoded, b"[" + encoded + b"\xff"


@dataclass
class Results:
    """A page of search results. ``people``: user dicts (id, login, name, followers,
    following, posts, signup, private) ranked; with a viewer, each has ``is_following``
    and ``requested``.
    ``tags``: (tag, id of its latest status) pairs. ``more_people``, ``more_tags``:
    whether a next page has more. ``capped``: a range held more than SEARCH_CANDIDATES
    entries, so not every match was ranked; ``exact_from``: every matching person with
    at least this many followers was (a tier whose range was read whole), None if none
    was (see the module's docstring)."""

    people: list = field(default_factory=list)
    tags: list = field(default_factory=list)
    more_people: bool = False
    more_tags: bool = False
    capped: bool = False
    exact_from: int | None = 0


def _matches(person, wanted):
    """Whether every word of ``wanted`` starts the login or a word of the name."""
    terms = person_terms(person["login"], person.get("name") or "")
    return all(any(term.startswith(word) for term in terms) for word in wanted)


def search(r, query, viewer=None, offset=0, count=20, candidates=SEARCH_CANDIDATES, relations=True):
    """A page of results of the Query ``query`` for viewer ``viewer`` (a user id, or
    None for a visitor): people ranked by followers then login, tags by recent use,
    ``count`` of each from ``offset``. People who block the viewer or whom the viewer
    blocks are left out; so are suspended people and those being deleted.

    A fixed number of round trips: the index's ranges (people and tags together);
    the candidates' hashes (with, for a viewer, their blocks either way; two more, the
    other candidates' ids and hashes, when some of the tiers read first drop out); for a
    viewer whose page shows
    people, unless ``relations`` is False, whether they follow each (and, for private
    accounts, whether they asked to)."""
    want_people = query.people and query.words
    want_tags = query.tags and query.tag
    if not (want_people or want_tags):
        return Results()
    # The longest word narrows the range most; the others filter what it finds.
    key_word = max(query.words, key=len) if want_people else ""

    need = offset + count + 1  # one more: whether there is a next page

    def ranges(pipe):
        if want_people:
            _queue_people(pipe, key_word, candidates, need)
        if want_tags:
            low, high = _lex_range(query.tag)
            scripts.search_tags.queue(
                pipe, low=low, high=high, candidates=candidates, offset=offset, count=count + 1
            )

    replies = scripts.run_pipeline(r, ranges)
    results = Results()
    if want_tags:
        read, *flat = replies[-1]
        pairs = [(flat[i], int(float(flat[i + 1]))) for i in range(0, len(flat), 2)]
        results.tags, results.more_tags = pairs[:count], len(pairs) > count
        results.capped = read >= candidates
    if want_people:
        matches, lowest, uids = _people_read(replies[0])
        # Everyone with at least this many followers who matches is among the candidates.
        results.exact_from = next(
            (tier for tier, n in zip(SEARCH_TIERS, matches, strict=True) if n <= candidates),
            None,
        )
        results.capped = results.capped or results.exact_from != 0
        ranked = _ranked_people(r, uids, query.words, viewer)
        if len(ranked) < need and lowest > 0:
            # Some of the tiers read were left out (blocked, hidden, renamed): the rest.
            read = set(uids)
            _, _, everyone = _people_read(
                scripts.run_pipeline(r, lambda p: _queue_people(p, key_word, candidates, 0))[0]
            )
            ranked += _ranked_people(r, [u for u in everyone if u not in read], query.words, viewer)
            ranked.sort(key=lambda person: (-person["followers"], person["login"].lower()))
        results.people = ranked[offset : offset + count]
        results.more_people = len(ranked) > offset + count
        if viewer is not None and relations and results.people:
            _add_relations(r, viewer, results.people)
    return results


def _queue_people(pipe, word, candidates, need):
    """Queue on ``pipe`` the people index's read for the prefix ``word`` (its tiers, from
    the highest down, until they hold ``need`` people; all of them for ``need`` 0):
    lua/search_people.lua. _people_read decodes its reply."""
    low, high = _lex_range(word)
    scripts.search_people.queue(
        pipe, first_character=word[0], tiers=SEARCH_TIERS, low=low, high=high,
        candidates=candidates, need=need,
    )  # fmt: skip


def _people_read(reply):
    """(matches per tier, index of the lowest tier read, uids) from search_people.lua."""
    count = len(SEARCH_TIERS)
    matches = [int(n) for n in reply[:count]]
    return matches, int(reply[count]) - 1, [int(uid) for uid in reply[count + 1 :]]


def _ranked_people(r, uids, wanted, viewer):
    """The users ``uids`` still shown and matching ``wanted``, without those in a block
    with ``viewer``, ranked by followers then login; one round trip."""
    if not uids:
        return []
    pipe = r.pipeline(transaction=False)
    for uid in uids:
        pipe.hmget(keys.user(uid), _PERSON_FIELDS)
    if viewer is not None:
        pipe.zmscore(keys.blocks(viewer), uids)
        pipe.zmscore(keys.blocked_by(viewer), uids)
    replies = pipe.execute()
    blocked = set()
    if viewer is not None:
        blocking, blocked_by = replies[-2:]
        blocked = {
            uid
            for uid, one, other in zip(uids, blocking, blocked_by, strict=True)
            if one is not None or other is not None
        }
    people = []
    for uid, values in zip(uids, replies, strict=False):
        person = dict(zip(_PERSON_FIELDS, values, strict=True))
        if not person["login"] or _is_hidden(person) or uid in blocked:
            continue
        if not _matches(person, wanted):
            continue  # the index is behind the hash (a rename cut short)
        people.append(
            {
                "id": uid,
                "login": person["login"],
                "name": person["name"] or "",
                "followers": int(person["followers"] or 0),
                "private": person["private"] == "1",
                keys.AVATAR_SMALL_FIELD: person[keys.AVATAR_SMALL_FIELD] or "",
                "following": int(person["following"] or 0),
                "posts": int(person["posts"] or 0),
                "signup": float(person["signup"] or 0),
            }
        )
    people.sort(key=lambda person: (-person["followers"], person["login"].lower()))
    return people


def _add_relations(r, viewer, people):
    """Set ``is_following`` and ``requested`` of each person for ``viewer``; one round
    trip."""
    uids = [person["id"] for person in people]
    pipe = r.pipeline(transaction=False)
    pipe.zmscore(keys.following(viewer), uids)
    asked = [person for person in people if person["private"]]
    for person in asked:
        pipe.zscore(keys.follow_requests(person["id"]), viewer)
    following, *requests = pipe.execute()
    for person, score in zip(people, following, strict=True):
        person["is_following"] = score is not None
        person["requested"] = False
    for person, score in zip(asked, requests, strict=True):
        person["requested"] = score is not None and not person["is_following"]


def complete(r, text, viewer, count=SEARCH_COMPLETIONS, mixed=False):
    """Up to ``count`` completions of the word being typed, ``text``: "@al" gives
    people ({"value": "@alice", "login", "name"}), "#red" tags ({"value": "#redis",
    "tag"}), anything else people; with ``mixed`` (the header's search box) anything
    else gives people and then tags, the tags at least COMPLETED_TAGS_MIXED of the
    ``count`` when there are that many. QueryError if it cannot be searched. Two round
    trips, as search without the viewer's follows."""
    query = parse_query(text)
    if query.people and query.tags and not mixed:
        query = Query(query.text, True, False, query.words, query.tag)
    found = search(r, query, viewer, 0, count, relations=False)
    tags = [{"value": f"#{tag}", "tag": tag} for tag, _ in found.tags] if query.tags else []
    people = [
        {"value": f"@{person['login']}", "login": person["login"], "name": person["name"]}
        for person in found.people
    ]
    shown_tags = min(len(tags), max(COMPLETED_TAGS_MIXED, count - len(people)))
    return (people[: count - shown_tags] + tags[:shown_tags])[:count]


# Of the header's mixed completions (complete), the tags' share when there are people too.
COMPLETED_TAGS_MIXED = 3


def place_in_tiers(r, uids, chunk=1000):
    """Put users ``uids``, in the index already, in the tiers their follower counts
    reach (bulk loading: bulk.add_follows); ``chunk`` hashes per round trip."""
    uids = list(uids)
    for start in range(0, len(uids), chunk):
        part = uids[start : start + chunk]
        pipe = r.pipeline(transaction=False)
        for uid in part:
            queue_read_for_tiers(pipe, uid)
        pipe_add = r.pipeline(transaction=False)
        for uid, reply in zip(part, pipe.execute(), strict=True):
            person = dict(zip(_TIER_FIELDS, reply, strict=True))
            tiers = tiers_of(int(person["followers"] or 0))[1:]
            if person["login"] and tiers and not _is_hidden(person):
                queue_add_person(pipe_add, uid, person["login"], person["name"], tiers=tiers)
        pipe_add.execute()


# --- rebuilding -----------------------------------------------------------------------


@dataclass
class RebuildReport:
    users_seen: int = 0
    people_indexed: int = 0
    hidden_skipped: int = 0
    entries_removed: int = 0
    index_keys: int = 0
    tags_indexed: int = 0
    tags_removed: int = 0


def user_key_batches(r, batch):
    """The keys of every user hash (SCAN, on every node of a cluster), in lists of
    about ``batch``."""
    found = []
    for key in r.scan_iter(match=keys.ALL_USERS_PATTERN, count=batch):
        found.append(key)
        if len(found) >= batch:
            yield found
            found = []
    if found:
        yield found


def rebuild(r, batch=1000):
    """Make the people index hold every shown user under their terms, and nothing
    else, and the tag index every tag with a timeline; a RebuildReport. Safe to run at
    any time and again: it adds each shown user's entries (ZADD of what is there
    changes nothing), then reads every entry and removes those of users gone, hidden,
    or whose name no longer has the term; then the same for tags, from their timelines
    (keys.tag: the newest id is the latest use). ``batch`` hashes per round trip."""
    report = RebuildReport()
    for found in user_key_batches(r, batch):
        pipe = r.pipeline(transaction=False)
        for key in found:
            pipe.hmget(key, "id", *_PERSON_FIELDS)
        people = pipe.execute()
        pipe = r.pipeline(transaction=False)
        for uid, *values in people:
            person = dict(zip(_PERSON_FIELDS, values, strict=True))
            if not uid or not person["login"]:
                continue  # a key of another kind, or a hash a crash left half made
            report.users_seen += 1
            if _is_hidden(person):
                report.hidden_skipped += 1
                continue
            queue_add_person(pipe, uid, person["login"], person["name"], person["followers"])
            report.people_indexed += 1
        pipe.execute()
    for key in r.scan_iter(match=keys.ALL_PEOPLE_INDEX_PATTERN, count=batch):
        report.index_keys += 1
        report.entries_removed += _prune(r, key, batch)
    _rebuild_tags(r, batch, report)
    return report


def _rebuild_tags(r, batch, report):
    """The tag half of rebuild: each tag timeline's newest id noted as its latest use,
    then the tags whose timeline is gone taken off."""
    keys_seen = list(r.scan_iter(match=keys.ALL_TAGS_PATTERN, count=batch))
    for start in range(0, len(keys_seen), batch):
        chunk = keys_seen[start : start + batch]
        pipe = r.pipeline(transaction=False)
        for key in chunk:
            pipe.zrevrange(key, 0, 0)
        newest = pipe.execute()
        pipe = r.pipeline(transaction=False)
        for key, ids in zip(chunk, newest, strict=True):
            if ids:
                queue_tag_use(pipe, ids[0], [keys.tag_named_by(key)])
                report.tags_indexed += 1
        pipe.execute()
    cursor = "-"
    while True:
        members = r.zrangebylex(keys.TAG_NAMES, cursor, "+", 0, batch)
        if not members:
            return
        cursor = "(" + members[-1]
        tags = [member.rpartition(_SEPARATOR)[2] for member in members]
        pipe = r.pipeline(transaction=False)
        for tag in tags:
            pipe.exists(keys.tag(tag))
        gone = [
            (m, t) for m, t, there in zip(members, tags, pipe.execute(), strict=True) if not there
        ]
        if gone:
            r.zrem(keys.TAG_NAMES, *[m for m, _ in gone])
            r.zrem(keys.TAG_USES, *[t for _, t in gone])
            report.tags_removed += len(gone)


def _prune(r, key, batch):
    """Remove the entries of ``key`` whose user is gone, hidden, no longer has the
    term or too few followers for the key's tier; how many."""
    tier = int(key.rpartition("}")[2].lstrip(":") or 0)
    removed = 0
    cursor = "-"
    while True:
        members = r.zrangebylex(key, cursor, "+", 0, batch)
        if not members:
            return removed
        cursor = "(" + members[-1]
        pipe = r.pipeline(transaction=False)
        entries = [member.rpartition(_SEPARATOR) for member in members]
        for _term, _, uid in entries:
            pipe.hmget(keys.user(uid), _PERSON_FIELDS)
        stale = []
        for member, (term, _, _uid), values in zip(members, entries, pipe.execute(), strict=True):
            person = dict(zip(_PERSON_FIELDS, values, strict=True))
            if (
                not person["login"]
                or _is_hidden(person)
                or term not in person_terms(person["login"], person["name"])
                or int(person["followers"] or 0) < tier
            ):
                stale.append(member)
        if stale:
            removed += r.zrem(key, *stale)
