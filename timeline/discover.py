"""Finding people and topics: trending tags (/explore/) and who to follow
(/explore/people/, and on the home page of someone following few people). The
repository does the work: trends.py, suggestions.py."""

from django.shortcuts import render
from django.views.decorators.http import require_GET

from accounts.decorators import login_required
from socialsite.connection import get_redis
from socialsite.repository import suggestions, trends


@require_GET
def explore(request):
    """The trending tags, best first: each with its distinct users today and a link to
    its page. Public, the same for everyone (the tag pages apply who may see what).
    One round trip besides the session's."""
    return render(request, "timeline/explore.html", {"trends": trends.trending(get_redis())})


@require_GET
@login_required
def explore_people(request):
    """Who to follow: up to 10 people, each with a follow button that comes back here.
    One round trip besides the session's while the list is cached (five minutes),
    five when it is made."""
    found = suggestions.for_user(get_redis(), request.user.id)
    return render(request, "timeline/explore_people.html", {"suggestions": found})
