"""The client API's media and conversations (docs/api.md "## Media and conversations"):
an image uploaded first (POST /api/v2/media, through the status form's own pipeline)
and attached by ``media_ids[]``; direct messages as Mastodon's conversations and
"direct" statuses, with the pages' rules. Mastodon.py against a live server for the
flows, direct HTTP for each error and scope."""

import io
import json
import time

import pytest
from django.conf import settings as django_settings
from django.core.files.storage import default_storage
from mastodon import Mastodon
from mastodon.errors import MastodonAPIError, MastodonNotFoundError
from PIL import Image

from media import attachments, images
from socialsite.repository import (
    blocks,
    direct,
    graph,
    keys,
    moderation,
    statuses,
    uploads,
)
from tests.support.helpers import bearer, make_user, stored_files
from tests.test_media_images import jpeg_cut_and_closed, jpeg_with_gps, png, png_bomb


def upload(client, headers, data=None, name="photo.png", **fields):
    sent = io.BytesIO(png() if data is None else data)
    sent.name = name
    return client.post("/api/v2/media", {"file": sent, **fields}, **headers)


def status_text_in(client, headers, path, text):
    return text in client.get(path, **headers).content.decode()


# --- media: upload, read, describe ----------------------------------------------------------


def test_an_upload_is_re_encoded_without_exif_and_read_back(client, alice, token, media_root):
    headers = bearer(token(alice))
    answer = upload(client, headers, jpeg_with_gps(), name="p.jpg", description="A red square")
    assert answer.status_code == 200, answer.content
    media = answer.json()
    assert media["type"] == "image" and media["description"] == "A red square"
    assert media["meta"]["original"] == {
        "width": 1200, "height": 800, "size": "1200x800", "aspect": 1.5,
    }  # fmt: skip
    assert media["meta"]["small"]["width"] < 1200 and media["blurhash"]
    assert media["url"].startswith("http://testserver/media/attachments/")
    stored = media_root / media["url"].partition("/media/")[2]
    with Image.open(stored) as image:
        assert not image.getexif()  # the GPS position is gone
    assert client.get(f"/api/v1/media/{media['id']}", **headers).json() == media
    changed = client.put(
        f"/api/v1/media/{media['id']}",
        json.dumps({"description": "Red"}),
        content_type="application/json",
        **headers,
    )
    assert changed.status_code == 200 and changed.json()["description"] == "Red"
    as_form = client.put(
        f"/api/v1/media/{media['id']}",
        "description=Redder",
        content_type="application/x-www-form-urlencoded",
        **headers,
    )
    assert as_form.json()["description"] == "Redder"
    assert client.get(f"/api/v1/media/{media['id']}", **headers).json()["description"] == "Redder"


def test_an_upload_refused_says_why(client, alice, bob, token, media_root):
    headers = bearer(token(alice))
    refused = {
        "no file": client.post("/api/v2/media", {"description": "x"}, **headers),
        "not an image": upload(client, headers, b"<html><script>1</script>", name="x.png"),
        "too many pixels": upload(client, headers, png_bomb()),
        "cut and closed": upload(client, headers, jpeg_cut_and_closed(), name="x.jpg"),
        "cut and closed, v1": client.post(
            "/api/v1/media", {"file": io.BytesIO(jpeg_cut_and_closed())}, **headers
        ),
        "alt too long": upload(client, headers, description="x" * 1501),
    }
    for why, answer in refused.items():
        assert answer.status_code == 422, why
        assert answer.json()["error"].startswith("Validation failed: "), why
    assert stored_files(media_root) == []
    for path in ("/api/v2/media", "/api/v1/statuses"):  # a multipart body that does not read
        broken = client.post(path, b"--", content_type="multipart/form-data", **headers)
        assert broken.status_code == 422
        assert broken.json() == {"error": "The multipart body does not read"}
    assert upload(client, bearer(token(alice, ["read"]))).status_code == 403
    assert upload(client, {}).status_code == 401
    mine = upload(client, headers).json()["id"]
    theirs = bearer(token(bob))
    assert client.get(f"/api/v1/media/{mine}", **theirs).status_code == 404
    put = client.put(f"/api/v1/media/{mine}", "description=x",
                     content_type="application/x-www-form-urlencoded", **theirs)  # fmt: skip
    assert put.status_code == 404
    for bad in ("no.pe", "x" * 65):
        assert client.get(f"/api/v1/media/{bad}", **headers).json() == {"error": "Record not found"}


def test_an_upload_too_big_or_not_stored_keeps_nothing(
    r, client, alice, token, media_root, monkeypatch
):
    headers = bearer(token(alice))
    monkeypatch.setattr(images, "MAX_BYTES", 2000)
    too_big = upload(client, headers, jpeg_with_gps(), name="p.jpg")
    assert too_big.status_code == 422 and "an image may be at most" in too_big.json()["error"]
    monkeypatch.undo()

    def failing_save(name, content, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(default_storage, "save", failing_save)
    failed = upload(client, headers)
    assert failed.status_code == 503 and "try again" in failed.json()["error"]
    assert uploads.count(r) == 0 and stored_files(media_root) == []


def test_an_unverified_address_may_not_upload_or_message(r, client, alice, bob, token, settings,
                                                         media_root):  # fmt: skip
    graph.follow(r, bob["id"], alice["id"])
    settings.EMAIL_VERIFICATION = "required"
    r.hset(keys.user(alice["id"]), keys.EMAIL_STATE_FIELD, "unverified")
    headers = bearer(token(alice))
    for answer in (upload(client, headers), direct_post(client, headers, "@bob hi")):
        assert answer.status_code == 403 and "not verified" in answer.json()["error"]
    assert uploads.count(r) == 0


def test_uploads_count_against_throttle_media(client, alice, token, settings, media_root):
    settings.THROTTLES = {**settings.THROTTLES, "media": (2, 3600)}
    headers = bearer(token(alice))
    codes = [upload(client, headers).status_code for _ in range(3)]
    assert codes == [200, 200, 429]


# --- media: attached by media_ids[] ---------------------------------------------------------


def test_media_ids_attach_only_ones_own_pending_uploads_at_most_four(
    r, client, alice, bob, token, media_root
):
    headers = bearer(token(alice))
    ids = [upload(client, headers, description=f"n{n}").json()["id"] for n in range(5)]
    bobs = upload(client, bearer(token(bob))).json()["id"]

    def post_with(media_ids, status="With images"):
        return client.post(
            "/api/v1/statuses", {"status": status, "media_ids[]": media_ids}, **headers
        )

    assert post_with(ids).status_code == 422  # five
    for wrong in ([bobs], ["nosuchupload"], [ids[0], bobs]):
        answer = post_with(wrong)
        assert answer.status_code == 422 and "no such media" in answer.json()["error"]
    as_json = client.post(
        "/api/v1/statuses",
        json.dumps({"status": "No images", "media_ids": None}),
        content_type="application/json",
        **headers,
    )
    assert as_json.status_code == 200 and as_json.json()["media_attachments"] == []
    posted = post_with(ids[:2], status="")  # images alone, no text
    assert posted.status_code == 200, posted.content
    shown = posted.json()["media_attachments"]
    assert [m["id"] for m in shown] == ids[:2]
    assert [m["description"] for m in shown] == ["n0", "n1"]
    assert all(m["blurhash"] and m["type"] == "image" for m in shown)
    again = client.get(f"/api/v1/statuses/{posted.json()['id']}", **headers).json()
    assert again["media_attachments"] == shown
    # Attached: no longer an upload to read, describe or attach again.
    assert client.get(f"/api/v1/media/{ids[0]}", **headers).status_code == 404
    assert post_with([ids[0]]).status_code == 422
    assert uploads.get_pending(r, alice["id"], ids[:2]) == {}
    assert set(uploads.get_pending(r, alice["id"], ids)) == set(ids[2:])


def test_the_same_idempotency_key_posts_images_once(client, alice, token, media_root):
    headers = {**bearer(token(alice)), "HTTP_IDEMPOTENCY_KEY": "k"}
    media_id = upload(client, headers).json()["id"]
    sent = {"status": "Once", "media_ids[]": [media_id]}
    first = client.post("/api/v1/statuses", sent, **headers)
    again = client.post("/api/v1/statuses", sent, **headers)
    assert again.status_code == 200 and again.json()["id"] == first.json()["id"]
    assert again.json()["media_attachments"] == first.json()["media_attachments"]


def test_an_upload_past_its_age_is_not_attached(r, client, alice, token, media_root, settings):
    headers = bearer(token(alice))
    media_id = upload(client, headers).json()["id"]
    time.sleep(0.01)
    settings.MEDIA_PENDING_MAX_AGE = 0
    answer = client.post(
        "/api/v1/statuses", {"status": "late", "media_ids[]": [media_id]}, **headers
    )
    assert answer.status_code == 422
    assert client.get(f"/api/v1/media/{media_id}", **headers).status_code == 404
    # ... and the sweep deletes its files.
    assert attachments.sweep_pending(r) == 1
    assert stored_files(media_root) == []


# --- conversations --------------------------------------------------------------------------


def direct_post(client, headers, text, **fields):
    return client.post(
        "/api/v1/statuses", {"status": text, "visibility": "direct", **fields}, **headers
    )


def test_a_direct_status_starts_and_continues_a_conversation(r, client, alice, bob, carol, token):
    graph.follow(r, bob["id"], alice["id"])  # bob takes messages from those he follows
    graph.follow(r, alice["id"], bob["id"])
    a, b = bearer(token(alice)), bearer(token(bob))
    sent = direct_post(client, a, "@bob a secret")
    assert sent.status_code == 200, sent.content
    message = sent.json()
    assert message["visibility"] == "direct" and message["id"].startswith("dm-")
    assert message["mentions"][0]["acct"] == "bob" and "a secret" in message["content"]
    (listed,) = client.get("/api/v1/conversations", **b).json()
    assert listed["unread"] is True and [x["acct"] for x in listed["accounts"]] == ["alice"]
    assert listed["last_status"]["id"] == message["id"]
    reply = direct_post(client, b, "@alice back", in_reply_to_id=message["id"]).json()
    cid = int(listed["id"])
    assert reply["id"].startswith(f"dm-{cid}-")
    # A second message from alice to bob alone continues the conversation of the two.
    third = direct_post(client, a, "@bob again").json()
    assert third["id"].startswith(f"dm-{cid}-")
    read = client.post(f"/api/v1/conversations/{cid}/read", **b).json()
    assert read["unread"] is False and read["last_status"]["id"] == third["id"]
    assert direct.unread(r, bob["id"]).count == 0  # the pages' badge too
    assert client.get(f"/api/v1/statuses/{reply['id']}", **a).json()["content"] == reply["content"]
    for outsider in (bearer(token(carol)), {}):
        assert client.get(f"/api/v1/statuses/{reply['id']}", **outsider).status_code == 404
    assert (
        client.post(f"/api/v1/conversations/{cid}/read", **bearer(token(carol))).status_code == 404
    )
    assert client.delete(f"/api/v1/conversations/{cid}", **b).json() == {}
    assert client.get("/api/v1/conversations", **b).json() == []
    assert client.get(f"/api/v1/statuses/{reply['id']}", **b).status_code == 404  # cleared
    assert [c["id"] for c in client.get("/api/v1/conversations", **a).json()] == [str(cid)]


def test_deleting_a_direct_status_deletes_it_for_the_caller_alone(r, client, alice, bob, carol,
                                                                 token):  # fmt: skip
    graph.follow(r, bob["id"], alice["id"])
    a, b, c = bearer(token(alice)), bearer(token(bob)), bearer(token(carol))
    sent = direct_post(client, a, "@bob delete me").json()
    assert client.delete(f"/api/v1/statuses/{sent['id']}", **c).status_code == 404
    deleted = client.delete(f"/api/v1/statuses/{sent['id']}", **b)
    assert deleted.status_code == 200 and deleted.json()["text"] == "@bob delete me"
    assert client.get(f"/api/v1/statuses/{sent['id']}", **b).status_code == 404
    assert client.get(f"/api/v1/statuses/{sent['id']}", **a).status_code == 200
    assert client.delete(f"/api/v1/statuses/{sent['id']}", **b).status_code == 404


def test_a_groups_last_message_by_a_member_who_left_names_them(r, client, alice, bob, carol,
                                                               token):  # fmt: skip
    graph.follow(r, bob["id"], alice["id"])
    graph.follow(r, carol["id"], alice["id"])
    a, c = bearer(token(alice)), bearer(token(carol))
    sent = direct_post(client, a, "@bob @carol all of us").json()
    cid = int(sent["id"].split("-")[1])
    direct_post(client, c, "bye", in_reply_to_id=sent["id"])
    direct.leave(r, carol["id"], cid)
    (listed,) = client.get("/api/v1/conversations", **bearer(token(bob))).json()
    assert [account["acct"] for account in listed["accounts"]] == ["alice"]
    assert listed["last_status"]["account"]["acct"] == "carol"


def test_a_direct_status_is_refused_as_the_pages_refuse_a_message(
    r, client, alice, bob, carol, token, settings, media_root
):
    a = bearer(token(alice))
    graph.follow(r, bob["id"], alice["id"])

    def refusal(answer, code=422):
        assert answer.status_code == code, answer.content
        return answer.json()["error"]

    assert "mention someone" in refusal(direct_post(client, a, "to nobody"))
    assert "mention someone" in refusal(direct_post(client, a, "@alice me"))
    assert "no user @nosuch" in refusal(direct_post(client, a, "@nosuch hi"))
    assert "only from people they follow" in refusal(direct_post(client, a, "@carol hi"))
    assert "no user @nosuch" in refusal(direct_post(client, a, "@bob @nosuch hi"))
    media_id = upload(client, a).json()["id"]
    assert "no images" in refusal(direct_post(client, a, "@bob hi", **{"media_ids[]": [media_id]}))
    assert "content warning" in refusal(direct_post(client, a, "@bob hi", spoiler_text="cw"))
    public = statuses.post_status(r, bob["id"], "public")
    assert "replies only to a direct" in refusal(
        direct_post(client, a, "@bob hi", in_reply_to_id=str(public))
    )
    blocks.block(r, bob["id"], alice["id"])
    assert "a block" in refusal(direct_post(client, a, "@bob hi"))
    blocks.unblock(r, bob["id"], alice["id"])
    graph.follow(r, bob["id"], alice["id"])  # a block ended the follow
    sent = direct_post(client, a, "@bob hi")
    assert sent.status_code == 200, sent.content
    sent = sent.json()
    cid = int(sent["id"].split("-")[1])
    assert refusal(direct_post(client, bearer(token(carol)), "@alice hi",
                               in_reply_to_id=sent["id"]), 404) == "Record not found"  # fmt: skip
    moderation.suspend(r, bob["id"])
    assert "cannot message" in refusal(
        direct_post(client, a, "@bob again", in_reply_to_id=sent["id"])
    )
    assert client.get(f"/api/v1/conversations/{cid + 1}", **a).status_code == 405
    assert refusal(client.delete(f"/api/v1/conversations/{cid + 1}", **a), 404)
    assert refusal(client.delete("/api/v1/conversations/x", **a), 404)


def test_direct_statuses_count_against_throttle_messages(r, client, alice, bob, token, settings):
    graph.follow(r, bob["id"], alice["id"])
    settings.THROTTLES = {**settings.THROTTLES, "messages": (2, 3600)}
    a = bearer(token(alice))
    codes = [direct_post(client, a, f"@bob n{n}").status_code for n in range(3)]
    assert codes == [200, 200, 429]
    settings.THROTTLES = {**settings.THROTTLES, "messages": (100, 3600), "conversations": (0, 3600)}
    assert direct_post(client, a, "@bob once more").status_code == 429


def test_conversations_ask_mastodons_scopes(r, client, alice, bob, token):
    graph.follow(r, bob["id"], alice["id"])
    sent = direct_post(client, bearer(token(alice)), "@bob hi").json()
    cid = sent["id"].split("-")[1]
    reader = bearer(token(bob, ["read:statuses"]))
    assert client.get("/api/v1/conversations", **reader).status_code == 200
    assert client.get(f"/api/v1/statuses/{sent['id']}", **reader).status_code == 200
    assert client.post(f"/api/v1/conversations/{cid}/read", **reader).status_code == 403
    assert client.delete(f"/api/v1/conversations/{cid}", **reader).status_code == 403
    writer = bearer(token(bob, ["write:conversations"]))
    assert client.get("/api/v1/conversations", **writer).status_code == 403
    assert client.post(f"/api/v1/conversations/{cid}/read", **writer).status_code == 200
    assert (
        client.get("/api/v1/conversations", **bearer(token(bob, ["read:accounts"]))).status_code
        == 403
    )
    assert client.get("/api/v1/conversations").status_code == 401
    uploader = bearer(token(alice, ["write:media"]))
    assert upload(client, uploader).status_code == 200
    assert direct_post(client, uploader, "@bob hi").status_code == 403


def test_a_direct_message_reaches_no_timeline_of_the_api(r, client, alice, bob, carol, token):
    graph.follow(r, bob["id"], alice["id"])
    graph.follow(r, carol["id"], alice["id"])
    a, b, c = bearer(token(alice)), bearer(token(bob)), bearer(token(carol))
    direct_post(client, a, "@bob zqsecret #zqtag")
    for headers in (a, b, c):
        for path in (
            "/api/v1/timelines/home",
            "/api/v1/timelines/public",
            "/api/v1/timelines/tag/zqtag",
            f"/api/v1/accounts/{alice['id']}/statuses",
            "/api/v1/notifications",
        ):
            assert not status_text_in(client, headers, path, "zqsecret"), path
    assert status_text_in(client, b, "/api/v1/conversations", "zqsecret")
    assert not status_text_in(client, c, "/api/v1/conversations", "zqsecret")


def test_the_conversations_cost_round_trips_not_per_conversation(
    r, client, alice, token, round_trips, redis_backend
):
    headers = bearer(token(alice))
    costs = []
    for count in (2, 12):
        for n in range(count):
            # A group whose last message is from someone who left it since.
            other = make_user(r, f"friend{count}x{n}")
            leaver = make_user(r, f"leaver{count}x{n}")
            graph.follow(r, alice["id"], other["id"])
            graph.follow(r, leaver["id"], other["id"])
            sent = direct.start(r, other["id"], [alice, leaver], f"hi {n}", f"k{count}x{n}")
            direct.reply(r, sent.cid, leaver["id"], "bye", f"b{count}x{n}")
            direct.leave(r, leaver["id"], sent.cid)
        client.get("/api/v1/conversations", **headers)  # names remembered
        before = round_trips["n"]
        assert len(client.get("/api/v1/conversations?limit=40", **headers).json()) >= count
        costs.append(round_trips["n"] - before)
    if redis_backend.cluster:
        # A pipeline costs one round trip per node it reaches (three here): the
        # conversations' keys are in their own slots, on more nodes as there are more.
        assert costs[1] <= 1 + 3 * 3, costs
    else:
        # The token, the ids, the conversations, the leavers' names (members' remembered).
        assert costs[0] == costs[1] <= 5, costs


def conversations_at(r, alice, count):
    """``count`` conversations of ``alice`` (each with a friend of hers), the n-th last
    active at 1000 * (n + 1) ms: their ids, oldest first."""
    cids = []
    for n in range(count):
        friend = make_user(r, f"pen{n}")
        graph.follow(r, friend["id"], alice["id"])
        cids.append(direct.start(r, alice["id"], [friend], f"hi {n}", f"k{n}", 1000 * (n + 1)).cid)
    return cids


def link_of(response, rel):
    """The path and query of ``response``'s Link header's ``rel`` link, or None."""
    for link in (response.get("Link") or "").split(", "):
        url, _, kind = link.partition("; ")
        if kind == f'rel="{rel}"':
            return "/" + url.strip("<>").split("/", 3)[3]
    return None


def test_conversations_are_paged_by_since_id_and_min_id(r, client, alice, token):
    cids = conversations_at(r, alice, 5)
    headers = bearer(token(alice))

    def ids(path):
        response = client.get(path, **headers)
        assert response.status_code == 200, response.content
        return [int(c["id"]) for c in response.json()], response

    newest, response = ids("/api/v1/conversations?limit=2")
    assert newest == [cids[4], cids[3]]
    assert link_of(response, "next") == "/api/v1/conversations?limit=2&max_id=4000"
    assert link_of(response, "prev") == "/api/v1/conversations?limit=2&min_id=5000"
    # since_id: the newest above it; min_id: the ones just above it, newest first.
    assert ids("/api/v1/conversations?limit=2&since_id=1000")[0] == [cids[4], cids[3]]
    assert ids("/api/v1/conversations?since_id=3000")[0] == [cids[4], cids[3]]
    above, response = ids("/api/v1/conversations?limit=2&min_id=1000")
    assert above == [cids[2], cids[1]]
    assert ids("/api/v1/conversations?limit=2&min_id=1000&max_id=3000")[0] == [cids[1]]
    # Following the prev links from the oldest walks every conversation up, once each.
    seen, path = [], "/api/v1/conversations?limit=2&min_id=0"
    while path is not None:
        page, response = ids(path)
        seen.extend(reversed(page))
        path = link_of(response, "prev") if page else None
    assert seen == cids
    assert ids("/api/v1/conversations?since_id=5000")[0] == []
    assert ids(f"/api/v1/conversations?min_id={'9' * 20}")[0] == []
    for bad in ("since_id=x", "min_id=-1"):
        refused = client.get(f"/api/v1/conversations?{bad}", **headers)
        assert refused.status_code == 422 and "must be a number" in refused.json()["error"]


def test_the_same_idempotency_key_sends_a_direct_status_once(r, client, alice, bob, token):
    graph.follow(r, bob["id"], alice["id"])
    headers = {**bearer(token(alice)), "HTTP_IDEMPOTENCY_KEY": "once"}
    first = direct_post(client, headers, "@bob once").json()
    again = direct_post(client, headers, "@bob once").json()
    assert again["id"] == first["id"]
    assert len(direct.conversation_page(r, bob["id"], int(first["id"].split("-")[1])).messages) == 1


# --- Mastodon.py, against a live server --------------------------------------------------


@pytest.fixture
def mastodon(live_server, settings, token):
    settings.SITE_URL = live_server.url

    def client(user):
        return Mastodon(access_token=token(user), api_base_url=live_server.url)

    return client


def test_mastodon_py_uploads_posts_with_media_and_converses(r, mastodon, alice, bob, media_root):
    graph.follow(r, bob["id"], alice["id"])
    a, b = mastodon(alice), mastodon(bob)
    media = a.media_post(io.BytesIO(png()), mime_type="image/png", description="Blue")
    assert media["type"] == "image" and media["blurhash"]
    media = a.media_update(media, description="Bluer")
    assert media["description"] == "Bluer"
    posted = a.status_post("With a picture", media_ids=[media])
    (shown,) = posted["media_attachments"]
    assert shown["id"] == media["id"] and shown["description"] == "Bluer"
    assert b.timeline_home()[0]["media_attachments"][0]["url"] == shown["url"]
    with pytest.raises(MastodonAPIError):
        a.status_post("Again", media_ids=[media])  # attached already
    message = a.status_post("@bob just us", visibility="direct")
    assert message["visibility"] == "direct"
    (conversation,) = b.conversations()
    assert conversation["unread"] and conversation["last_status"]["id"] == message["id"]
    assert conversation["accounts"][0]["acct"] == "alice"
    b.status_post("@alice yes", visibility="direct", in_reply_to_id=message["id"])
    assert b.conversations_read(conversation["id"])["unread"] is False
    assert a.status(message["id"])["content"] == message["content"]
    assert [s["id"] for s in b.timeline_home()] == [posted["id"]]
    with pytest.raises(MastodonNotFoundError):
        mastodon(alice).status("dm-999-1")
    assert django_settings.SITE_URL  # the entities' links are the live server's


def test_mastodon_py_pages_conversations_both_ways(r, mastodon, alice):
    cids = [str(cid) for cid in conversations_at(r, alice, 5)]
    a = mastodon(alice)
    page = a.conversations(limit=2)
    assert [c["id"] for c in page] == cids[:2:-1]
    older = a.fetch_next(page)
    assert [c["id"] for c in older] == [cids[2], cids[1]]
    newer = a.fetch_previous(older)
    assert [c["id"] for c in newer] == [cids[4], cids[3]]
    assert [c["id"] for c in a.conversations(min_id=1000, limit=2)] == [cids[2], cids[1]]
    assert [c["id"] for c in a.conversations(since_id=1000, limit=2)] == [cids[4], cids[3]]
