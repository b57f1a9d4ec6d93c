"""The profile_url, status_url and delete_url filters: the links of the status markup,
as reverse() (and so url() in a template) would give them."""

import pytest
from django.template import engines
from django.urls import NoReverseMatch, reverse, set_script_prefix

from socialsite.status_markup import StatusLinks, delete_url, profile_url, status_url


@pytest.fixture
def script_prefix():
    """Serve the site under /social/ for one test (as a proxy might mount it)."""
    set_script_prefix("/social/")
    yield
    set_script_prefix("/")


def status_of(login, sid):
    return {"id": sid, "author": {"login": login}}


@pytest.mark.parametrize("login", ["alice", "Bob_2", "x", "a" * 30])
def test_profile_url_is_what_reverse_gives(login):
    assert profile_url(login) == reverse("profile", args=[login])


@pytest.mark.parametrize(("login", "sid"), [("alice", 1), ("Bob_2", 9_876_543_210_123), ("x", 7)])
def test_status_url_is_what_reverse_gives(login, sid):
    expected = reverse("status_detail", args=[login, sid])
    assert status_url(status_of(login, sid)) == expected


def test_a_login_with_other_characters_goes_through_reverse():
    # Not a login the site allows, but the links must still be exactly reverse()'s.
    login = "é ü?"
    assert profile_url(login) == reverse("profile", args=[login])
    assert status_url(status_of(login, 3)) == reverse("status_detail", args=[login, 3])


def test_it_follows_the_script_prefix(script_prefix):
    assert profile_url("alice") == "/social/@alice/"
    assert status_url(status_of("alice", 5)) == "/social/@alice/5/"


@pytest.mark.parametrize("sid", [1, 9_876_543_210_123, "42"])
def test_delete_url_is_what_reverse_gives(sid):
    assert delete_url(status_of("alice", sid)) == reverse("delete_status", args=[sid])


def test_a_pages_links_give_the_same_urls(script_prefix):
    links = StatusLinks()  # made under the prefix, as a page makes it
    for login in ("alice", "Bob_2", "é ü?"):
        status = status_of(login, 7)
        assert profile_url(login, links) == reverse("profile", args=[login])
        assert status_url(status, links) == reverse("status_detail", args=[login, 7])
        assert delete_url(status, links) == reverse("delete_status", args=[7])
    assert profile_url("alice", links).startswith("/social/")


def test_the_filters_work_in_a_template():
    template = engines["jinja2"].from_string(
        "{{ status.author.login|profile_url }} {{ status|status_url }} {{ status|delete_url }}"
        " {% set links = status_links() %}{{ status.author.login|profile_url(links) }}"
        " {{ status|status_url(links) }} {{ status|delete_url(links) }}"
    )
    rendered = template.render({"status": status_of("alice", 42)})
    assert (
        rendered
        == "/@alice/ /@alice/42/ /statuses/42/delete/ /@alice/ /@alice/42/ /statuses/42/delete/"
    )


def test_a_page_rendered_under_a_script_prefix_has_it_in_every_link(rf, script_prefix):
    # urls, url() and status_links() take the prefix the page's context processor read.
    template = engines["jinja2"].from_string(
        "{{ urls.home }} {{ url('home') }} {{ url('profile', 'alice') }}"
        " {{ status_links().profile('bob') }}"
    )
    assert template.render({}, rf.get("/")) == "/social/ /social/ /social/@alice/ /social/@bob/"
    set_script_prefix("/")
    assert template.render({}, rf.get("/")) == "/ / /@alice/ /@bob/"
    # Without a request (no context processor) they look the prefix up themselves.
    set_script_prefix("/other/")
    assert template.render({}) == "/other/ /other/ /other/@alice/ /other/@bob/"


def test_urls_gives_what_url_gives_and_refuses_an_unknown_name():
    template = engines["jinja2"].from_string(
        "{% for name in names %}{{ urls|attr(name) }} {% endfor %}"
    )
    names = ["home", "login", "logout", "signup", "password_change", "post_status"]
    assert template.render({"names": names}).split() == [reverse(name) for name in names]
    with pytest.raises(NoReverseMatch):
        engines["jinja2"].from_string("{{ urls.no_such_view }}").render({})
    # Names with a leading underscore are the object's own, never view names.
    assert engines["jinja2"].from_string("{{ urls._prefix is defined }}").render({}) == "False"
