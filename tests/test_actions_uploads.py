"""The uploads actions (socialsite/actions/uploads.py) called directly, and through both
doors: the client API's media (POST /api/v2/media, PUT /api/v1/media/:id), the status
form's images (POST /statuses/) and the profile's pictures (/settings/profile/ and
PATCH /api/v1/accounts/update_credentials), which count one throttle budget, "media",
one use per picture."""

import io
import time

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from media import attachments, files
from socialsite import throttling
from socialsite.actions import Actor, EmailUnverified, Invalid, NotFound, Throttled
from socialsite.actions import uploads as upload_actions
from socialsite.repository import emails, keys, throttles, uploads
from tests.support.helpers import bearer, log_in, stored_files
from tests.test_media_images import png


def actor(user, counted=None, must_verify_email=False):
    """An Actor of ``user`` whose throttle uses go into ``counted`` (none refused)."""

    def count(name):
        if counted is not None:
            counted.append(name)
        return None

    return Actor(
        uid=user["id"], login=user["login"], must_verify_email=must_verify_email, count=count
    )


def refusing(user, refused_after=0):
    """An Actor of ``user`` whose throttle "media" refuses every use after the first
    ``refused_after``; ``uses`` lists every use asked for."""
    uses = []

    def count(name):
        uses.append(name)
        if len(uses) <= refused_after:
            return None
        now = int(time.time() * 1000)
        verdict = throttles.Verdict(False, 1, 1, now, 3_600_000, "k", "t")
        return throttling.Counted(name, verdict)

    refused = Actor(uid=user["id"], login=user["login"], count=count)
    return refused, uses


def sent(data, name="p.png"):
    return SimpleUploadedFile(name, data, content_type="image/png")


# --- upload and describe -----------------------------------------------------------------


def test_an_upload_is_stored_pending_and_counted_once(r, alice, media_root):
    counted = []
    done = upload_actions.upload(actor(alice, counted), png(), "  A blue\r\nsquare ")
    assert counted == ["media"]
    assert done.media["alt"] == "A blue\nsquare"
    assert done.media["id"] == done.id
    assert attachments.pending_upload(r, alice["id"], done.id)["alt"] == "A blue\nsquare"
    assert len(stored_files(media_root)) == 2  # the original and the preview


def test_an_upload_refused_keeps_nothing(r, alice, media_root):
    with pytest.raises(Invalid, match="the image was refused: ") as refused:
        upload_actions.upload(actor(alice), b"hello, world")
    assert refused.value.field == "file"
    with pytest.raises(Invalid, match="at most 1,500 are kept"):
        upload_actions.upload(actor(alice), png(), "x" * (attachments.ALT_MAX_LENGTH + 1))
    assert uploads.count(r) == 0 and stored_files(media_root) == []


def test_an_upload_needs_a_verified_address_before_its_use_is_counted(r, alice, media_root):
    counted = []
    with pytest.raises(EmailUnverified):
        upload_actions.upload(actor(alice, counted, must_verify_email=True), png())
    assert counted == [] and uploads.count(r) == 0


def test_an_upload_over_the_throttle_is_refused(r, alice, media_root):
    refused, uses = refusing(alice)
    with pytest.raises(Throttled):
        upload_actions.upload(refused, png())
    assert uses == ["media"] and uploads.count(r) == 0


def test_a_storage_failure_is_not_a_refusal(r, alice, media_root, monkeypatch):
    def fail(*args, **kwargs):
        raise files.StorageFailed("down")

    monkeypatch.setattr(files, "save_all", fail)
    with pytest.raises(files.StorageFailed):
        upload_actions.upload(actor(alice), png())
    assert uploads.count(r) == 0


def test_describe_changes_ones_own_pending_upload_only(r, alice, bob, media_root):
    done = upload_actions.upload(actor(alice), png(), "first")
    assert upload_actions.describe(actor(alice), done.id, " second ")["alt"] == "second"
    with pytest.raises(NotFound):
        upload_actions.describe(actor(bob), done.id, "bob's")
    with pytest.raises(NotFound):
        upload_actions.describe(actor(alice), "nosuchupload", "x")
    with pytest.raises(Invalid):
        upload_actions.describe(actor(alice), done.id, "x" * (attachments.ALT_MAX_LENGTH + 1))
    assert attachments.pending_upload(r, alice["id"], done.id)["alt"] == "second"


# --- the status form's images and the profile's pictures -----------------------------------


def test_prepare_images_counts_each_before_decoding_any(alice):
    counted = []
    made = upload_actions.prepare_images(actor(alice, counted), [sent(png()), sent(png((90, 60)))])
    assert counted == ["media", "media"]
    assert [each.original.width for each in made] == [300, 90]
    # A refusal by the throttle comes before any image is read: even a broken one.
    refused, uses = refusing(alice, refused_after=1)
    with pytest.raises(Throttled):
        upload_actions.prepare_images(refused, [sent(png()), sent(b"not an image")])
    assert uses == ["media", "media"]


def test_prepare_images_says_which_image_was_refused(alice):
    with pytest.raises(Invalid, match="^Image 2 was refused: ") as refused:
        upload_actions.prepare_images(actor(alice), [sent(png()), sent(b"not an image")])
    assert refused.value.field == "media"
    with pytest.raises(Invalid, match="^The image was refused: "):
        upload_actions.prepare_images(actor(alice), [sent(b"not an image")])


def test_prepare_images_counts_at_most_four_then_refuses_more(alice):
    counted = []
    five = [sent(png()) for _ in range(attachments.MAX_IMAGES + 1)]
    with pytest.raises(Invalid, match="at most 4 images; you chose 5"):
        upload_actions.prepare_images(actor(alice, counted), five)
    assert counted == ["media"] * attachments.MAX_IMAGES
    assert upload_actions.prepare_images(actor(alice, counted), []) == []


def test_count_pictures_counts_one_use_each(alice):
    counted = []
    upload_actions.count_pictures(actor(alice, counted), 2)
    assert counted == ["media", "media"]
    upload_actions.count_pictures(actor(alice, counted), 0)
    assert counted == ["media", "media"]


# --- both doors: one budget, one rule ------------------------------------------------------


def api_upload(client, headers):
    data = io.BytesIO(png())
    data.name = "p.png"
    return client.post("/api/v2/media", {"file": data}, **headers)


def page_post(client, images):
    return client.post(
        "/statuses/", {"message": "with images", "media": [sent(png()) for _ in range(images)]}
    )


def test_the_status_form_and_the_api_count_one_media_budget(
    r, client, alice, token, settings, media_root
):
    settings.THROTTLES = {**settings.THROTTLES, "media": (4, 3600)}
    headers = bearer(token(alice))
    log_in(client, "alice")
    assert api_upload(client, headers).status_code == 200
    assert page_post(client, 2).status_code == 302  # uses 2 and 3
    assert api_upload(client, headers).status_code == 200  # use 4
    assert api_upload(client, headers).status_code == 429
    assert page_post(client, 1).status_code == 429


def test_profile_pictures_count_toward_media_at_both_doors(
    r, client, alice, token, settings, media_root
):
    settings.THROTTLES = {**settings.THROTTLES, "media": (3, 3600)}
    headers = bearer(token(alice))
    log_in(client, "alice")
    answer = client.post(
        "/settings/profile/",
        {"name": "Alice", "bio": "", "website": "", "avatar": sent(png(), "a.png"),
         "header": sent(png((1500, 500)), "h.png")},
    )  # fmt: skip
    assert answer.status_code == 302  # uses 1 and 2
    patch = client.generic(
        "PATCH",
        "/api/v1/accounts/update_credentials",
        _multipart({"avatar": png()}),
        content_type="multipart/form-data; boundary=BoUnDaRy",
        **headers,
    )
    assert patch.status_code == 200, patch.content  # use 3
    assert api_upload(client, headers).status_code == 429


def _multipart(pictures):
    parts = []
    for field, data in pictures.items():
        parts.append(
            b"--BoUnDaRy\r\nContent-Disposition: form-data; name=\"" + field.encode()
            + b"\"; filename=\"p.png\"\r\nContent-Type: image/png\r\n\r\n" + data + b"\r\n"
        )  # fmt: skip
    return b"".join(parts) + b"--BoUnDaRy--\r\n"


def test_an_unverified_account_spends_no_media_use_at_either_door(
    r, client, alice, token, settings, media_root
):
    """Drift fixed: the API counted an upload of an account that must verify its
    address (then answered 403), where the status form refuses it before counting (its
    decorator); both refuse it now without spending the budget."""
    settings.THROTTLES = {**settings.THROTTLES, "media": (1, 3600)}
    settings.EMAIL_VERIFICATION = "required"
    r.hset(keys.user(alice["id"]), keys.EMAIL_STATE_FIELD, emails.UNVERIFIED)
    headers = bearer(token(alice))
    log_in(client, "alice")
    refused = api_upload(client, headers)
    assert refused.status_code == 403 and "not verified" in refused.json()["error"]
    assert page_post(client, 1).status_code == 403
    r.hset(keys.user(alice["id"]), keys.EMAIL_STATE_FIELD, emails.VERIFIED)
    assert api_upload(client, headers).status_code == 200  # the one use is still there
    assert page_post(client, 1).status_code == 429
