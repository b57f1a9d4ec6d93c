"""Polls (socialsite/actions/polls.py, repository/polls.py): posting one through the
API (form fields and JSON) and the page, voting through either door once, the Poll
entity, the visibility path and blocks, concurrent votes counted exactly, and the end
notified once by the workers' sweep even when a sweep dies midway."""

import json
import threading
import time

import pytest
from django.test import Client

from socialsite.actions import Actor, Invalid, NotAllowed, NotFound
from socialsite.actions import polls as poll_actions
from socialsite.actions import statuses as statuses_actions
from socialsite.repository import blocks, keys, notifications, polls, privacy, statuses
from tests.support.helpers import bearer, log_in, make_user


def actor(user):
    return Actor(uid=user["id"], login=user["login"])


def post_poll(user, options=("Tea", "Coffee"), expires_in=300, multiple=False, hide=False):
    new = poll_actions.NewPoll(tuple(options), expires_in, multiple, hide)
    return statuses_actions.post(actor(user), statuses_actions.NewStatus("Which?"), poll=new)


def end_now(r, sid):
    """Move a poll's end to the past (its hash's end and the sweep's list)."""
    status = statuses.get_status(r, sid)
    past = int(time.time() * 1000) - 1000
    r.hset(keys.status(sid), keys.STATUS_POLL_EXPIRES_FIELD, past)
    r.zadd(keys.poll_endings(status["uid"]), {str(sid): past})
    statuses._known.forget(int(sid))
    return past


# --- the rules ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "options, expires_in, message",
    [
        (("Only",), 300, "2 to 4 options"),
        (("a", "b", "c", "d", "e"), 300, "2 to 4 options"),
        (("a", "x" * 51), 300, "at most 50"),
        (("a", " "), 300, "cannot be empty"),
        (("a", "a"), 300, "differ"),
        (("a", "b"), 299, "5 minutes to 7 days"),
        (("a", "b"), 7 * 24 * 3600 + 1, "5 minutes to 7 days"),
    ],
)
def test_a_poll_out_of_its_limits_is_refused_and_nothing_is_posted(
    r, alice, options, expires_in, message
):
    with pytest.raises(Invalid, match=message):
        post_poll(alice, options, expires_in)
    assert statuses.get_status(r, 1) is None


def test_one_vote_per_account_and_the_author_cannot_vote(r, alice, bob):
    sid = post_poll(alice)
    shown = poll_actions.vote(actor(bob), sid, [1])
    assert shown.poll.votes == (0, 1) and shown.poll.voters == 1
    assert shown.own_votes == (1,) and shown.voted
    with pytest.raises(NotAllowed, match="already voted"):
        poll_actions.vote(actor(bob), sid, [0])
    with pytest.raises(NotAllowed, match="your own poll"):
        poll_actions.vote(actor(alice), sid, [0])
    assert poll_actions.show(actor(alice), sid).poll.votes == (0, 1)
    assert poll_actions.show(actor(alice), sid).voted  # the author's own: shown as voted


def test_choices_must_be_the_polls_options(r, alice, bob):
    sid = post_poll(alice)
    with pytest.raises(Invalid, match="one choice"):
        poll_actions.vote(actor(bob), sid, [0, 1])
    with pytest.raises(Invalid, match="not an option"):
        poll_actions.vote(actor(bob), sid, [2])
    with pytest.raises(Invalid, match="Choose"):
        poll_actions.vote(actor(bob), sid, [])
    several = post_poll(alice, ("a", "b", "c"), multiple=True)
    assert poll_actions.vote(actor(bob), several, [0, 2]).poll.votes == (1, 0, 1)


def test_no_vote_after_the_end(r, alice, bob):
    sid = post_poll(alice)
    end_now(r, sid)
    with pytest.raises(Invalid, match="ended"):
        poll_actions.vote(actor(bob), sid, [0])


def test_votes_obey_the_visibility_path_and_blocks(r, alice, bob, carol):
    privacy.set_private(r, alice["id"], True)
    sid = post_poll(alice)
    with pytest.raises(NotFound):  # a private account's status, not followed
        poll_actions.vote(actor(bob), sid, [0])
    with pytest.raises(NotFound):
        poll_actions.show(actor(bob), sid)
    public = post_poll(carol)
    blocks.block(r, carol["id"], bob["id"])
    with pytest.raises(NotFound):  # blocked by the author: as if not there
        poll_actions.vote(actor(bob), public, [0])
    other = post_poll(make_user(r, "dora"))
    dora = statuses.get_status(r, other)["uid"]
    blocks.block(r, bob["id"], dora)
    with pytest.raises(NotAllowed, match="you block"):
        poll_actions.vote(actor(bob), other, [0])
    with pytest.raises(NotFound):  # a status without a poll
        poll_actions.vote(actor(bob), statuses.post_status(r, carol["id"], "no poll"), [0])


def test_concurrent_votes_are_counted_exactly(r, alice):
    sid = post_poll(alice, ("a", "b", "c"), multiple=True)
    voters = [make_user(r, f"voter{n}") for n in range(12)]
    errors = []

    def vote_twice(user, n):
        for choices in ([n % 3], [(n + 1) % 3, n % 3]):
            try:
                polls.vote(r, user["id"], sid, choices, 3)
            except Exception as error:  # noqa: BLE001 - collected for the assert
                errors.append(error)

    threads = [threading.Thread(target=vote_twice, args=(v, n)) for n, v in enumerate(voters)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    found = polls.poll_of(statuses.get_status(r, sid))
    assert found.voters == 12
    assert found.votes == (4, 4, 4)  # each voter's first vote only
    assert r.hlen(keys.poll_votes(sid)) == 12


# --- the end -------------------------------------------------------------------------


def test_the_end_notifies_the_author_and_the_voters_once(r, alice, bob, carol):
    sid = post_poll(alice)
    poll_actions.vote(actor(bob), sid, [0])
    poll_actions.vote(actor(carol), sid, [1])
    assert polls.end_due(r) == []  # not yet
    end_now(r, sid)
    assert polls.end_due(r) == [sid]
    assert polls.end_due(r) == []
    for user in (alice, bob, carol):
        kinds = [event.kind for event in notifications.events(r, user["id"])]
        assert kinds.count("poll") == 1, user["login"]


def test_a_sweep_that_dies_midway_notifies_nobody_twice(r, alice, bob, carol, monkeypatch):
    sid = post_poll(alice)
    poll_actions.vote(actor(bob), sid, [0])
    poll_actions.vote(actor(carol), sid, [1])
    end_now(r, sid)
    monkeypatch.setattr(polls, "VOTERS_PER_BATCH", 1)
    real = polls.scripts.run_pipeline
    calls = []

    def dying(client, fill):
        calls.append(1)
        if len(calls) == 2:  # the worker dies after notifying the author
            raise SystemExit("killed")
        return real(client, fill)

    monkeypatch.setattr(polls.scripts, "run_pipeline", dying)
    with pytest.raises(SystemExit):
        polls.end_due(r)
    monkeypatch.setattr(polls.scripts, "run_pipeline", real)
    assert polls.end_due(r) == [sid]  # another worker's sweep finishes it
    for user in (alice, bob, carol):
        kinds = [event.kind for event in notifications.events(r, user["id"])]
        assert kinds.count("poll") == 1, user["login"]


def test_a_deleted_statuss_poll_ends_without_notifications(r, alice, bob):
    sid = post_poll(alice)
    poll_actions.vote(actor(bob), sid, [0])
    end_now(r, sid)
    statuses_actions.delete(actor(alice), sid)
    assert not r.exists(keys.poll_votes(sid))
    assert polls.end_due(r) == []
    assert r.zcard(keys.poll_endings(alice["id"])) == 0


# --- the client API ------------------------------------------------------------------


def test_the_api_posts_a_poll_as_form_fields(r, alice, token):
    response = Client().post(
        "/api/v1/statuses",
        {"status": "Which?", "poll[options][]": ["Tea", "Coffee", "Juice"],
         "poll[expires_in]": "600", "poll[multiple]": "true"},
        **bearer(token(alice)),
    )  # fmt: skip
    assert response.status_code == 200, response.content
    poll = response.json()["poll"]
    assert [option["title"] for option in poll["options"]] == ["Tea", "Coffee", "Juice"]
    assert poll["multiple"] is True and poll["expired"] is False
    assert poll["votes_count"] == 0 and poll["voted"] is True  # the author's own


def test_the_api_posts_a_poll_as_json_and_votes_once(r, alice, bob, token):
    response = Client().post(
        "/api/v1/statuses",
        json.dumps({"status": "Which?", "poll": {"options": ["a", "b"], "expires_in": 300,
                                                 "hide_totals": True}}),
        content_type="application/json",
        **bearer(token(alice)),
    )  # fmt: skip
    assert response.status_code == 200, response.content
    pid = response.json()["poll"]["id"]
    voted = Client().post(f"/api/v1/polls/{pid}/votes", {"choices[]": ["1"]},
                          **bearer(token(bob)))  # fmt: skip
    assert voted.status_code == 200, voted.content
    poll = voted.json()
    assert poll["voted"] is True and poll["own_votes"] == [1]
    assert poll["votes_count"] == 1 and poll["voters_count"] == 1
    assert [option["votes_count"] for option in poll["options"]] == [None, None]  # hidden
    again = Client().post(
        f"/api/v1/polls/{pid}/votes", json.dumps({"choices": [0]}),
        content_type="application/json", **bearer(token(bob)),
    )  # fmt: skip
    assert again.status_code == 403
    seen = Client().get(f"/api/v1/polls/{pid}", **bearer(token(alice))).json()
    assert seen["votes_count"] == 1
    status = Client().get(f"/api/v1/statuses/{pid}", **bearer(token(bob))).json()
    assert status["poll"]["own_votes"] == [1]
    home = Client().get("/api/v1/timelines/home", **bearer(token(alice))).json()
    assert home[0]["poll"]["voted"] is True
    end_now(r, int(pid))
    ended = Client().get(f"/api/v1/polls/{pid}").json()  # a visitor
    assert ended["expired"] is True and ended["voted"] is False
    assert [option["votes_count"] for option in ended["options"]] == [0, 1]


@pytest.mark.parametrize(
    "fields",
    [
        {"poll[options][]": ["a"], "poll[expires_in]": "300"},
        {"poll[options][]": ["a", "b"], "poll[expires_in]": "soon"},
        {"poll[options][]": ["a", "b"], "poll[expires_in]": "60"},
    ],
)
def test_the_api_refuses_a_poll_out_of_its_limits(r, alice, token, fields):
    response = Client().post("/api/v1/statuses", {"status": "x", **fields}, **bearer(token(alice)))
    assert response.status_code == 422, response.content
    assert "error" in response.json()


def test_the_api_hides_a_poll_it_may_not_see(r, alice, bob, token):
    privacy.set_private(r, alice["id"], True)
    sid = post_poll(alice)
    assert Client().get(f"/api/v1/polls/{sid}", **bearer(token(bob))).status_code == 404
    response = Client().post(f"/api/v1/polls/{sid}/votes", {"choices[]": ["0"]},
                             **bearer(token(bob)))  # fmt: skip
    assert response.status_code == 404


# --- the pages -----------------------------------------------------------------------


def test_the_status_form_posts_a_poll_and_a_reader_votes_on_the_page(r, alice, bob, carol):
    author = log_in(Client(), alice["login"])
    home = author.get("/")
    assert "Add a poll" in home.content.decode()
    response = author.post(
        "/statuses/",
        {"message": "Tea or coffee?", "poll_option_1": "Tea", "poll_option_2": "Coffee",
         "poll_option_3": "", "poll_option_4": "", "poll_expires_in": "3600",
         "posting_key": "k1"},
    )  # fmt: skip
    assert response.status_code == 302
    sid = int(r.zrange(keys.profile(alice["id"]), -1, -1)[0])
    found = polls.poll_of(statuses.get_status(r, sid))
    assert found.options == ("Tea", "Coffee") and not found.multiple
    reader = log_in(Client(), bob["login"])
    page = reader.get(f"/@alice/{sid}/").content.decode()
    assert f'name="choice_{sid}"' in page and "Vote" in page
    voted = reader.post(f"/statuses/{sid}/vote/", {f"choice_{sid}": "1", "next": "/"})
    assert voted.status_code == 302
    assert polls.poll_of(statuses.get_status(r, sid)).votes == (0, 1)
    again = reader.post(f"/statuses/{sid}/vote/", {f"choice_{sid}": "0", "next": "/"}, follow=True)
    assert "already voted" in again.content.decode()
    assert polls.poll_of(statuses.get_status(r, sid)).votes == (0, 1)
    # The author sees the results; a visitor too.
    assert "50%" not in Client().get(f"/@alice/{sid}/").content.decode()
    assert "100%" in Client().get(f"/@alice/{sid}/").content.decode()
    end_now(r, sid)
    assert polls.end_due(r) == [sid]
    notices = reader.get("/notifications/").content.decode()
    assert "ran a poll that has ended" in notices
    assert "Ended" in reader.get(f"/@alice/{sid}/").content.decode()


def test_the_status_form_refuses_a_poll_out_of_its_limits(r, alice):
    author = log_in(Client(), alice["login"])
    response = author.post(
        "/statuses/",
        {"message": "Which?", "poll_option_1": "Only one", "poll_expires_in": "3600",
         "posting_key": "k2"},
        follow=True,
    )  # fmt: skip
    page = response.content.decode()
    assert "2 to 4 options" in page
    assert 'value="Only one"' in page  # kept in the form
    assert r.zcard(keys.profile(alice["id"])) == 0


def test_mastodon_py_posts_a_poll_votes_and_reads_it(r, live_server, settings, alice, bob, token):
    from mastodon import Mastodon

    settings.SITE_URL = live_server.url
    author = Mastodon(access_token=token(alice), api_base_url=live_server.url)
    poll = author.make_poll(["Tea", "Coffee", "Juice"], expires_in=600, multiple=True)
    status = author.status_post("What to drink?", poll=poll)
    assert [option["title"] for option in status["poll"]["options"]] == ["Tea", "Coffee", "Juice"]
    reader = Mastodon(access_token=token(bob), api_base_url=live_server.url)
    voted = reader.poll_vote(status["poll"]["id"], [0, 2])
    assert voted["voted"] is True and voted["own_votes"] == [0, 2]
    assert voted["votes_count"] == 2 and voted["voters_count"] == 1
    assert author.poll(status["poll"]["id"])["options"][2]["votes_count"] == 1


# --- the search index: a poll's options are words of its status --------------------------


def test_a_polls_options_are_found_by_search_and_leave_the_index_with_it(r, alice, bob):
    from socialsite.repository import status_search

    status_search.set_indexable(r, alice["id"], True)
    sid = post_poll(alice, options=("Earl Grey", "Oolong"))
    query = status_search.parse_status_query("oolong")
    found = status_search.search_statuses(r, bob["id"], query)
    assert [status["id"] for status in found.items] == [sid]
    phrase = status_search.parse_status_query('"earl grey"')
    assert [s["id"] for s in status_search.search_statuses(r, bob["id"], phrase).items] == [sid]
    statuses_actions.delete(actor(alice), sid)
    assert status_search.search_statuses(r, bob["id"], query).items == []


def test_a_deleted_accounts_vote_stays_counted_and_it_is_not_notified(r, alice, bob, carol):
    from socialsite.repository import leaving

    sid = post_poll(alice)
    poll_actions.vote(actor(bob), sid, [0])
    poll_actions.vote(actor(carol), sid, [1])
    leaving.delete_account(r, bob["id"])
    end_now(r, sid)
    assert polls.end_due(r) == [sid]
    found = polls.poll_of(statuses.get_statuses(r, [sid])[0])
    assert found.voters == 2 and found.votes == (1, 1)
    assert not r.exists(keys.notifications(bob["id"]))
    assert [e.kind for e in notifications.events(r, carol["id"])].count("poll") == 1


def test_a_reader_who_voted_sees_their_choice_and_others_still_the_form(r, alice, bob, carol):
    from socialsite.repository import graph

    sid = post_poll(alice, options=("Tea", "Coffee", "Juice"), multiple=True)
    for reader in (bob, carol):
        graph.follow(r, reader["id"], alice["id"])
    as_bob, as_carol = log_in(Client(), "bob"), log_in(Client(), "carol")
    for url in ("/", f"/@alice/{sid}/", "/@alice/"):
        assert f'name="choice_{sid}"' in as_bob.get(url).content.decode(), url
    poll_actions.vote(actor(bob), sid, [0, 2])
    for url in ("/", f"/@alice/{sid}/", "/@alice/"):
        page = as_bob.get(url).content.decode()
        assert f'name="choice_{sid}"' not in page and "You voted" in page, url
        assert page.count('class="poll-mine"') == 2, url
        # The markup memory holds both: carol, who has not voted, still gets the form.
        other = as_carol.get(url).content.decode()
        assert f'name="choice_{sid}"' in other and "You voted" not in other, url


def test_a_page_with_open_polls_costs_one_round_trip_more(
    r, client, alice, round_trips, redis_backend
):
    from socialsite.repository import graph
    from tests.test_round_trips import allowed, cost

    reader = make_user(r, "reader")
    log_in(client, "reader")
    graph.follow(r, reader["id"], alice["id"])
    for n in range(5):
        statuses.post_status(r, alice["id"], f"no poll {n}")
    without = cost(client, "/", round_trips)
    for _ in range(3):
        post_poll(alice)
    # The reader's own votes, in one pipeline (on a cluster: one write per node).
    assert 1 <= cost(client, "/", round_trips) - without <= allowed(redis_backend, 1, 1)
