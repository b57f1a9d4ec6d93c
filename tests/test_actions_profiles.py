"""The profile action (socialsite/actions/profiles.py) called directly, and its two doors,
the profile page (/settings/profile/) and the client API's update_credentials, giving
the same outcome for the same change."""

import html as html_module
import io
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.test.client import BOUNDARY, MULTIPART_CONTENT, encode_multipart

from socialsite.actions import Actor, Invalid, NotFound
from socialsite.actions.profiles import ProfileChange, ProfileSaved, update_profile
from socialsite.repository import entities, keys, leaving, profiles, users
from tests.support.helpers import bearer, log_in, make_user
from tests.test_media_images import png

URL = "/settings/profile/"
API = "/api/v1/accounts/update_credentials"


def actor(user):
    return Actor(uid=user["id"], login=user["login"])


def saved(r, user):
    return users.get_user(r, user["id"])


# --- the action -------------------------------------------------------------------------


def test_it_saves_the_name_bio_and_website(r, alice, media_root):
    change = ProfileChange(name=" Alice L. ", bio=" Hi\r\nthere ", website="https://a.example/")
    assert update_profile(actor(alice), change) == ProfileSaved(True, True)
    user = saved(r, alice)
    assert user["name"] == "Alice L."
    assert user[keys.BIO_FIELD] == "Hi\nthere"
    assert user[keys.WEBSITE_FIELD] == "https://a.example/"


def test_what_is_not_given_is_kept(r, alice, media_root):
    update_profile(actor(alice), ProfileChange(bio="Kept", website="https://a.example/"))
    same_name = ProfileChange(name="Alice L.")
    assert update_profile(actor(alice), same_name) == ProfileSaved(True, False)
    user = saved(r, alice)
    assert user[keys.BIO_FIELD] == "Kept" and user[keys.WEBSITE_FIELD] == "https://a.example/"
    assert update_profile(actor(alice), same_name) == ProfileSaved(False, False)


def test_a_picture_is_decoded_and_stored(r, alice, media_root):
    update_profile(actor(alice), ProfileChange(avatar=png(), header=png((1800, 900))))
    user = saved(r, alice)
    assert user[keys.AVATAR_FIELD] and user[keys.AVATAR_SMALL_FIELD] and user[keys.HEADER_FIELD]
    update_profile(actor(alice), ProfileChange(remove_avatar=True))
    user = saved(r, alice)
    assert not user.get(keys.AVATAR_FIELD) and user[keys.HEADER_FIELD]


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        (ProfileChange(name="  ", bio="after"), "name", "This field is required."),
        (ProfileChange(name="x" * 51, bio="after"), "name", "at most 50 characters (it has 51)"),
        (ProfileChange(name="\u202eevil", bio="after"), "name", "direction controls"),
        (ProfileChange(bio="x" * 501), "bio", "A bio is at most 500 characters; this one has 501."),
        (ProfileChange(bio="a\x00b"), "bio", "Null characters are not allowed."),
        (ProfileChange(website="ftp://a.example/", bio="after"), "website", "http:// or https://"),
        (ProfileChange(avatar=b"<html>no picture</html>", bio="after"), "avatar", ""),
        (ProfileChange(header=png(), remove_header=True, bio="after"), "remove_header", "not both"),
    ],
)
def test_refusals_change_nothing(r, alice, media_root, change, field, words):
    with pytest.raises(Invalid) as refused:
        update_profile(actor(alice), change)
    assert refused.value.field == field and words in refused.value.message
    user = saved(r, alice)
    assert user["name"] == "Alice Liddell" and not user.get(keys.BIO_FIELD)


def test_an_account_gone_is_not_found(r, alice, media_root):
    leaving.delete_account(r, alice["id"])
    with pytest.raises(NotFound):
        update_profile(actor(alice), ProfileChange(bio="too late"))


# --- the doors --------------------------------------------------------------------------


def page_form(**fields):
    return {"name": "Alice Liddell", "bio": "", "website": "", **fields}


def page_refusals(response):
    """What the profile page says is wrong: its fields' errors and the form's."""
    text = response.content.decode()
    found = re.findall(r'<span class="field-error" role="alert">([^<]*)</span>', text)
    block = re.search(r'<div class="form-errors" role="alert">(.*?)</div>', text, re.S)
    if block:
        found += re.findall(r"<li>([^<]*)</li>", block.group(1))
    return [html_module.unescape(one) for one in found]


def api_patch(client, user_token, fields):
    return client.patch(
        API, encode_multipart(BOUNDARY, fields), content_type=MULTIPART_CONTENT,
        **bearer(user_token),
    )  # fmt: skip


def api_refusal(response):
    assert response.status_code == 422, response.content
    return response.json()["error"].removeprefix("Validation failed: ")


@pytest.fixture
def doors(r, alice, token, media_root):
    """alice's two doors: the profile page (a logged-in test client) and the API
    (PATCH update_credentials with a token)."""
    return log_in(Client(), "alice"), Client(), token(alice)


def mentioned_ids(r, user):
    user = saved(r, user)
    bio = user.get(keys.BIO_FIELD, "")
    found = entities.unpack(bio, user.get(keys.BIO_ENTITIES_FIELD))
    return [mention["id"] for mention in found["user_mentions"]]


@pytest.mark.parametrize("door", ["page", "api"])
def test_saving_the_same_bio_links_who_signed_up_since(r, alice, doors, door):
    """Drift fixed: the page wrote the bio on every save, so a mention of someone who
    signed up since became a link; the API skipped the write when the note had not
    changed, and the link never came. Now both write the bio they are sent."""
    page, api, alice_token = doors

    def send():
        if door == "page":
            return page.post(URL, page_form(bio="Waiting for @dinah"))
        return api_patch(api, alice_token, {"note": "Waiting for @dinah"})

    assert send().status_code in (200, 302)
    assert mentioned_ids(r, alice) == []
    dinah = make_user(r, "dinah")
    assert send().status_code in (200, 302)
    assert mentioned_ids(r, alice) == [dinah["id"]]


REFUSED = [
    # (the page's form fields, the API's, what both say is wrong)
    ({"bio": "x" * 501}, {"note": "x" * 501}, "A bio is at most 500 characters; this one has 501."),
    ({"name": "\u202eevil"}, {"display_name": "\u202eevil"}, "direction controls"),
    ({"name": "x" * 51}, {"display_name": "x" * 51}, "at most 50 characters (it has 51)"),
    ({"name": ""}, {"display_name": ""}, "This field is required."),
]


@pytest.mark.parametrize(("page_fields", "api_fields", "words"), REFUSED)
def test_both_doors_refuse_in_the_same_words(r, alice, doors, page_fields, api_fields, words):
    page, api, alice_token = doors
    response = page.post(URL, page_form(**page_fields))
    assert response.status_code == 400
    (said,) = page_refusals(response)
    assert words in said
    assert api_refusal(api_patch(api, alice_token, api_fields)) == said
    assert saved(r, alice)["name"] == "Alice Liddell" and not saved(r, alice).get(keys.BIO_FIELD)


def test_a_file_that_is_no_picture_is_refused_alike(r, alice, doors):
    page, api, alice_token = doors
    data = b"<html>not a picture</html>"
    response = page.post(URL, page_form(avatar=SimpleUploadedFile("x.png", data, "image/png")))
    assert response.status_code == 400
    said = page_refusals(response)
    assert said[-1].startswith("Your profile was not saved.")
    upload = io.BytesIO(data)
    upload.name = "x.png"
    assert api_refusal(api_patch(api, alice_token, {"avatar": upload})) == said[0]
    assert not saved(r, alice).get(keys.AVATAR_FIELD)


def test_the_api_changes_the_name_whatever_the_stored_bio(r, alice, doors):
    """Bug fixed: update_credentials sent the stored bio and website through the page's
    form along with what the client sent, so a bio stored before a rule (longer than
    BIO_MAX_LENGTH, from an import) refused every change with a 422 about a field the
    client never sent. The action checks what it is given."""
    _, api, alice_token = doors
    profiles.update_profile(r, alice["id"], {keys.BIO_FIELD: "x" * 600})
    answer = api_patch(api, alice_token, {"display_name": "Alice L."})
    assert answer.status_code == 200, answer.content
    assert saved(r, alice)["name"] == "Alice L." and saved(r, alice)[keys.BIO_FIELD] == "x" * 600
