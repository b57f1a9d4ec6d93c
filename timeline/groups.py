"""Groups ("communities" in code: docs/decisions/0067): /groups/ (one's groups and the
directory), /groups/new/, a group's page /g/<slug>/ with its timeline and post form, and
the forms of its members and admins, each calling one act of
socialsite/actions/communities.py. A group a person may not see is a plain 404."""

from django import forms
from django.conf import settings
from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.decorators import login_required
from socialsite.acting import actor_of
from socialsite.actions import Invalid
from socialsite.actions import communities as group_actions
from socialsite.connection import get_redis
from socialsite.form_markup import BlankForm
from socialsite.query import page_cursor
from socialsite.repository import communities

from .forms import StatusForm
from .posting_keys import new_posting_key
from .views import DRAFT_SESSION_KEY

KIND_CHOICES = [
    ("public", "Public: anyone reads it and joins it"),
    ("private", "Private: members alone read it; admins approve who joins"),
    ("announcement", "Announcement: anyone reads and joins it; admins post, members reply"),
]
JOIN_MESSAGES = {
    group_actions.JoinResult.JOINED: "You are a member of this group now.",
    group_actions.JoinResult.MEMBER: "You are a member of this group already.",
    group_actions.JoinResult.REQUESTED: "You asked to join: the group's admins will decide.",
}


class GroupForm(forms.Form):
    name = forms.CharField(label="Name", max_length=group_actions.NAME_MAX_LENGTH)
    description = forms.CharField(
        label="Description",
        required=False,
        max_length=group_actions.DESCRIPTION_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    kind = forms.ChoiceField(label="Kind", choices=KIND_CHOICES)


class NewGroupForm(GroupForm):
    slug = forms.CharField(
        label="Address: /g/…/",
        max_length=30,
        help_text="1 to 30 letters, digits or underscores, as a login name.",
    )
    field_order = ["name", "slug", "description", "kind"]


class LoginForm(forms.Form):
    login = forms.CharField(label="Login name", max_length=31)


def _refused_in(form, refused):
    form.add_error(refused.field if refused.field in form.fields else None, refused.message)


def _group_or_404(request, slug):
    """The group and the viewer's standing, as group_actions sees them (404 if the
    viewer may not see it)."""
    community, standing = communities.by_slug(get_redis(), slug, request.user.id)
    return _live_or_404(request, community, standing)


def _live_or_404(request, community, standing):
    """``community`` and ``standing`` if the viewer may see the group (404 if not)."""
    actor = actor_of(request) if request.user.is_authenticated else None
    if community is None or community.get("deleted"):
        raise Http404(group_actions.NO_SUCH_GROUP)
    if community.get("suspended") and not (actor is not None and actor.is_moderator):
        raise Http404(group_actions.NO_SUCH_GROUP)
    return community, standing


@require_GET
def groups_page(request):
    """The groups one belongs to, and the directory (``q``: search by name)."""
    query = request.GET.get("q", "")[:100]
    # The ids of the reader's groups and of the directory's are read with the session
    # (communities.GroupsRead); then the groups, one round trip more.
    read = communities.GroupsRead(query)
    request.session.read_along(read)
    mine, found = read.page(get_redis(), request.user.id)
    context = {"mine": mine, "found": found, "query": query}
    return render(request, "groups/groups.html", context)


@require_http_methods(["GET", "POST"])
@login_required
def new_group(request):
    if request.method == "GET":
        return render(request, "groups/new.html", {"form": NewGroupForm()})
    form = NewGroupForm(request.POST)
    if form.is_valid():
        data = form.cleaned_data
        try:
            made = group_actions.create(
                actor_of(request), data["slug"], data["name"], data["description"], data["kind"]
            )
        except Invalid as refused:
            _refused_in(form, refused)
        else:
            messages.success(request, "Your group is made: invite people, or post first.")
            return redirect("group", made.slug)
    return render(request, "groups/new.html", {"form": form}, status=400)


@require_GET
def group(request, slug):
    """A group's page: what it is, its timeline for those who may read it (anyone for a
    public or announcement group, members for a private one), the post form for those
    who may post, and the admins' forms."""
    before = page_cursor(request)
    # The group, the reader's standing and the page's ids are read with the session and
    # its user (communities.GroupPageRead): then the statuses, one round trip more.
    read = communities.GroupPageRead(slug, before, settings.TIMELINE_PAGE_SIZE)
    request.session.read_along(read)
    r = get_redis()
    read.run(r, request.user.id)
    community, standing = _live_or_404(request, read.community, read.standing)
    readable = community["kind"] != "private" or standing.member
    page = None
    if readable:
        page = communities.page_of(
            r, community["id"], read.pairs, read.next_cursor, viewer_id=request.user.id,
            member=standing.member,
        )  # fmt: skip
    may_post = standing.member and not community.get("suspended")
    top_level = may_post and (community["kind"] != "announcement" or standing.admin)
    # A post the group refused comes back here with its text (views.post_status).
    draft = request.session.pop(DRAFT_SESSION_KEY, None) if top_level else None
    context = {
        "group": community,
        "standing": standing,
        "page": page,
        "may_post": top_level,
        "form": StatusForm(draft) if draft else BlankForm(StatusForm),
        "posting_key": new_posting_key(),
        # Live updates on the newest page, for a reader logged in (static/js/live.js).
        "live": before is None and readable and request.user.is_authenticated,
    }
    return render(request, "groups/group.html", context)


@require_POST
@login_required
def join(request, slug):
    result = group_actions.join(actor_of(request), slug)
    messages.success(request, JOIN_MESSAGES[result])
    return redirect("group", slug)


@require_POST
@login_required
def leave(request, slug):
    if group_actions.leave(actor_of(request), slug):
        messages.success(request, "You left the group.")
    return redirect("group", slug)


@require_POST
@login_required
def in_home(request, slug):
    on = request.POST.get("in_home") == "on"
    group_actions.set_in_home(actor_of(request), slug, on)
    messages.success(
        request,
        "The group's statuses come to your home."
        if on
        else "The group's statuses stay on its page, out of your home.",
    )
    return redirect("group", slug)


def _admin_page(request, slug):
    community, standing = _group_or_404(request, slug)
    if not standing.admin:
        raise Http404(group_actions.NO_SUCH_GROUP)
    return community


@require_GET
@login_required
def requests_page(request, slug):
    community = _admin_page(request, slug)
    r = get_redis()
    context = {
        "group": community,
        "requests": communities.people(r, community["id"], "requests"),
        "members": communities.people(r, community["id"], "members"),
        "admins": {person["id"] for person in communities.people(r, community["id"], "admins")},
        "banned": communities.people(r, community["id"], "banned"),
        "log": communities.log_page(r, community["id"]),
        "edit_form": GroupForm(initial={k: community[k] for k in ("name", "description", "kind")}),
    }
    return render(request, "groups/admin.html", context)


@require_POST
@login_required
def decide(request, slug, login, decision):
    if decision not in ("approve", "reject"):
        raise Http404("No such decision.")
    group_actions.decide_request(actor_of(request), slug, login, decision == "approve")
    messages.success(
        request, f"@{login} is a member now." if decision == "approve" else "Request rejected."
    )
    return redirect("group_requests", slug)


def _login_act(request, slug, act, text):
    form = LoginForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Give a login name.")
        return redirect("group", slug)
    try:
        login = act(actor_of(request), slug, form.cleaned_data["login"])
    except Invalid as refused:
        messages.error(request, refused.message)
    else:
        messages.success(request, text.format(login=login))
    return redirect_back(request, slug)


def redirect_back(request, slug):
    if request.POST.get("back") == "admin":
        return redirect("group_requests", slug)
    return redirect("group", slug)


@require_POST
@login_required
def invite(request, slug):
    return _login_act(request, slug, group_actions.invite, "@{login} is invited.")


def _promote(actor, slug, login):
    return group_actions.set_admin(actor, slug, login, True)


def _demote(actor, slug, login):
    return group_actions.set_admin(actor, slug, login, False)


def _remove(actor, slug, login):
    return group_actions.remove_member(actor, slug, login, False)


def _ban(actor, slug, login):
    return group_actions.remove_member(actor, slug, login, True)


MEMBER_ACTS = {
    "promote": (_promote, "@{login} is an admin now."),
    "demote": (_demote, "@{login} is no longer an admin."),
    "remove": (_remove, "@{login} is removed."),
    "ban": (_ban, "@{login} is banned."),
    "unban": (group_actions.unban, "@{login} may join again."),
}


@require_POST
@login_required
def member_act(request, slug, act):
    if act not in MEMBER_ACTS:
        raise Http404("No such act.")
    done, text = MEMBER_ACTS[act]
    return _login_act(request, slug, done, text)


@require_POST
@login_required
def remove_status(request, slug, status_id):
    group_actions.remove_status(actor_of(request), slug, status_id)
    messages.success(request, "The status is off the group's timeline.")
    return redirect("group", slug)


@require_POST
@login_required
def edit(request, slug):
    form = GroupForm(request.POST)
    if not form.is_valid():
        messages.error(request, "The group was not changed: give it a name and a kind.")
        return redirect("group_requests", slug)
    data = form.cleaned_data
    try:
        done = group_actions.edit(
            actor_of(request), slug, data["name"], data["description"], data["kind"],
            confirmed=request.POST.get("confirm") == "yes",
        )  # fmt: skip
    except Invalid as refused:
        messages.error(request, refused.message)
        return redirect("group_requests", slug)
    if not done:
        context = {"group": _admin_page(request, slug), "data": data}
        return render(request, "groups/confirm_public.html", context)
    messages.success(request, "The group is changed.")
    return redirect("group", slug)


@require_POST
@login_required
def delete(request, slug):
    name = group_actions.delete(actor_of(request), slug)
    messages.success(request, f"The group \u201c{name}\u201d is deleted.")
    return redirect("groups")


@require_POST
@login_required
def suspend(request, slug):
    on = request.POST.get("suspended") != "off"
    group_actions.suspend(actor_of(request), slug, on)
    messages.success(request, "The group is suspended." if on else "The group is back.")
    return redirect("group", slug)
