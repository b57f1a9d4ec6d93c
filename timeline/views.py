"""The pages and actions of the social network. Each view: checks, one repository call,
a response. All Redis work happens in socialsite.repository."""

import datetime
import json

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import BadRequest
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from accounts.decorators import login_required, redirect_to_login, verified_email_required
from socialsite.acting import actor_of
from socialsite.actions import Busy, Invalid, NotAllowed, NotFound, Throttled
from socialsite.actions import communities as communities_actions
from socialsite.actions import reading as reading_actions
from socialsite.actions import relations as relation_actions
from socialsite.actions import statuses as statuses_actions
from socialsite.actions import uploads as uploads_actions
from socialsite.connection import get_redis
from socialsite.form_markup import BlankForm
from socialsite.head import is_head
from socialsite.query import page_cursor
from socialsite.redirects import redirect_to_next
from socialsite.repository import (
    conversations,
    entities,
    filters,
    graph,
    likes,
    markers,
    notifications,
    paging,
    reposts,
    statuses,
    suggestions,
    timelines,
    trends,
    visibility,
)
from socialsite.repository.ids import parse_id
from socialsite.repository.limits import SUGGESTIONS_ON_HOME_BELOW
from socialsite.throttling import throttle, too_many_requests

from . import jinja_helpers
from . import top as top_timeline
from .acting_on_users import act_on_user
from .forms import MUTE_DURATIONS, POLL_DRAFT_FIELDS, ReplyForm, StatusForm, mute_until
from .lookups import no_such_status, user_or_404
from .posting_keys import new_posting_key, posting_key_of

# Where a rejected post's text waits to be shown again in the form (Post/Redirect/Get).
DRAFT_SESSION_KEY = "status_draft"
# Said with every refusal of a post that carried images: a browser cannot be given files
# back, so the form comes back without them.
CHOOSE_AGAIN = " Choose your images again: they were not kept."


def _status_id(value):
    """A status id given in a form (``in_reply_to``), or None if it is not one."""
    return parse_id(value.strip())


@require_GET
def home(request, latest=False):
    before = page_cursor(request)  # first: a malformed link must not cost the saved draft
    count = settings.TIMELINE_PAGE_SIZE
    # The page's ids are read with the session and its user: one round trip in all.
    ids_read = timelines.HomeIdsRead(before, count)
    request.session.read_along(ids_read)
    marker_read = markers.HomeMarkerRead()  # the "new since you last read" point, likewise
    request.session.read_along(marker_read)
    if not request.user.is_authenticated:
        return _landing(request, before)
    if not latest and request.user.home_tab == "top":
        # The reader's home opens with Top (their setting, timeline/top.py); Latest is
        # at /latest/. The ids read along with the session cost no round trip.
        return top_timeline.top_page(request)
    draft = request.session.pop(DRAFT_SESSION_KEY, None)
    form = StatusForm(draft) if draft else BlankForm(StatusForm)
    uid = request.user.id
    page = timelines.home_page(get_redis(), uid, before=before, count=count, ids_read=ids_read)
    # The newest page (no cursor) gets live updates; an older page stays as it is.
    context = {"form": form, "page": page, "live": before is None, "posting_key": new_posting_key()}
    if before is None and request.user.following < SUGGESTIONS_ON_HOME_BELOW:
        # Who to follow, for someone following few people: one round trip while their
        # list is cached (suggestions.for_user). Nothing for anyone else.
        context["suggestions"] = suggestions.for_user(get_redis(), uid)
    marker_known = before is None and marker_read.uid == uid
    marker = marker_read.for_user(uid)
    if marker_known and marker is not None:
        context["new_split"], context["new_count"] = unread_above(
            page.items, marker.last_read_id, uid
        )
    response = render(request, "timeline/home.html", context)
    newest = page.items[0]["id"] if page.items else None
    if (
        marker_known
        and newest
        and (marker is None or newest > marker.last_read_id)
        and not is_head(request)
    ):
        # Seeing the newest page marks it read, once rendered (as Mastodon's web app
        # does): one write when there is something new, none on a reload.
        reading_actions.set_home_marker(actor_of(request), newest, current=marker)
    return response


# How many trending tags the landing page shows beside its statuses.
LANDING_TRENDS = 10


def _landing(request, before):
    """A visitor's home page: the site's recent public statuses, as Mastodon shows
    logged-out visitors its public timeline (timelines.public_page: the one visibility
    path, no viewer), with the trending tags and the ways in (sign up, log in). Round
    trips: the public page's (its ids; the statuses and the authors this process has not
    shown lately), the trends' one."""
    r = get_redis()
    page = timelines.public_page(r, before=before, count=settings.TIMELINE_PAGE_SIZE)
    found = trends.trending(r, count=LANDING_TRENDS) if before is None else []
    return render(request, "timeline/landing.html", {"page": page, "trends": found})


def unread_above(items, last_read_id, reader_id):
    """Where the "new since you last read" divider falls in ``items`` (newest first) and
    how many new statuses are above it: (split, count), (0, 0) for no divider. New: above
    the marker and not the reader's own (their post, or their repost, is never news to
    them): the divider goes under the lowest new one, and the reader's own between the
    marker and it fall below it. No divider when nothing is new, or when everything on
    the page is above the marker (the page is all new)."""
    reader = str(reader_id)
    newer = 0
    split = count = 0
    for item in items:
        if int(item["id"]) <= last_read_id:
            break
        newer += 1
        reposter = item.get("reposted_by")
        own = str(item.get("uid")) == reader if not reposter else str(reposter["id"]) == reader
        if not own:
            split, count = newer, count + 1
    if newer >= len(items) or not count:
        return 0, 0
    return split, count


def _posting_refused(request, counted):
    """429 for a post over the statuses throttle: the status form on a page of its own,
    with the text sent and the reason, ready to be sent again once the wait is over
    (with the same posting key: it still posts once)."""
    form = StatusForm(request.POST)
    form.is_valid()
    form.add_error(None, counted.message + (CHOOSE_AGAIN if request.FILES else ""))
    context = {"form": form, "posting_key": posting_key_of(request) or new_posting_key()}
    return too_many_requests(request, counted, "timeline/compose.html", context)


def _keep_draft(request, in_reply_to=""):
    """Keep the text of a post that was refused: the page it returns to (the home page,
    or for a reply the thread's page) shows it again in its form, with its content
    warning and alt texts (its images must be chosen again)."""
    request.session[DRAFT_SESSION_KEY] = {
        "message": request.POST.get("message", ""),
        "location": request.POST.get("location", ""),
        "spoiler_text": request.POST.get("spoiler_text", ""),
        "sensitive": "on" if request.POST.get("sensitive") else "",
        "media_description": request.POST.getlist("media_description")[:4],
        "in_reply_to": in_reply_to,
        # Polls: its options and choices.
        **{name: request.POST.get(name, "") for name in POLL_DRAFT_FIELDS},
    }


def _refused(request, replying, text):
    """A refused post: its text kept, ``text`` said, back to the page it came from."""
    if request.FILES:
        text += CHOOSE_AGAIN
    messages.error(request, text)
    # A reply goes back to its thread, a group's post to its group.
    back = replying or request.POST.get("group")
    return redirect_to_next(request, reverse("home")) if back else redirect("home")


def _form_problems(form):
    """A refused form's errors about what the kept draft cannot show again (its
    images), for the message: the draft's form shows the others itself."""
    return " ".join(str(error) for error in form.errors.get("media", ()))


@require_POST
@throttle("statuses", refused=_posting_refused)
@login_required
@verified_email_required
def post_status(request):
    """Post a status, or with ``in_reply_to`` (a status id) a reply, with up to four
    images (``media``, with ``media_description``) and a content warning; a refused one
    keeps its text (DRAFT_SESSION_KEY) for the page it came from. Images are made before
    the status is written, their files stored, then the status; if it is not written,
    the files are deleted (media/attachments.py). The images are counted toward the
    throttle "media" and made by actions.uploads.prepare_images, the status posted by
    actions.statuses.post (its rules); the verified address and the throttle
    "statuses" are checked here first too (the decorators), before any image is
    decoded."""
    actor = actor_of(request)
    # Each image counted, then made (uploads.prepare_images): its refusal is said as
    # the form's other problems are, below.
    images_refused = None
    try:
        prepared = uploads_actions.prepare_images(actor, request.FILES.getlist("media"))
    except Throttled as refusal:
        return _posting_refused(request, refusal.counted)
    except Invalid as refusal:
        prepared, images_refused = [], refusal
    form = StatusForm(request.POST, request.FILES)
    replying = "in_reply_to" in request.POST
    in_reply_to = _status_id(request.POST.get("in_reply_to", "")) if replying else None
    if replying and in_reply_to is None:
        _keep_draft(request)
        messages.error(
            request, "Your reply was not posted: it does not say which status it replies to."
        )
        return redirect("home")
    if not form.is_valid() or images_refused is not None:
        # A reply goes back to its thread's page (its ``next``), where the form shows it.
        _keep_draft(request, str(in_reply_to) if replying else "")
        problems = images_refused.message if images_refused else _form_problems(form)
        text = f"Your {'reply' if replying else 'status'} was not posted."
        return _refused(request, replying, f"{text} {problems}" if problems else text)
    data = form.cleaned_data
    new = statuses_actions.NewStatus(
        text=data["message"],
        spoiler_text=data["spoiler_text"],
        sensitive=data["sensitive"],
        location=data["location"],
        in_reply_to=in_reply_to,
    )
    group = request.POST.get("group", "").strip() or None  # groups
    try:
        sid = statuses_actions.post(
            actor,
            new,
            images=prepared,
            descriptions=data["media_description"],
            posting_key=posting_key_of(request),
            group=group,
            poll=data["poll"],  # polls
        )
    except NotAllowed as refusal:  # groups: the group refuses it
        _keep_draft(request, str(in_reply_to) if replying else "")
        what = "reply" if replying else "status"
        messages.error(request, f"Your {what} was not posted: {refusal.message}")
        return redirect_to_next(request, reverse("home"))
    except Busy as busy:  # the images' files were not stored: nothing posted
        _keep_draft(request, str(in_reply_to) if replying else "")
        return _refused(request, replying, busy.message)
    except NotFound as missing:  # the status replied to (or the group)
        _keep_draft(request)
        if missing.message == communities_actions.NO_SUCH_GROUP:
            messages.error(request, f"Your status was not posted: {missing.message}")
            return redirect("home")
        return _refused(
            request,
            False,
            "Your reply was not posted: the status it replies to was deleted, or never "
            "existed. Your text is in the form below.",
        )
    except Invalid as refusal:  # a reply across a block (the form checked the rest)
        _keep_draft(request)
        text = f"Your reply was not posted: {refusal.message} Your text is in the form below."
        return _refused(request, False, text)
    if replying:
        messages.success(request, "Your reply is posted.")
        return redirect("status_detail", request.user.login, sid)
    messages.success(request, "Your status is posted.")
    if group:
        return redirect("group", group)
    return redirect("home")


@require_POST
@throttle("deletions")
@login_required
def delete_status(request, status_id):
    statuses_actions.delete(actor_of(request), status_id)
    messages.success(request, "Your status is deleted.")
    return redirect_to_next(request, reverse("profile", args=[request.user.login]))


def joined_month(signup):
    """When an account was made, as its profile says it: "November 2026"."""
    moment = datetime.datetime.fromtimestamp(float(signup), tz=datetime.UTC)
    return f"{moment:%B %Y}"


@require_GET
def profile(request, login):
    before = page_cursor(request)
    user = user_or_404(login)
    r = get_redis()
    viewer = request.user
    # Follows, blocks, mutes and requests between the two, in one round trip.
    rel = visibility.relationship(r, viewer.id, user["id"])
    seen = visibility.statuses_visibility(viewer.id, user, rel)
    page = paging.Page()
    if seen is visibility.Visibility.VISIBLE:
        page = timelines.profile_page(
            r,
            user["id"],
            before=before,
            count=settings.TIMELINE_PAGE_SIZE,
            viewer_id=viewer.id,
            opened=before is None,  # the Top timeline's affinity, riding along
            with_pins=True,  # pinned statuses, above the first page
        )
        # Shown above, not again below (one article per status on a page).
        pinned_ids = frozenset(item["id"] for item in page.pinned)
        page.items = [item for item in page.items if item["id"] not in pinned_ids]
    context = {
        "profile": user,
        "joined": joined_month(user["signup"]),
        "page": page,
        "is_following": rel.following,
        "rel": rel,
        "seen": seen.value,
        "pinned_ids": frozenset(item["id"] for item in page.pinned),
        "mute_durations": MUTE_DURATIONS,
        "mute_until": (
            mute_until(rel.mute_ends, request.user.time_zone) if rel.mute_ends is not None else None
        ),
    }
    # Blocked: the page says so, as a refusal; a private account's card is public.
    status = 403 if seen is visibility.Visibility.BLOCKED else 200
    return render(request, "timeline/profile.html", context, status=status)


def _user_list(request, login, read_page, title):
    user = user_or_404(login)
    page = read_page(
        get_redis(), user["id"], before=page_cursor(request), count=settings.TIMELINE_PAGE_SIZE
    )
    context = {"profile": user, "page": page, "title": title}
    return render(request, "timeline/user_list.html", context)


@require_GET
def followers(request, login):
    return _user_list(request, login, graph.followers_page, "Followers")


@require_GET
def following(request, login):
    return _user_list(request, login, graph.following_page, "Following")


def _mentioned_logins(status):
    """The logins ``status`` mentions, from its ``entities``: Twitter's object
    (``user_mentions``' ``screen_name``) or the packed form (``"m": [[start, end, id]]``,
    spans of the message); none for a status without them, or with something else."""
    try:
        entities = json.loads(status.get("entities") or "{}")
        if "user_mentions" in entities:
            return [str(mention["screen_name"]) for mention in entities["user_mentions"]]
        message = status["message"]
        return [message[start:end].lstrip("@") for start, end, *_ in entities.get("m", ())]
    except (ValueError, TypeError, KeyError, AttributeError):
        return []


def _reply_prefill(status, viewer_login):
    """A reply form's first words: "@author " and the others the status mentions, not
    the viewer, each once."""
    chosen = {}
    for login in [status["author"]["login"], *_mentioned_logins(status)]:
        if login and login.lower() != viewer_login.lower():
            chosen.setdefault(login.lower(), login)
    return "".join(f"@{login} " for login in chosen.values())


@require_GET
def status_detail(request, login, status_id):
    """A status's thread page: its ancestors (up to 40, oldest first), the status, a
    reply form, and its replies, nested (conversations.thread). A fixed number of round
    trips whatever the thread's size: the session's (with the user and unread count),
    then at most five (conversations.thread): tests/test_round_trips.py counts them."""
    after = page_cursor(request, "after")
    thread = conversations.thread(get_redis(), status_id, request.user.id, after=after)
    if thread is None or thread.status["login"].lower() != login.lower():
        raise no_such_status()
    r = get_redis()
    viewer = request.user
    # The author read fresh (the thread's authors may come from memory): whether the
    # account is private now decides who sees it.
    author, rel, reposted = visibility.author_relationship_and_repost(
        r, viewer.id, thread.status["uid"], thread.status["id"]
    )
    if not visibility.sees_statuses_of(viewer.id, author, rel):
        raise no_such_status()
    if thread.status.get("repost_of"):
        # A repost's own id: its page is the original's (which decides who sees it).
        original = statuses.locate(r, thread.status["repost_of"])
        if original is None:
            raise no_such_status()
        return redirect("status_detail", original["login"], original["id"])
    if reposted:
        thread.status["viewer_reposted"] = True
    form = None
    if viewer.is_authenticated:
        draft = request.session.get(DRAFT_SESSION_KEY)
        if draft and draft.get("in_reply_to") == str(thread.status["id"]):
            form = ReplyForm(request.session.pop(DRAFT_SESSION_KEY))
        else:
            form = ReplyForm(initial={"message": _reply_prefill(thread.status, viewer.login)})
    context = {"thread": thread, "form": form, "posting_key": new_posting_key()}
    request.filter_focus = status_id  # keyword filters: the status asked for is shown
    return render(request, "timeline/status_detail.html", context)


@require_GET
def notifications_page(request):
    """The viewer's notifications, newest first, grouped (conversations.notifications_page);
    ``?type=mention`` (or another kind) lists that kind alone. Viewing the first page of
    all of them marks them seen. At most four round trips: the session's (which reads the
    notifications along with the user and unread count), the statuses, the users not
    shown lately, and marking them seen."""
    kind = request.GET.get("type") if request.META.get("QUERY_STRING") else None
    if kind is not None and kind not in notifications.KINDS:
        raise BadRequest(
            f"The page link is malformed: 'type' must be one of {', '.join(notifications.KINDS)}."
        )
    before = page_cursor(request)
    events_read = notifications.EventsRead()
    request.session.read_along(events_read)  # before anything loads the session
    if not request.user.is_authenticated:
        return redirect_to_login(request)
    viewer = request.user
    page = conversations.notifications_page(
        get_redis(),
        viewer.id,
        before=before,
        count=settings.TIMELINE_PAGE_SIZE,
        kind=kind,
        hidden=events_read.hidden_for(viewer.id),
        events=events_read.for_user(viewer.id),
        unread=viewer.notifications,
        mark_seen=not is_head(request),
    )
    viewer.notifications = page.unread  # seen now: the badge shows what is left
    context = {"page": page, "kind": kind, "kinds": notifications.KINDS}
    context["filtered"] = _filter_entries(request, page)  # keyword filters
    return render(request, "timeline/notifications.html", context)


def _filter_entries(request, page):
    """Keyword filters on the notifications page: the entries whose status a hide filter
    matches are left out; {status id: the titles} of those a warn filter matches, whose
    quoted status the page collapses behind them."""
    matcher = jinja_helpers.page_filters(request)
    if matcher is None:
        return {}
    shown = [entry.status for entry in page.entries if entry.status]
    kept, warned = filters.apply(matcher, shown, request.user.id)
    kept_ids = {status["id"] for status in kept}
    page.entries = [
        entry for entry in page.entries if not entry.status or entry.status["id"] in kept_ids
    ]
    return {sid: found.titles for sid, found in warned.items()}


@require_GET
def tag(request, tag):
    """The statuses with hashtag ``tag``, newest first. The tag is compared as
    normalized (NFKC, lower case): another spelling of it is sent to the normalized
    one's URL, the one its links use."""
    normalized = entities.normalize_tag(tag)
    if not entities.is_tag(normalized):
        raise Http404(
            f"There is no tag #{tag[:80]}: a tag is 1 to {entities.MAX_TAG_LENGTH} letters, "
            "digits and underscores, with at least one letter."
        )
    before = page_cursor(request)
    if normalized != tag:
        url = reverse("tag", args=[normalized])
        query = request.META.get("QUERY_STRING")
        return redirect(f"{url}?{query}" if query else url, permanent=True)
    count = settings.TIMELINE_PAGE_SIZE
    page = timelines.tag_page(
        get_redis(), normalized, before=before, count=count, viewer_id=request.user.id,
        with_following=True,  # followed hashtags: the Follow button
    )  # fmt: skip
    return render(request, "timeline/tag.html", {"tag": normalized, "page": page})


FOLLOW_MESSAGES = {
    graph.FollowResult.FOLLOWED: (messages.SUCCESS, "You now follow @{login}."),
    graph.FollowResult.ALREADY_FOLLOWING: (messages.INFO, "You already follow @{login}."),
    graph.FollowResult.UNFOLLOWED: (messages.SUCCESS, "You no longer follow @{login}."),
    graph.FollowResult.NOT_FOLLOWING: (messages.INFO, "You were not following @{login}."),
    graph.FollowResult.REQUESTED: (
        messages.SUCCESS,
        "@{login}'s account is private: you asked to follow them. You will follow them "
        "once they approve.",
    ),
    graph.FollowResult.ALREADY_REQUESTED: (
        messages.INFO,
        "You already asked to follow @{login}; they have not answered yet.",
    ),
    graph.FollowResult.REQUEST_WITHDRAWN: (
        messages.SUCCESS,
        "You withdrew your request to follow @{login}.",
    ),
}


@require_POST
@throttle("follows")
@login_required
def follow(request, login):
    """Follow @login, or ask to (a private account): relation_actions.follow, which
    applies the throttle this decorator counted and the verified-address rule."""
    return act_on_user(request, login, relation_actions.follow, FOLLOW_MESSAGES)


@require_POST
@login_required
def unfollow(request, login):
    """Unfollow @login, or withdraw the request to follow them."""
    return act_on_user(request, login, relation_actions.unfollow, FOLLOW_MESSAGES)


# --- reposts ---------------------------------------------------------------------------

REPOST_MESSAGES = {
    statuses_actions.RepostOutcome.REPOSTED: (messages.SUCCESS, "You reposted the status."),
    statuses_actions.RepostOutcome.ALREADY_REPOSTED: (
        messages.INFO,
        "You had reposted it already.",
    ),
    statuses_actions.RepostOutcome.UNREPOSTED: (messages.SUCCESS, "Your repost is undone."),
    statuses_actions.RepostOutcome.NOT_REPOSTED: (messages.INFO, "You had not reposted it."),
}


@require_POST
@throttle("reposts")
@login_required
def repost(request, status_id):
    """Repost a status (a repost of a repost reposts the original); twice changes nothing."""
    done = statuses_actions.repost(actor_of(request), status_id)
    messages.add_message(request, *REPOST_MESSAGES[done.outcome])
    return redirect_to_next(request, reverse("home"))


@require_POST
@throttle("reposts")
@login_required
def unrepost(request, status_id):
    """Undo one's repost of a status (or of the original a repost shows)."""
    done = statuses_actions.unrepost(actor_of(request), status_id)
    messages.add_message(request, *REPOST_MESSAGES[done.outcome])
    return redirect_to_next(request, reverse("home"))


@require_GET
def reposters(request, login, status_id):
    """Who reposted a status, newest first, paged like the followers list; only for a
    status the viewer may see."""
    before = page_cursor(request)
    r = get_redis()
    # The one path "who liked" takes too (likes.status_likes): a status the viewer may
    # not see is as one that is not there; one whose author they block is seen.
    status, _ = likes.status_for_viewer(r, request.user.id, status_id)
    if status is None or status.get("repost_of") or status["login"].lower() != login.lower():
        raise no_such_status()
    page = reposts.reposters_page(r, status_id, before=before, count=settings.TIMELINE_PAGE_SIZE)
    context = {"profile": status["author"], "page": page, "title": "Reposts of a status"}
    return render(request, "timeline/user_list.html", context)
