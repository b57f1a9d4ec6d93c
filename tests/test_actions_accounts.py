"""The accounts app's actions (socialsite/actions/accounts.py) called directly: leaving
the site. (Its one door, /settings/delete/, is tests/test_views_leaving.py's.)"""

import pytest

from socialsite.actions import Actor, NotFound
from socialsite.actions import accounts as account_actions
from socialsite.actions.profiles import ProfileChange, update_profile
from socialsite.repository import graph, users, worker
from tests.support.helpers import post, stored_files
from tests.test_media_images import png


def actor(user):
    return Actor(uid=user["id"], login=user["login"])


def test_deleting_hides_the_account_at_once_and_its_pictures_files_go(r, alice, bob, media_root):
    update_profile(actor(alice), ProfileChange(avatar=png(), header=png((1800, 900))))
    assert len(stored_files(media_root)) == 3
    graph.follow(r, bob["id"], alice["id"])
    post(r, alice, "goodbye")
    done = account_actions.delete_account(actor(alice))
    assert done in (account_actions.Deletion.DONE, account_actions.Deletion.UNDER_WAY)
    assert users.get_user_id(r, "alice") is None
    assert stored_files(media_root) == []
    worker.work_until_idle(r)
    assert users.get_user(r, alice["id"]) is None
    with pytest.raises(NotFound):
        account_actions.delete_account(actor(alice))  # a retry: gone already


def test_a_small_account_is_gone_before_the_action_returns(r, alice):
    assert account_actions.delete_account(actor(alice)) is account_actions.Deletion.DONE
