"""Direct messages' acts (socialsite/actions/direct.py): each action called with an
Actor, its result and its refusals; then the pages and the client API driven side by
side, answering alike where they had drifted apart (each parity test names the drift)."""

import time

import pytest
from django.test import Client

from socialsite import throttling
from socialsite.actions import (
    Actor,
    EmailUnverified,
    Invalid,
    NotFound,
    Throttled,
)
from socialsite.actions import direct as acts
from socialsite.repository import blocks, direct, graph, keys, throttles
from tests.support.helpers import bearer, log_in, make_user

MAX = direct.MESSAGE_MAX_CHARACTERS


def actor(user, **fields):
    return Actor(uid=user["id"], login=user["login"], **fields)


def counting(user, counted):
    """An Actor of ``user`` whose throttle uses go into ``counted`` (none refused)."""

    def count(name):
        counted.append(name)
        return None

    return actor(user, count=count)


def refusing(user, refused_name):
    """An Actor of ``user`` whose throttle ``refused_name`` refuses every use."""

    def count(name):
        if name != refused_name:
            return None
        now = int(time.time() * 1000)
        verdict = throttles.Verdict(False, 1, 1, now, 3_600_000, "k", "t")
        return throttling.Counted(name, verdict)

    return actor(user, count=count)


@pytest.fixture
def friends(r, alice, bob):
    graph.follow(r, bob["id"], alice["id"])  # bob takes messages from alice
    return alice, bob


def pair_of(r, alice, bob):
    return acts.start(actor(alice), ["bob"], "hello", "k" * 22)


# --- the actions, called directly ----------------------------------------------------------


def test_start_sends_into_the_pairs_one_conversation(r, friends):
    alice, bob = friends
    sent = acts.start(actor(alice), ["@Bob"], "hello\r\nbob", "k" * 22)
    assert isinstance(sent, direct.Sent) and sent.mid == 1
    page = direct.conversation_page(r, bob["id"], sent.cid)
    assert [m["message"] for m in page.messages] == ["hello\nbob"]
    again = acts.start(actor(alice), ["bob", "alice"], "again", "j" * 22)
    assert again.cid == sent.cid and again.mid == 2


def test_start_refuses_with_the_field_it_is_about(r, friends, carol):
    alice, _ = friends
    me = actor(alice)
    refusals = {
        "empty": (["bob"], "  \n "),
        "long": (["bob"], "x" * (MAX + 1)),
        "nul": (["bob"], "a\x00b"),
        "unknown": (["bob", "nosuch"], "hi"),
        "nobody": ([], "hi"),
        "myself": (["alice"], "hi"),
        "not following": (["carol"], "hi"),
    }
    said = {}
    for name, (logins, text) in refusals.items():
        with pytest.raises(Invalid) as refused:
            acts.start(me, logins, text, "k" * 22)
        said[name] = (refused.value.field, refused.value.message)
    assert said["empty"] == ("message", "Write a message: it is empty.")
    assert said["long"][0] == "message" and "at most 10,000 characters" in said["long"][1]
    assert said["nul"] == ("message", acts.NULL_CHARACTERS)
    assert said["unknown"] == ("to", "There is no user @nosuch.")
    assert said["nobody"] == ("to", "Say whom the message is for.")
    assert said["myself"] == ("to", "Name someone besides yourself.")
    assert said["not following"] == (
        None,
        "@carol takes direct messages only from people they follow.",
    )
    with pytest.raises(acts.NobodyNamed):
        acts.start(me, ["alice"], "hi", "k" * 22)
    assert r.get(keys.CONVERSATION_IDS) is None  # nothing stored


def test_start_counts_a_conversation_only_for_one_it_would_start(r, friends):
    alice, _ = friends
    counted = []
    with pytest.raises(Invalid):
        acts.start(counting(alice, counted), ["nosuch"], "hi", "k" * 22)
    assert counted == ["messages"]
    counted.clear()
    acts.start(counting(alice, counted), ["bob"], "hi", "k" * 22)
    assert counted == ["messages", "conversations"]
    with pytest.raises(Throttled) as refused:
        acts.start(refusing(alice, "conversations"), ["bob"], "hi", "j" * 22)
    assert "conversations started" in refused.value.message
    with pytest.raises(Throttled):
        acts.reply(refusing(alice, "messages"), 1, "hi", "i" * 22)


def test_an_unverified_address_sends_nothing(r, friends):
    alice, _ = friends
    cid = pair_of(r, *friends).cid
    unverified = actor(alice, must_verify_email=True)
    with pytest.raises(EmailUnverified):
        acts.start(unverified, ["bob"], "hi", "j" * 22)
    with pytest.raises(EmailUnverified):
        acts.reply(unverified, cid, "hi", "i" * 22)


def test_a_group_names_at_most_its_size_besides_the_sender(r, alice):
    named = [f"user{n}" for n in range(direct.MAX_OTHER_MEMBERS + 1)]
    with pytest.raises(Invalid) as refused:
        acts.start(actor(alice), named, "hi", "k" * 22)
    assert refused.value.field == "to" and "at most 49 people" in refused.value.message
    # The sender named too is not one too many: the unknown names are what is refused.
    with pytest.raises(Invalid) as refused:
        acts.start(actor(alice), [*named[:-1], "alice"], "hi", "k" * 22)
    assert refused.value.message.startswith("There is no user @user0")


def test_reply_is_for_members_before_anything_about_the_text(r, friends, carol):
    alice, bob = friends
    cid = pair_of(r, alice, bob).cid
    assert acts.reply(actor(bob), cid, "back", "b" * 22).mid == 2
    for text in ("", "hi", "x" * (MAX + 1)):
        with pytest.raises(NotFound):
            acts.reply(actor(carol), cid, text, "c" * 22)
        with pytest.raises(NotFound):
            acts.reply(actor(alice), cid + 1, text, "c" * 22)
    with pytest.raises(Invalid) as refused:
        acts.reply(actor(bob), cid, " ", "b" * 22)
    assert refused.value.field == "message"
    blocks.block(r, bob["id"], alice["id"])
    with pytest.raises(Invalid) as refused:
        acts.reply(actor(alice), cid, "are you there?", "a" * 22)
    assert refused.value.message == "You cannot message @bob now."


def test_mark_read_takes_the_readers_own_conversation(r, friends):
    alice, bob = friends
    cid = pair_of(r, alice, bob).cid
    page = direct.conversation_page(r, bob["id"], cid)
    with pytest.raises(NotFound):
        acts.mark_read(actor(alice), page.conversation)
    assert direct.unread(r, bob["id"]).count == 1
    unread = acts.mark_read(actor(bob), page.conversation)
    assert isinstance(unread, direct.Unread) and unread.count == 0
    assert direct.unread(r, bob["id"]).count == 0
    read_again = direct.conversation_page(r, bob["id"], cid).conversation
    assert acts.mark_read(actor(bob), read_again) is None  # nothing unread: nothing written


def test_a_members_acts_on_a_conversation(r, friends, carol):
    alice, bob = friends
    graph.follow(r, carol["id"], alice["id"])
    group = acts.start(actor(alice), ["bob", "carol"], "all of us", "g" * 22).cid
    pair = pair_of(r, alice, bob).cid
    for act in (acts.mute, acts.unmute, acts.accept, acts.delete_conversation, acts.leave):
        with pytest.raises(NotFound):
            act(actor(carol), pair)

    def muted():
        return {c.id: c.muted for c in direct.inbox_page(r, bob["id"]).items}

    acts.mute(actor(bob), group)
    assert muted() == {group: True, pair: False}
    acts.unmute(actor(bob), group)
    assert muted() == {group: False, pair: False}
    with pytest.raises(Invalid) as refused:
        acts.leave(actor(bob), pair)
    assert "cannot be left" in refused.value.message
    acts.leave(actor(carol), group)
    assert not direct.is_member(r, carol["id"], group)
    acts.delete_conversation(actor(bob), group)
    assert [c.id for c in direct.inbox_page(r, bob["id"]).items] == [pair]


def test_accept_moves_a_request_to_the_inbox(r, alice, bob):
    acts.set_messages_from(actor(bob), "everyone")
    cid = acts.start(actor(alice), ["bob"], "a stranger writes", "k" * 22).cid
    assert [c.id for c in direct.inbox_page(r, bob["id"], requests=True).items] == [cid]
    acts.accept(actor(bob), cid)
    assert [c.id for c in direct.inbox_page(r, bob["id"]).items] == [cid]
    with pytest.raises(Invalid) as refused:
        acts.set_messages_from(actor(bob), "anyone at all")
    assert refused.value.field == "messages_from"


def test_delete_message_only_one_the_member_sees(r, friends, carol):
    alice, bob = friends
    cid = pair_of(r, alice, bob).cid
    acts.reply(actor(bob), cid, "second", "b" * 22)
    with pytest.raises(NotFound):
        acts.delete_message(actor(carol), cid, 1)
    for mid in (0, 3, 10**20):
        with pytest.raises(NotFound):
            acts.delete_message(actor(bob), cid, mid)
    assert acts.delete_message(actor(bob), cid, 1) == "hello"
    with pytest.raises(NotFound):
        acts.delete_message(actor(bob), cid, 1)  # deleted for him already
    blocks.block(r, alice["id"], bob["id"])
    with pytest.raises(NotFound):
        acts.delete_message(actor(alice), cid, 2)  # from someone she blocks: not shown


# --- the pages and the API, side by side ---------------------------------------------------


@pytest.fixture
def doors(friends, token):
    """(pages, api) for alice and for bob: logged-in test clients, and API calls with
    their tokens."""
    alice, bob = friends
    return {
        "alice": (log_in(Client(), "alice"), bearer(token(alice))),
        "bob": (log_in(Client(), "bob"), bearer(token(bob))),
    }


def api_post(client, headers, text, **fields):
    return client.post(
        "/api/v1/statuses", {"status": text, "visibility": "direct", **fields}, **headers
    )


def page_reply(page_client, cid, text):
    return page_client.post(f"/messages/{cid}/", {"message": text})


def api_reply(client, headers, cid, text):
    return api_post(client, headers, text, in_reply_to_id=f"dm-{cid}-1")


def test_parity_a_line_break_counts_one_character(r, client, friends, doors):
    """Drift: the pages' form counted a CR LF line break as two characters before making
    it one, so a message of MESSAGE_MAX_CHARACTERS with line breaks was refused there and
    sent by the API."""
    pages, api = doors["alice"]
    cid = pair_of(r, *friends).cid
    longest = "x" * (MAX - 3) + "\r\n" + "yy"  # MAX characters once the break is one
    assert page_reply(pages, cid, longest).status_code == 302
    assert api_reply(client, api, cid, longest).status_code == 200
    over = longest + "z"
    page = page_reply(pages, cid, over)
    answer = api_reply(client, api, cid, over)
    assert page.status_code == 400 and answer.status_code == 422
    said = f"this one has {MAX + 1:,}"
    assert said in page.content.decode() and said in answer.json()["error"]


def test_parity_a_nul_character_is_refused(r, client, friends, doors):
    """Drift: the pages' form refused a message holding NUL; the API sent it."""
    pages, api = doors["alice"]
    cid = pair_of(r, *friends).cid
    page = page_reply(pages, cid, "a\x00b")
    answer = api_reply(client, api, cid, "a\x00b")
    assert page.status_code == 400 and answer.status_code == 422
    assert acts.NULL_CHARACTERS in page.content.decode()
    assert acts.NULL_CHARACTERS in answer.json()["error"]
    assert api_post(client, api, "@bob a\x00b").status_code == 422
    assert len(direct.conversation_page(r, friends[0]["id"], cid).messages) == 1


def test_parity_a_non_member_learns_nothing_from_an_empty_reply(
    r, client, friends, doors, carol, token
):
    """Drift: an empty or too long message into a conversation one is not in was 404 on
    the pages (no such conversation) and 422 on the API (its text refused)."""
    cid = pair_of(r, *friends).cid
    carol_pages, carol_api = log_in(Client(), "carol"), bearer(token(carol))
    for text in ("", "x" * (MAX + 1), "fine"):
        assert page_reply(carol_pages, cid, text).status_code == 404, text
        answer = api_reply(client, carol_api, cid, text)
        assert answer.status_code == 404 and answer.json()["error"] == "Record not found"


def test_parity_only_a_message_one_sees_is_deleted(r, client, friends, doors):
    """Drift: the pages' "Delete for me" deleted any message of the conversation, one
    deleted already or from someone blocked (and said so); the API answered 404 for a
    message the caller does not see. Both refuse it now, as a message not there."""
    alice, bob = friends
    cid = pair_of(r, alice, bob).cid
    for n, text in enumerate(("second", "third", "fourth")):
        acts.reply(actor(bob), cid, text, str(n) * 22)
    pages, api = doors["alice"]

    def delete_on_pages(mid):
        return pages.post(f"/messages/{cid}/{mid}/delete/").status_code

    def delete_by_api(mid):
        return client.delete(f"/api/v1/statuses/dm-{cid}-{mid}", **api).status_code

    assert delete_on_pages(2) == 302 and delete_by_api(3) == 200
    assert delete_on_pages(2) == delete_by_api(2) == 404
    assert delete_on_pages(3) == delete_by_api(3) == 404
    blocks.block(r, alice["id"], bob["id"])
    # bob's messages are hidden from her now: none is hers to delete; hers still are.
    assert delete_on_pages(4) == delete_by_api(4) == 404
    assert delete_by_api(1) == 200


def test_parity_a_group_of_the_most_with_the_sender_named_too(r, client, friends, doors):
    """Drift: the pages' "To" field counted the sender among the people named, so a
    group of MAX_OTHER_MEMBERS others naming the sender too was refused there and
    started by the API (whose mentions may name the sender)."""
    alice, _ = friends
    logins = []
    for n in range(direct.MAX_OTHER_MEMBERS):
        member = make_user(r, f"member{n}")
        graph.follow(r, member["id"], alice["id"])
        logins.append(member["login"])
    pages, api = doors["alice"]
    page = pages.post("/messages/", {"to": " ".join(["alice", *logins]), "message": "all"})
    assert page.status_code == 302, page.content.decode()
    answer = api_post(client, api, " ".join(f"@{login}" for login in ["alice", *logins]))
    assert answer.status_code == 200, answer.content
    make_user(r, "member_extra")
    page = pages.post("/messages/", {"to": " ".join([*logins, "member_extra"]), "message": "x"})
    answer = api_post(client, api, " ".join(f"@{login}" for login in [*logins, "member_extra"]))
    assert page.status_code == 400 and answer.status_code == 422
    assert "you named 50" in page.content.decode() and "you named 50" in answer.json()["error"]


def test_parity_an_unknown_login_is_said_alike(r, client, doors):
    """Wording unified: the pages said "There is no user @x.", the API "there is no user
    @x"; both say the pages' words now (the API's after "Validation failed: ")."""
    pages, api = doors["alice"]
    page = pages.post("/messages/", {"to": "bob nosuch", "message": "hi"})
    answer = api_post(client, api, "@bob @nosuch hi")
    assert page.status_code == 400 and answer.status_code == 422
    assert "There is no user @nosuch." in page.content.decode()
    assert answer.json()["error"] == "Validation failed: There is no user @nosuch."
