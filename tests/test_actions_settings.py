"""socialsite.actions.settings: the reader's theme, kept on their user hash."""

import pytest

from socialsite.actions import Actor, Invalid, NotFound
from socialsite.actions import settings as settings_actions
from socialsite.repository import keys, users
from tests.support.helpers import make_user


def actor(user):
    return Actor(uid=user["id"], login=user["login"])


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_theme_is_kept_on_the_user_hash_and_system_removes_it(r, alice, theme):
    settings_actions.set_theme(actor(alice), theme)
    assert users.get_user(r, alice["id"])["theme"] == theme
    settings_actions.set_theme(actor(alice), "")
    assert "theme" not in users.get_user(r, alice["id"])


def test_another_theme_is_invalid(r, alice):
    with pytest.raises(Invalid) as refused:
        settings_actions.set_theme(actor(alice), "sepia")
    assert refused.value.field == "theme"
    assert "theme" not in users.get_user(r, alice["id"])


def test_a_gone_account_has_no_theme(r):
    gone = make_user(r, "gone")
    r.delete(keys.user(gone["id"]))
    with pytest.raises(NotFound):
        settings_actions.set_theme(actor(gone), "dark")
