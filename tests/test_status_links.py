"""The profile_url and status_url filters: the links of the status markup, as {% url %}
would give them."""

import pytest
from django.template import Context, Template
from django.urls import reverse, set_script_prefix

from timeline.templatetags.timeline_extras import profile_url, status_url


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


def test_the_filters_work_in_a_template():
    template = Template(
        "{% load timeline_extras %}{{ status.author.login|profile_url }} {{ status|status_url }}"
    )
    rendered = template.render(Context({"status": status_of("alice", 42)}))
    assert rendered == "/@alice/ /@alice/42/"
