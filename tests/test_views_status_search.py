"""The search page's statuses (/search/?q=...) and the settings page's Search form
(/settings/search/): what a reader finds, a visitor's search, paging, operators, the
setting and its refusals."""

import re

from django.test import Client

from socialsite.repository import blocks, status_search
from tests.support.helpers import csrf_token, log_in, post


def found_ids(response):
    html = response.content.decode()
    match = re.search(r'<section class="search-statuses">(.*?)</section>', html, re.S)
    assert match, "no statuses section"
    return [int(sid) for sid in re.findall(r'data-status-id="(\d+)"', match.group(1))]


def test_a_reader_finds_statuses_by_their_words(r, client, alice, bob):
    status_search.set_indexable(r, bob["id"], True)
    first = post(r, bob, "Green tea at noon")
    second = post(r, bob, "Black tea")
    post(r, bob, "Coffee")
    log_in(client, "alice")
    response = client.get("/search/?q=tea")
    assert response.status_code == 200
    assert found_ids(response) == [second, first]
    assert found_ids(client.get("/search/?q=green+tea")) == [first]
    assert found_ids(client.get('/search/?q="tea+at+noon"')) == [first]
    assert found_ids(client.get("/search/?q=from:bob+black")) == [second]
    # An operator searches statuses alone: no people or tags sections.
    html = client.get("/search/?q=from:bob").content.decode()
    assert 'class="search-people"' not in html and 'class="search-tags"' not in html


def test_a_visitor_finds_people_not_statuses(r, alice, bob):
    status_search.set_indexable(r, bob["id"], True)
    post(r, bob, "Green tea")
    visitor = Client()
    html = visitor.get("/search/?q=tea").content.decode()
    assert 'class="search-statuses"' not in html and "Green tea" not in html
    html = visitor.get("/search/?q=tea&type=statuses").content.decode()
    assert "Log in</a> to search what people wrote" in html


def test_tags_and_people_queries_find_no_statuses(r, client, alice, bob):
    status_search.set_indexable(r, bob["id"], True)
    post(r, bob, "tea #tea")
    log_in(client, "alice")
    for q in ("%23tea", "%40bob"):
        assert 'class="search-statuses"' not in client.get(f"/search/?q={q}").content.decode()


def test_statuses_page_by_cursor(r, client, alice, bob):
    status_search.set_indexable(r, bob["id"], True)
    posted = [post(r, bob, f"chai {n}") for n in range(25)]
    log_in(client, "alice")
    response = client.get("/search/?q=chai")
    assert found_ids(response) == posted[::-1][:20]
    link = re.search(r'rel="next" href="([^"]+)">Older statuses', response.content.decode())
    assert link
    older = client.get(link.group(1).replace("&amp;", "&"))
    assert found_ids(older) == posted[::-1][20:]
    assert client.get("/search/?q=chai&type=statuses&before=x").status_code == 400


def test_blocks_and_mutes_apply_and_bad_operators_say_why(r, client, alice, bob):
    status_search.set_indexable(r, bob["id"], True)
    post(r, bob, "matcha")
    log_in(client, "alice")
    blocks.mute(r, alice["id"], bob["id"])
    assert found_ids(client.get("/search/?q=matcha")) == []
    blocks.unmute(r, alice["id"], bob["id"])
    blocks.block(r, bob["id"], alice["id"])
    assert found_ids(client.get("/search/?q=matcha")) == []
    response = client.get("/search/?q=matcha+has:gifs")
    assert response.status_code == 200
    assert "has:media is the one there is" in response.content.decode()
    assert "common words" in client.get("/search/?q=the+and").content.decode()


def test_the_settings_form_turns_the_setting_on_and_off(r, client, alice, bob):
    sid = post(r, alice, "sencha")
    log_in(client, "alice")
    page = client.get("/settings/")
    html = page.content.decode()
    assert 'id="search-settings"' in html and 'name="indexable" checked' not in html
    client.post("/settings/search/", {"indexable": "on", "csrfmiddlewaretoken": csrf_token(page)})
    assert status_search.is_indexable(r, alice["id"])
    assert 'name="indexable" checked' in client.get("/settings/").content.decode()
    reader = log_in(Client(), "bob")
    assert found_ids(reader.get("/search/?q=sencha")) == [sid]
    client.post("/settings/search/", {"csrfmiddlewaretoken": csrf_token(page)})
    assert not status_search.is_indexable(r, alice["id"])
    assert found_ids(reader.get("/search/?q=sencha")) == []
    assert client.get("/settings/search/").status_code == 405
    assert Client().post("/settings/search/", {"indexable": "on"}).status_code in (302, 403)
