"""Followed hashtags: the Follow and Unfollow button of a tag's page. Each view:
one action, a message, back where the form said."""

from django.contrib import messages
from django.urls import reverse
from django.views.decorators.http import require_POST

from accounts.decorators import login_required
from socialsite.acting import actor_of
from socialsite.actions import relations as relation_actions
from socialsite.redirects import redirect_to_next
from socialsite.throttling import throttle


@require_POST
@throttle("follows")
@login_required
def follow(request, tag):
    name = relation_actions.tag_name(tag)
    if relation_actions.follow_tag(actor_of(request), name):
        messages.success(request, f"You now follow #{name}: its public statuses come to your home.")
    else:
        messages.info(request, f"You already follow #{name}.")
    return redirect_to_next(request, reverse("tag", args=[name]))


@require_POST
@throttle("follows")
@login_required
def unfollow(request, tag):
    name = relation_actions.tag_name(tag)
    if relation_actions.unfollow_tag(actor_of(request), name):
        messages.success(request, f"You no longer follow #{name}.")
    else:
        messages.info(request, f"You did not follow #{name}.")
    return redirect_to_next(request, reverse("tag", args=[name]))
