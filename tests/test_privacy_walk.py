"""Every page of the site, walked as six people, after a private account and a
suspended account have posted: no page shows what its reader may not see, and none
answers 5xx. The same for the streaming API's endpoints.

The URLs come from the URLconf (every pattern, included ones too), their parameters
filled with the scenario's real logins, status ids, tags and list ids: a new page is
walked without anyone adding it here. A pattern whose parameter this file cannot fill
fails the test, so that whoever adds one says how to fill it (``scenario``'s values).

The scenario: ``privy`` (a private account) and ``gone`` (suspended afterwards) each
post a status carrying a marker of their own with a hashtag only they use and a
mention, reply to a public status, and are liked and listed by ``follower``; ``pub``
(public) posts one with a marker too, for contrast, and blocks ``blocked``, whom
``privy`` blocks as well. ``requester`` asked ``privy`` to follow and was not
answered. ``moderator`` walks the moderation pages too. ``pub`` sends ``follower`` a
direct message with a marker of its own (and a hashtag and a mention), which only
``follower`` of the readers may see, on the conversation's page and the inbox alone.
Who may see which marker is MAY_SEE.

Groups: ``pub`` runs a private group, ``zqgroup``, and posts a status with
a marker, a tag and a mention of ``outsider`` in it and a reply under it; ``follower``
is a member, ``requester`` asked to join, ``blocked`` was a member and is banned. Only
``follower`` may see the group's marker: the visitor, a non-member (``outsider``), the
requester, the banned member and a moderator may not. A public group, ``zqopen``, holds
a public status with the public marker.
"""

import asyncio
import itertools
import json
import re
import time
from urllib.parse import quote, urlencode

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from api.entities import GROUP_WINDOW_MS
from socialsite.connection import get_redis
from socialsite.repository import (
    blocks,
    direct,
    graph,
    likes,
    lists,
    moderation,
    oauth,
    privacy,
    reposts,
    status_search,
    statuses,
    timelines,
    users,
)
from socialsite_dev.streams import StreamConnection
from streaming import replay
from streaming.filters import StatusEvent
from tests.support.helpers import answer_of, log_in, make_user, post

PRIVATE_MARK = "zqprivmark"
SUSPENDED_MARK = "zqsuspmark"
PUBLIC_MARK = "zqpubmark"
DIRECT_MARK = "zqdirectmark"
GROUP_MARK = "zqgroupmark"
GROUP_TAG = "zqgrouptag"
# A tag only a private account uses: search and autocomplete list it to nobody (a tag
# is listed once a public status used it: tags.queue_add). The suspended account's
# tag was used while public: it stays listed; its page shows none of its statuses.
PRIVATE_TAG = "zqprivtag"
SUSPENDED_TAG = "zqsusptag"

READERS = ("visitor", "outsider", "requester", "blocked", "follower", "moderator")
MAY_SEE = {
    PRIVATE_MARK: {"follower"},
    SUSPENDED_MARK: {"moderator"},  # moderators see what they judge
    PUBLIC_MARK: {"visitor", "outsider", "requester", "follower", "moderator"},
    DIRECT_MARK: {"follower"},
    GROUP_MARK: {"follower"},  # the private group's one member among the readers
}
# The only pages that may show a direct message, to its members: the pages', and the
# client API's list of conversations and its direct "statuses" (the message read by
# its id, "dm-<conversation>-<message>": DIRECT_STATUS_URL).
DIRECT_URLS = {"inbox", "requests", "conversation", "conversations"}
DIRECT_STATUS_URL = re.compile(r"/api/v1/statuses/dm-[0-9]+-[0-9]+")
# Pages that list tag names (search, autocomplete): they must not name PRIVATE_TAG.
TAG_LISTING_URLS = ("search", "search_complete")
# Tags only used where no listing may name them.
UNLISTED_TAGS = (PRIVATE_TAG, GROUP_TAG)

# Query strings walked besides the bare URL of a pattern, by URL name.
EXTRA_QUERIES = {
    # The client API's search (api/search.py) is walked with the page's queries too.
    "search": [
        "q=%23zq",
        "q=zq",
        "q=%40privy",
        "q=%40gone",
        "q=zq&type=hashtags",
        # Full-text search of statuses: each marker's word, upper case (search folds
        # case; the page repeats the query as typed), for statuses only (no "no one
        # starting with" line repeating the folded words).
        *(f"q={mark.upper()}&type=statuses" for mark in MAY_SEE),
        "q=from:privy",
        "q=from:gone ZQSUSPMARK",
        "q=has:media ZQPRIVMARK",
    ],
    "search_complete": ["q=%23zq", "q=%40zq", "q=%40gone"],
    "notifications": ["type=mention", "type=reply"],
    "conversation": ["after=0", "before=2"],
}


def patterns(resolver=None, prefix=""):
    """(route with <converter:name> placeholders, URL name, default kwargs) of every
    pattern of the URLconf, included ones too."""
    resolver = resolver or get_resolver()
    for entry in resolver.url_patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            yield from patterns(entry, route)
        elif isinstance(entry, URLPattern):
            yield route, entry.name, entry.default_args


def fill(route, values):
    """Every URL ``route`` gives with its parameters taken from ``values`` (name ->
    list); a status page's login is its author's (values["status"]: (login, id)
    pairs)."""
    names = re.findall(r"<(?:\w+:)?(\w+)>", route)
    missing = [name for name in names if name not in values and name != "login"]
    assert not missing, f'{route}: say how to fill {missing} (the scenario fixture\'s "values")'
    if "status_id" in names and "login" in names:
        choices = [{"login": login, "status_id": sid} for login, sid in values["status"]]
    else:
        choices = [
            dict(zip(names, combo, strict=True))
            for combo in itertools.product(*(values[name] for name in names))
        ]
    for chosen in choices:
        url = route
        for name in names:
            url = re.sub(rf"<(?:\w+:)?{name}>", quote(str(chosen[name]), safe="@"), url, count=1)
        yield "/" + url


@pytest.fixture
def scenario(r):
    people = {
        name: make_user(r, name)
        for name in (
            "privy",
            "gone",
            "pub",
            "outsider",
            "requester",
            "blocked",
            "follower",
            "moderator",
        )
    }
    moderation.add_moderator(r, people["moderator"]["id"])
    uid = {name: user["id"] for name, user in people.items()}
    # Every author lets their public statuses be found: search must still keep the
    # private, suspended and direct markers from whoever may not see them.
    for name in ("privy", "gone", "pub"):
        status_search.set_indexable(r, uid[name], True)
    graph.follow(r, uid["follower"], uid["privy"])
    graph.follow(r, uid["follower"], uid["gone"])
    graph.follow(r, uid["follower"], uid["pub"])
    hello = post(r, people["outsider"], "hello from the outside")
    # Posted while public, still quoted (by a mention) after the account turns private.
    before = post(r, people["privy"], f"{PRIVATE_MARK} early, to @outsider")
    privacy.set_private(r, uid["privy"], True)
    graph.follow(r, uid["requester"], uid["privy"])  # a request, never answered
    blocks.block(r, uid["privy"], uid["blocked"])
    blocks.block(r, uid["pub"], uid["blocked"])
    secret = post(r, people["privy"], f"{PRIVATE_MARK} #{PRIVATE_TAG} #shared @outsider @blocked")
    private_reply = statuses.post_status(
        r, uid["privy"], f"{PRIVATE_MARK} a reply", in_reply_to=hello
    )
    doomed = post(r, people["gone"], f"{SUSPENDED_MARK} #{SUSPENDED_TAG} #shared @outsider")
    suspended_reply = statuses.post_status(
        r, uid["gone"], f"{SUSPENDED_MARK} a reply @follower", in_reply_to=hello
    )
    public = post(r, people["pub"], f"{PUBLIC_MARK} #shared @outsider")
    reposts.repost(r, uid["follower"], public)
    for sid in (secret, doomed, public):
        likes.like(r, uid["follower"], sid)
    _, lid = lists.create_list(r, uid["follower"], "Everyone")
    for member in ("privy", "gone", "pub"):
        lists.add_member(r, uid["follower"], lid, uid[member])
    lists.create_list(r, uid["outsider"], "Mine")
    moderation.file_report(
        r, people["outsider"], people["gone"], next(iter(moderation.REASONS)), "", [doomed]
    )
    moderation.suspend(r, uid["gone"])
    sent = direct.start(
        r, uid["pub"], [people["follower"]], f"{DIRECT_MARK} #shared @outsider", "d" * 22
    )
    # Groups: a private group and a public one.
    group_sids = _groups(r, people, uid)
    sids = [hello, before, secret, private_reply, doomed, suspended_reply, public, *group_sids]
    # Who of READERS may see each status (the rest may not, and must find it not there).
    private = {"follower"}
    seen_by = {
        hello: set(READERS),
        before: private,
        secret: private,
        private_reply: private,
        doomed: set(),
        suspended_reply: set(),
        public: set(READERS) - {"blocked"},
        group_sids[0]: {"follower"},
        group_sids[1]: {"follower"},
        group_sids[2]: set(READERS) - {"blocked"},
    }
    # The message as the client API names it (a direct "status"), and one not there.
    direct_ids = [f"dm-{sent.cid}-{sent.mid}", f"dm-{sent.cid}-{sent.mid + 1}"]
    client_id, _ = oauth.create_app(r, "Walker", ["urn:ietf:wg:oauth:2.0:oob"], ["read"])
    window = int(time.time() * 1000) // GROUP_WINDOW_MS * GROUP_WINDOW_MS // 3_600_000
    by_author = [(statuses.get_status(r, sid)["login"], sid) for sid in sids]
    return {
        "people": people,
        "values": {
            "login": list(people),
            "account_id": [user["id"] for user in people.values()],
            "notification_id": [1],
            "status_id": sids + direct_ids,
            # A poll is named by its status's id (api/polls.py): these have none.
            "poll_id": sids,
            # Keyword filters and their keywords: ids another account's could have.
            "filter_id": [1, 2],
            "keyword_id": [1, 2],
            "status": by_author,
            "tag": [PRIVATE_TAG, SUSPENDED_TAG, "shared"],
            "list_id": [lid, 1, 2],
            "report_id": [1],
            # A direct conversation and its message; a conversation that is not there.
            "cid": [sent.cid, sent.cid + 1],
            "conversation_id": [sent.cid, sent.cid + 1, "x"],
            # An upload through the client API: one that could be, one that cannot.
            "media_id": ["AAAAAAAAAAAAAAAAAAAAAA", "../x"],
            "mid": [sent.mid],
            # The mailed links: links that do not work (their pages show no status).
            "uidb64": ["MQ"],
            "token": ["expired-or-forged"],
            # Pictures' files (media/views.py): one the site could have made, one it
            # never would.
            "name": ["avatars/AAAAAAAAAAAAAAAAAAAAAA.jpg", "../secret_key"],
            # An OAuth app (api/oauth_views.py): one registered, one that is not.
            "client_id": [client_id, "no-such-app"],
            # Grouped notifications' keys (api/notification_groups.py): the likes of each
            # status and the follows of today's window, one alone, and none.
            "group_key": [
                *(f"favourite-{sid}-{window}" for sid in (secret, doomed, public)),
                f"reblog-{public}-{window}",
                f"follow-{window}",
                "ungrouped-1",
                "nothing",
            ],
            # Groups: the private one, the public one, one that is not there; what
            # their POST-only URLs take.
            "slug": ["zqgroup", "zqopen", "nosuch"],
            "act": ["promote"],
            "decision": ["approve"],
        },
        "sids": sids,
        "seen_by": seen_by,
        "hello": hello,
        "marked": [secret, doomed],
        "conversation": sent.cid,
    }


def _groups(r, people, uid):
    """The groups of the scenario: their statuses' ids, the private group's
    status and reply, then the public group's status."""
    from socialsite.actions import Actor
    from socialsite.actions import statuses as statuses_actions
    from socialsite.repository import communities

    def as_actor(name):
        return Actor(uid=uid[name], login=name)

    def in_group(name, text, slug=None, in_reply_to=None):
        new = statuses_actions.NewStatus(text=text, in_reply_to=in_reply_to)
        return statuses_actions.post(as_actor(name), new, group=slug)

    hidden = communities.create(r, uid["pub"], "zqgroup", "Hidden", "", "private")
    for member in ("follower", "blocked"):
        communities.invite(r, hidden, uid[member])
        communities.join(r, hidden, uid[member])
    communities.join(r, hidden, uid["requester"])  # asks, never answered
    grouped = in_group("pub", f"{GROUP_MARK} #{GROUP_TAG} #shared @outsider", "zqgroup")
    reply = in_group("follower", f"{GROUP_MARK} a reply @outsider", in_reply_to=grouped)
    communities.leave(r, hidden, uid["blocked"], ban=True)
    communities.create(r, uid["pub"], "zqopen", "Open", "", "public")
    opened = in_group("pub", f"{PUBLIC_MARK} in the open group", "zqopen")
    return [grouped, reply, opened]


def reader_client(name, people=None):
    """A client of reader ``name``: logged in (the pages), and with ``people`` (the
    scenario's) an access token of theirs too (the client API takes no cookie)."""
    if name == "visitor":
        return Client(raise_request_exception=False)
    headers = {}
    if people is not None:
        r = get_redis()
        app = oauth.create_app(r, "Walker", ["urn:ietf:wg:oauth:2.0:oob"], ["read"])
        token = oauth.issue_token(r, app[0], ["read"], uid=people[name]["id"])
        headers["HTTP_AUTHORIZATION"] = f"Bearer {token}"
    return log_in(Client(raise_request_exception=False, **headers), name)


def test_no_page_shows_a_reader_what_they_may_not_see(scenario, settings):
    values = scenario["values"]
    urls = []
    for route, name, _ in patterns():
        for url in fill(route, values):
            urls.append((name, url))
            for query in EXTRA_QUERIES.get(name, ()):
                urls.append((name, f"{url}?{query}"))
            if name == "report":  # the form with a status ticked: a private one, a suspended one
                urls += [(name, f"{url}?status={sid}") for sid in scenario["marked"]]
    assert len({name for name, _ in urls}) >= 40, "the URLconf was not walked whole"
    problems = []
    for reader in READERS:
        client = reader_client(reader, scenario["people"])
        for name, url in urls:
            response = client.get(url)
            if response.status_code >= 500:
                problems.append(f"{reader}: GET {url} answered {response.status_code}")
                continue
            content = (
                b"".join(response.streaming_content) if response.streaming else response.content
            )
            body = content.decode(errors="replace")
            for mark, allowed in MAY_SEE.items():
                if mark in body and reader not in allowed:
                    problems.append(f"{reader}: GET {url} shows {mark}")
            direct_allowed = name in DIRECT_URLS or DIRECT_STATUS_URL.fullmatch(url)
            if DIRECT_MARK in body and not direct_allowed:
                problems.append(f"{reader}: GET {url} shows a direct message")
            # A status found by search carries its tags: an unlisted one's, to whom may see it.
            shown_tags = {
                PRIVATE_TAG: reader in MAY_SEE[PRIVATE_MARK] and PRIVATE_MARK in body,
                GROUP_TAG: reader in MAY_SEE[GROUP_MARK] and GROUP_MARK in body,
            }
            if name in TAG_LISTING_URLS:
                for tag in (tag for tag in UNLISTED_TAGS if not shown_tags[tag]):
                    if tag in body:
                        problems.append(f"{reader}: GET {url} lists #{tag}")
    # The walk can fail: the follower sees the private marker where it is.
    follower = reader_client("follower")
    assert PRIVATE_MARK in follower.get(f"/tags/{PRIVATE_TAG}/").content.decode()
    assert PUBLIC_MARK in reader_client("visitor").get("/tags/shared/").content.decode()
    assert GROUP_MARK in follower.get("/g/zqgroup/").content.decode()  # the member's
    assert PUBLIC_MARK in reader_client("visitor").get("/g/zqopen/").content.decode()
    assert (
        PUBLIC_MARK
        in reader_client("outsider").get("/search/?q=ZQPUBMARK&type=statuses").content.decode()
    )
    assert PRIVATE_MARK in follower.get("/search/?q=ZQPRIVMARK&type=statuses").content.decode()
    assert reader_client("moderator").get("/moderation/").status_code == 200  # walked
    assert DIRECT_MARK in follower.get("/messages/").content.decode()
    api_follower = reader_client("follower", scenario["people"])
    assert DIRECT_MARK in api_follower.get("/api/v1/conversations").content.decode()
    message_url = f"/api/v1/statuses/{values['status_id'][-2]}"
    assert DIRECT_MARK in api_follower.get(message_url).content.decode()
    assert not problems, "\n".join(problems)


# A status id that names nothing.
MADE_UP_ID = 424242


def test_a_status_the_reader_may_not_see_answers_as_a_missing_one(scenario, settings):
    """Every URL of the URLconf that takes a status id, and the report form ticking one,
    answers a status the reader may not see exactly as a made-up id: the same code and
    the same words (answer_of), so that nothing tells a protected status from a missing
    one (Mastodon answers 404 to both)."""
    settings.THROTTLES = {name: (100_000, 3600) for name in settings.THROTTLES}
    values = scenario["values"]
    routes = [
        (route, name) for route, name, _ in patterns() if re.search(r"<(?:\w+:)?status_id>", route)
    ]
    assert len(routes) >= 10, "the URLconf was not walked"
    login_of = dict((sid, login) for login, sid in values["status"])

    def urls_for(sid, login):
        chosen = {**values, "status": [(login, sid)], "status_id": [sid]}
        found = [url for route, _ in routes for url in fill(route, chosen)]
        return [*found, f"/@{login}/report/?status={sid}"]

    problems = []
    compared = 0
    for reader in READERS:
        client = reader_client(reader, scenario["people"])
        client.get("/")  # a welcome message, shown once
        for sid, seen_by in scenario["seen_by"].items():
            if reader in seen_by:
                continue
            login = login_of[sid]
            hidden = urls_for(sid, login)
            missing = urls_for(MADE_UP_ID, login)
            for url, made_up in zip(hidden, missing, strict=True):
                compared += 1
                if answer_of(client.get(url)) != answer_of(client.get(made_up)):
                    problems.append(f"{reader}: GET {url} answers unlike GET {made_up}")
    assert compared >= 100, "too few statuses compared"
    assert not problems, "\n".join(problems)


# --- the streaming API ----------------------------------------------------------------------


def stream_lines(stream, last):
    """The JSON lines of ``stream`` up to and including status ``last``'s."""
    lines = []
    while not lines or lines[-1].get("id") != last:
        lines.append(stream.read_json())
    return lines


def test_the_streams_never_carry_a_private_or_suspended_marker(scenario, stream_server, r):
    people = scenario["people"]
    query = {"identifier": "walker", "since_id": scenario["hello"] - 1}
    tracks = f"{PRIVATE_TAG},{SUSPENDED_TAG},shared,{PRIVATE_MARK},{SUSPENDED_MARK}"
    opened = [
        StreamConnection(
            stream_server.port,
            "GET",
            f"/statuses/sample.json?{urlencode({**query, 'percent': 100})}",
        ),
        StreamConnection(
            stream_server.port,
            "POST",
            f"/statuses/filter.json?{urlencode(query)}",
            body=urlencode({"track": tracks, "follow": "privy,gone,pub"}),
            headers={"Content-Type": "application/x-www-form-urlencoded"},
        ),
    ]
    try:
        for stream in opened:
            assert stream.status == 200
        # Live: the private account and the suspended one post again (the suspended
        # one through the repository, as a request in flight at suspension could).
        post(r, people["privy"], f"{PRIVATE_MARK} live #{PRIVATE_TAG} #shared")
        post(r, people["gone"], f"{SUSPENDED_MARK} live #{SUSPENDED_TAG} #shared")
        direct.reply(
            r,
            scenario["conversation"],
            people["pub"]["id"],
            f"{DIRECT_MARK} live #shared @pub",
            "l" * 22,
        )
        last = post(r, people["pub"], f"{PUBLIC_MARK} the last #shared")
        for stream in opened:
            text = json.dumps(stream_lines(stream, last))
            assert PUBLIC_MARK in text  # the catch-up and the live stream were read
            assert PRIVATE_MARK not in text
            assert SUSPENDED_MARK not in text
            assert DIRECT_MARK not in text
    finally:
        for stream in opened:
            stream.close()


def test_a_catch_up_withholds_the_late_events_of_the_statuses_it_left_out(r, alice, bob):
    """Pub/sub may hand the stream server a status's event after the author's
    suspension (on a cluster, seconds late): a catch-up that read the status and left
    it out does not send that event when it joins the live stream, held or later."""
    late = post(r, alice, f"{SUSPENDED_MARK} posted just before the suspension")
    moderation.suspend(r, alice["id"])
    shown = post(r, bob, "public")
    withheld = set()
    read, _, _ = timelines.recent_public(r, 0, withheld=withheld)
    assert [status["id"] for status in read] == [shown] and withheld == {late}

    async def join():
        client = replay.ReplayingClient(None, None, 10, floor=0)
        assert client.offer(b"late;", StatusEvent({"id": late, "uid": alice["id"]}))  # held
        client.withheld |= withheld
        assert client.release([(StatusEvent({"id": shown, "uid": bob["id"]}), b"shown;")])
        assert client.offer(b"late again;", StatusEvent({"id": late, "uid": alice["id"]}))
        return b"".join(client.pending).decode()

    assert asyncio.run(join()) == "shown;"


def test_mastodons_streams_never_carry_a_direct_message(scenario, stream_server, r):
    """The client API's streams (Mastodon's, api/streaming.py), its member's
    own home, list and notification streams too: a direct message, sent as the client API
    sends it (direct.reply), comes down none of them but its member's ``direct`` stream;
    a non-member's ``direct`` stream gets only their own conversation, sent last."""
    people = scenario["people"]
    app = oauth.create_app(r, "Walker", ["urn:ietf:wg:oauth:2.0:oob"], ["read"])

    def open_stream(reader, path):
        token = oauth.issue_token(r, app[0], ["read"], uid=people[reader]["id"])
        headers = {"Accept": "text/event-stream", "Authorization": f"Bearer {token}"}
        return StreamConnection(stream_server.port, "GET", f"/api/v1/streaming/{path}",
                                headers=headers)  # fmt: skip

    lid = scenario["values"]["list_id"][0]
    opened = [
        open_stream("follower", "user"),
        open_stream("follower", "public"),
        open_stream("follower", f"list?list={lid}"),
        open_stream("outsider", "user"),
        open_stream("outsider", "user/notification"),
        open_stream("outsider", "hashtag?tag=shared"),
    ]
    outsiders_direct = open_stream("outsider", "direct")
    members_direct = open_stream("follower", "direct")
    try:
        for stream in [*opened, outsiders_direct, members_direct]:
            assert stream.status == 200
        direct.reply(
            r, scenario["conversation"], people["pub"]["id"],
            f"{DIRECT_MARK} on the API's streams #shared @outsider", "m" * 22,
        )  # fmt: skip
        # The member's direct stream carries it: the others are not read too early.
        kind, data = members_direct.read_event(timeout=10)
        assert kind == "conversation" and DIRECT_MARK in data
        # The last status: an update on each stream, a notification on the
        # outsider's own (it mentions them; they follow nobody).
        last = post(r, people["pub"], f"{PUBLIC_MARK} the last #shared @outsider")
        for stream in opened:
            seen = []
            while True:
                kind, data = stream.read_event(timeout=10)
                seen.append(data)
                shown = json.loads(data) if kind in ("update", "notification") else {}
                if str(last) in (shown.get("id"), (shown.get("status") or {}).get("id")):
                    break
            assert DIRECT_MARK not in "".join(seen)
        # The outsider's own message, last: the first conversation their stream sends.
        direct.set_messages_from(r, people["pub"]["id"], "everyone")
        pub = users.get_user(r, people["pub"]["id"])
        direct.start(r, people["outsider"]["id"], [pub], "zqown", "o" * 22)
        kind, data = outsiders_direct.read_event(timeout=10)
        assert kind == "conversation" and "zqown" in data and DIRECT_MARK not in data
    finally:
        for stream in [*opened, outsiders_direct, members_direct]:
            stream.close()
