"""Direct messages in the repository: one conversation per pair, groups, who may
message whom, the inbox, requests and unread counts, retries, deletions for oneself,
leaving, and an account that leaves the site."""

import threading

import pytest

from socialsite.repository import blocks, direct, graph, keys, leaving, moderation, scripts, users
from tests.support.helpers import make_user


def fresh(r, user):
    return users.get_user(r, user["id"])


def send(r, sender, others, text, key="k" * 22):
    return direct.start(r, sender["id"], [fresh(r, o) for o in others], text, key)


@pytest.fixture
def friends(r, alice, bob):
    """bob follows alice: alice may message bob (his default: people he follows)."""
    graph.follow(r, bob["id"], alice["id"])
    return alice, bob


def test_two_people_share_one_conversation_whoever_writes_first(r, friends):
    alice, bob = friends
    graph.follow(r, alice["id"], bob["id"])
    first = send(r, alice, [bob], "hello bob", key="a" * 22)
    second = direct.start(r, bob["id"], [fresh(r, alice)], "hello alice", "b" * 22)
    assert first.cid == second.cid and (first.mid, second.mid) == (1, 2)
    page = direct.conversation_page(r, alice["id"], first.cid)
    assert [m["message"] for m in page.messages] == ["hello bob", "hello alice"]
    assert r.hget(keys.conversation_pair(min(alice["id"], bob["id"])), max(alice["id"], bob["id"]))


def test_two_first_messages_at_once_make_one_conversation(r, alice, bob):
    graph.follow(r, alice["id"], bob["id"])
    graph.follow(r, bob["id"], alice["id"])
    found = []

    def write(sender, other, key):
        found.append(direct.start(r, sender["id"], [fresh(r, other)], "hi", key).cid)

    threads = [
        threading.Thread(target=write, args=(alice, bob, "a" * 22)),
        threading.Thread(target=write, args=(bob, alice, "b" * 22)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(found)) == 1


def test_a_message_is_stored_once_whatever_the_group_size(r, alice):
    members = [make_user(r, f"member{n}") for n in range(10)]
    for member in members:
        graph.follow(r, member["id"], alice["id"])
    sent = send(r, alice, members, "hello all")
    assert r.xlen(keys.conversation_messages(sent.cid)) == 1
    for member in members:
        assert r.zscore(keys.direct_inbox(member["id"]), sent.cid) is not None
        assert direct.unread(r, member["id"]).count == 1


def test_a_form_sent_again_sends_nothing_new(r, friends):
    alice, bob = friends
    first = send(r, alice, [bob], "once", key="x" * 22)
    again = send(r, alice, [bob], "once", key="x" * 22)
    assert (again.cid, again.mid, again.fresh) == (first.cid, first.mid, False)
    assert r.xlen(keys.conversation_messages(first.cid)) == 1
    assert direct.conversation_page(r, bob["id"], first.cid).conversation.unread == 1


def test_a_group_form_sent_again_starts_one_group(r, friends, carol):
    alice, bob = friends
    graph.follow(r, carol["id"], alice["id"])
    first = send(r, alice, [bob, carol], "group", key="g" * 22)
    again = send(r, alice, [bob, carol], "group", key="g" * 22)
    assert first.cid == again.cid and not again.fresh


def test_a_delivery_cut_short_is_mended_by_the_retry(r, friends):
    alice, bob = friends
    sent = send(r, alice, [bob], "hi", key="y" * 22)
    r.delete(keys.direct_inbox(bob["id"]), keys.direct_state(bob["id"]))  # as if it died
    send(r, alice, [bob], "hi", key="y" * 22)
    assert r.zscore(keys.direct_inbox(bob["id"]), sent.cid) is not None
    assert direct.unread(r, bob["id"]).count == 1


def test_who_may_message_whom(r, alice, bob):
    with pytest.raises(direct.Refused, match="only from people they follow"):
        send(r, alice, [bob], "hi")
    assert r.get(keys.CONVERSATION_IDS) is None  # nothing stored
    direct.set_messages_from(r, bob["id"], "everyone")
    sent = send(r, alice, [bob], "hi")
    assert r.zscore(keys.direct_requests(bob["id"]), sent.cid) is not None
    assert direct.unread(r, bob["id"]).count == 0  # a request: no badge
    direct.set_messages_from(r, bob["id"], "nobody")
    with pytest.raises(direct.Refused, match="takes no direct messages"):
        send(r, alice, [bob], "again", key="z" * 22)


def test_blocks_stop_messages_both_ways(r, friends):
    alice, bob = friends
    sent = send(r, alice, [bob], "before")
    blocks.block(r, bob["id"], alice["id"])
    with pytest.raises(direct.Refused):
        direct.reply(r, sent.cid, alice["id"], "after", "q" * 22)
    with pytest.raises(direct.Refused):
        direct.reply(r, sent.cid, bob["id"], "after", "w" * 22)
    with pytest.raises(direct.Refused, match="a block"):
        send(r, alice, [bob], "new", key="e" * 22)


def test_in_a_group_a_blocker_does_not_get_the_blocked_ones_messages(r, friends, carol):
    alice, bob = friends
    graph.follow(r, carol["id"], alice["id"])
    sent = send(r, alice, [bob, carol], "group")
    blocks.block(r, bob["id"], carol["id"])
    direct.reply(r, sent.cid, carol["id"], "from carol", "c" * 22)
    page = direct.conversation_page(r, bob["id"], sent.cid)
    assert [m["message"] for m in page.messages] == ["group"]
    assert page.conversation.unread == 1  # carol's did not reach him
    # Nor does his inbox show it as the conversation's last message; alice's does.
    assert direct.inbox_page(r, bob["id"]).items[0].last["message"] == "group"
    assert direct.inbox_page(r, alice["id"]).items[0].last["message"] == "from carol"


def test_suspended_accounts_neither_send_nor_are_messaged(r, friends):
    alice, bob = friends
    sent = send(r, alice, [bob], "hi")
    moderation.suspend(r, bob["id"])
    with pytest.raises(direct.Refused, match="cannot be messaged"):
        send(r, alice, [bob], "new", key="n" * 22)
    with pytest.raises(direct.Refused):
        direct.reply(r, sent.cid, alice["id"], "again", "m" * 22)


def test_only_members_read_a_conversation(r, friends, carol):
    alice, bob = friends
    sent = send(r, alice, [bob], "private")
    assert direct.conversation_page(r, carol["id"], sent.cid) is None
    assert direct.conversation_page(r, carol["id"], 999) is None
    assert direct.reply(r, sent.cid, carol["id"], "let me in", "p" * 22) is None


def test_reading_muting_and_the_badge(r, friends):
    alice, bob = friends
    sent = send(r, alice, [bob], "one")
    direct.reply(r, sent.cid, alice["id"], "two", "t" * 22)
    assert direct.unread(r, bob["id"]).count == 1
    assert direct.inbox_page(r, bob["id"]).items[0].unread == 2
    assert direct.mark_read(r, bob["id"], sent.cid).count == 0
    direct.mute(r, bob["id"], sent.cid)
    direct.reply(r, sent.cid, alice["id"], "three", "u" * 22)
    assert direct.unread(r, bob["id"]).count == 0
    direct.mute(r, bob["id"], sent.cid, False)
    assert direct.unread(r, bob["id"]).count == 1


def test_a_request_accepted_or_deleted(r, alice, bob):
    direct.set_messages_from(r, bob["id"], "everyone")
    sent = send(r, alice, [bob], "hi")
    assert direct.inbox_page(r, bob["id"], requests=True).items[0].id == sent.cid
    direct.accept(r, bob["id"], sent.cid)
    assert direct.inbox_page(r, bob["id"]).items[0].id == sent.cid
    assert direct.unread(r, bob["id"]).count == 1
    direct.delete_for_member(r, bob["id"], sent.cid)
    assert direct.inbox_page(r, bob["id"]).items == []
    assert direct.conversation_page(r, bob["id"], sent.cid).messages == []  # cleared
    direct.reply(r, sent.cid, alice["id"], "back", "b" * 22)
    page = direct.conversation_page(r, bob["id"], sent.cid)
    assert [m["message"] for m in page.messages] == ["back"]


def test_deleting_a_message_for_oneself_and_leaving_a_group(r, friends, carol):
    alice, bob = friends
    graph.follow(r, carol["id"], alice["id"])
    sent = send(r, alice, [bob, carol], "group")
    direct.hide_message(r, bob["id"], sent.cid, sent.mid)
    assert direct.conversation_page(r, bob["id"], sent.cid).messages == []
    assert len(direct.conversation_page(r, carol["id"], sent.cid).messages) == 1
    direct.leave(r, carol["id"], sent.cid)
    assert direct.conversation_page(r, carol["id"], sent.cid) is None
    assert direct.inbox_page(r, carol["id"]).items == []
    direct.reply(r, sent.cid, alice["id"], "after carol left", "l" * 22)
    assert direct.unread(r, carol["id"]).count == 0


def test_inbox_rows_remembered_by_the_process_stay_true(r, friends, carol, monkeypatch):
    """A row's newest message and members come from the process's memory once shown: a
    new message shows at once, a long one is read each time, and a member who left a
    group leaves the others' rows within direct.MEMBERS_TRUST_SECONDS."""
    from socialsite import memory

    alice, bob = friends
    graph.follow(r, carol["id"], alice["id"])
    sent = send(r, alice, [bob, carol], "group")
    assert direct.inbox_page(r, bob["id"]).items[0].last["message"] == "group"
    long = "x" * (direct.REMEMBERED_MESSAGE_CHARACTERS + 1)
    direct.reply(r, sent.cid, alice["id"], long, "l" * 22)
    assert direct.inbox_page(r, bob["id"]).items[0].last["message"] == long
    assert (sent.cid, sent.mid + 1) not in direct._newest_messages
    members = [m["login"] for m in direct.inbox_page(r, bob["id"]).items[0].members]
    assert "carol" in members
    direct.leave(r, carol["id"], sent.cid)
    now = memory._monotonic()
    monkeypatch.setattr(memory, "_monotonic", lambda: now + direct.MEMBERS_TRUST_SECONDS + 1)
    row = direct.inbox_page(r, bob["id"]).items[0]
    assert [m["login"] for m in row.members] == ["alice", "bob"]


def test_a_message_deleted_for_oneself_leaves_the_inbox_row(r, friends):
    """The row then shows the newest message the reader still sees; the next message
    shows itself; the other member's row is unchanged."""
    alice, bob = friends

    def last_seen_by(user):
        last = direct.inbox_page(r, user["id"]).items[0].last
        return last and last["message"]

    sent = send(r, alice, [bob], "first")
    second = direct.reply(r, sent.cid, alice["id"], "second", "s" * 22)
    assert last_seen_by(bob) == "second"
    direct.hide_message(r, bob["id"], sent.cid, second.mid)
    assert last_seen_by(bob) == "first" and last_seen_by(alice) == "second"
    direct.hide_message(r, bob["id"], sent.cid, sent.mid)
    assert last_seen_by(bob) is None
    direct.reply(r, sent.cid, alice["id"], "third", "t" * 22)
    assert last_seen_by(bob) == "third"
    direct.hide_message(r, bob["id"], sent.cid, sent.mid)  # an older one: nothing changes
    assert last_seen_by(bob) == "third"


def test_paging_back_through_a_conversation(r, friends):
    alice, bob = friends
    sent = send(r, alice, [bob], "m1")
    for n in range(2, 8):
        direct.reply(r, sent.cid, alice["id"], f"m{n}", f"{n}" * 22)
    page = direct.conversation_page(r, bob["id"], sent.cid, count=3)
    assert [m["message"] for m in page.messages] == ["m5", "m6", "m7"]
    older = direct.conversation_page(r, bob["id"], sent.cid, before=page.older, count=3)
    assert [m["message"] for m in older.messages] == ["m2", "m3", "m4"]
    newer = direct.conversation_page(r, bob["id"], sent.cid, after=5)
    assert [m["message"] for m in newer.messages] == ["m6", "m7"]


def test_a_leaving_account_leaves_its_conversations_and_its_messages_stay(r, friends, carol):
    alice, bob = friends
    sent = send(r, alice, [bob], "from alice")
    assert leaving.delete_account(r, alice["id"], inline_budget=10_000) is True
    page = direct.conversation_page(r, bob["id"], sent.cid)
    assert [m["message"] for m in page.messages] == ["from alice"]
    assert page.conversation.others == [] and page.conversation.gone == []
    assert alice["id"] not in page.senders  # shown as a deleted account
    for key in direct.forget_keys(alice["id"]):
        assert not r.exists(key)
    assert not r.hlen(keys.conversation_pair(min(alice["id"], bob["id"])))
    with pytest.raises(direct.Refused, match="gone"):
        direct.reply(r, sent.cid, bob["id"], "hello?", "h" * 22)


def test_the_export_holds_ones_own_conversations(r, friends):
    alice, bob = friends
    sent = send(r, alice, [bob], "exported")
    (conversation,) = direct.export_conversations(r, bob["id"])
    assert conversation["id"] == sent.cid
    assert [m["message"] for m in conversation["messages"]] == ["exported"]


def test_mentions_are_linked_and_notify_nobody(r, friends, carol):
    from socialsite.repository import notifications

    alice, bob = friends
    sent = send(r, alice, [bob], "ask @carol about #plans")
    message = direct.get_message(r, sent.cid, sent.mid)
    assert '"m"' in message["entities"] and '"h"' in message["entities"]
    assert notifications.events(r, carol["id"]) == []


def test_the_member_script_publishes_new_messages(r, friends):
    alice, bob = friends
    pubsub = r.pubsub(ignore_subscribe_messages=True)
    pubsub.subscribe(keys.NOTIFICATION_CHANNEL)
    try:
        send(r, alice, [bob], "live")
        got = []
        for _ in range(50):
            message = pubsub.get_message(timeout=0.1)
            if message:
                got.append(message["data"])
            if len(got) == 2:
                break
        assert any(f'"direct":{bob["id"]}' in text.replace(" ", "") for text in got)
    finally:
        pubsub.close()


def test_scripts_are_idempotent_under_retry(r, friends):
    alice, bob = friends
    sent = send(r, alice, [bob], "hi")
    before = r.hgetall(keys.direct_state(bob["id"]))
    scripts.direct_member(r, uid=bob["id"], cid=sent.cid, action="deliver", mid=sent.mid,
                          at_ms=1, role="inbox")  # fmt: skip
    after = r.hgetall(keys.direct_state(bob["id"]))
    assert before == after


def test_an_inbox_is_read_above_a_time_either_way(r, alice):
    cids = []
    for n in range(4):
        friend = make_user(r, f"pen{n}")
        graph.follow(r, friend["id"], alice["id"])
        cids.append(direct.start(r, alice["id"], [friend], f"hi {n}", f"k{n}", 1000 * (n + 1)).cid)
    page = direct.inbox_page(r, alice["id"], count=2)
    assert [c.id for c in page.items] == [cids[3], cids[2]]
    assert (page.next_cursor, page.newest_cursor) == (3000, 4000)
    newest = direct.inbox_page(r, alice["id"], after=1000, count=2)
    assert [c.id for c in newest.items] == [cids[3], cids[2]]
    just_above = direct.inbox_page(r, alice["id"], after=1000, count=2, oldest_first=True)
    assert [c.id for c in just_above.items] == [cids[2], cids[1]]
    assert [c.last["message"] for c in just_above.items] == ["hi 2", "hi 1"]
    assert (just_above.next_cursor, just_above.newest_cursor) == (2000, 3000)
    between = direct.inbox_page(r, alice["id"], before=4000, after=1000, oldest_first=True)
    assert [c.id for c in between.items] == [cids[2], cids[1]]
    assert direct.inbox_page(r, alice["id"], after=4000, oldest_first=True).items == []


def test_inbox_conversations_are_those_of_the_inbox_alone(r, friends, carol):
    alice, bob = friends
    direct.set_messages_from(r, bob["id"], "everyone")
    graph.follow(r, bob["id"], carol["id"])
    graph.follow(r, alice["id"], carol["id"])
    pair = send(r, alice, [bob], "to bob", key="a" * 22)
    request = direct.start(r, make_user(r, "stranger")["id"], [fresh(r, bob)], "hi", "s" * 22)
    group = send(r, carol, [alice, bob], "group", key="g" * 22)
    found = direct.inbox_conversations(r, bob["id"], [pair.cid, request.cid, group.cid, 999])
    assert [c.id for c in found] == [group.cid, pair.cid]  # newest activity first
    assert [c.last["message"] for c in found] == ["group", "to bob"]
    assert found[1].unread == 1 and [m["login"] for m in found[1].others] == ["alice"]
    listed = direct.inbox_page(r, bob["id"]).items
    assert [(c.id, c.unread, c.last, c.members) for c in listed] == [
        (c.id, c.unread, c.last, c.members) for c in found
    ]
    direct.leave(r, bob["id"], group.cid)
    direct.delete_for_member(r, bob["id"], pair.cid)
    assert direct.inbox_conversations(r, bob["id"], [pair.cid, group.cid]) == []
    assert direct.inbox_conversations(r, bob["id"], []) == []
