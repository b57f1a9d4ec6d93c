"""Named lists: the lists page, a list's timeline and members, and the actions on them
(socialsite.repository.lists). Each view: checks, one repository call, a response (see
views.py).

Lists are their owner's alone: every view reads the logged-in user's own list by its
id, so another user's list id is a plain 404, as a list that does not exist."""

from django.conf import settings
from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.decorators import login_required
from socialsite.connection import get_redis
from socialsite.form_markup import BlankForm
from socialsite.query import page_cursor
from socialsite.repository import limits, lists, users

from .forms import ListMemberForm, ListNameForm

ListResult, MemberResult = lists.ListResult, lists.MemberResult

NAME_REFUSALS = {
    ListResult.EXISTS: "You already have a list named \u201c{name}\u201d.",
    ListResult.FULL: f"You have {limits.LISTS_PER_USER} lists, the most one can have: "
    "delete one before making another.",
}

MEMBER_MESSAGES = {
    MemberResult.ADDED: (messages.SUCCESS, "@{login} is on \u201c{name}\u201d now."),
    MemberResult.ALREADY: (messages.INFO, "@{login} is on \u201c{name}\u201d already."),
    MemberResult.REMOVED: (messages.SUCCESS, "@{login} is off \u201c{name}\u201d now."),
    MemberResult.ABSENT: (messages.INFO, "@{login} was not on \u201c{name}\u201d."),
}

MEMBER_REFUSALS = {
    MemberResult.NOT_FOLLOWING: "You can only add people you follow: follow @{login} first.",
    MemberResult.FULL: f"A list holds at most {limits.LIST_MEMBERS} people.",
    MemberResult.SELF: "Your own statuses are on your home page: a list is for others.",
}


def _list_or_404(request, list_id):
    found = lists.get_list(get_redis(), request.user.id, list_id)
    if found is None:
        raise Http404("You have no such list.")
    return found


def _lists_page(request, form, status=200):
    context = {"lists": lists.get_lists(get_redis(), request.user.id), "form": form,
               "most": limits.LISTS_PER_USER}  # fmt: skip
    return render(request, "timeline/lists.html", context, status=status)


@require_http_methods(["GET", "POST"])
@login_required
def lists_page(request):
    """GET: the user's lists and the form making one. POST ``name``: make a list, and
    go to it; a refusal shows the form again with the name typed and the reason."""
    if request.method == "GET":
        return _lists_page(request, BlankForm(ListNameForm))
    form = ListNameForm(request.POST)
    if not form.is_valid():
        return _lists_page(request, form, status=400)
    name = form.cleaned_data["name"]
    result, list_id = lists.create_list(get_redis(), request.user.id, name)
    if result is ListResult.FULL:
        form.add_error("name", NAME_REFUSALS[result])
        return _lists_page(request, form, status=400)
    if result is ListResult.CREATED:
        messages.success(
            request, f"Your list \u201c{name}\u201d is made: add people you follow to it."
        )
    else:  # EXISTS: the same form sent twice, or a name in use
        messages.info(request, NAME_REFUSALS[result].format(name=name))
    return redirect("list_timeline", list_id)


def _list_timeline(request, list_id, rename_form=None, member_form=None, status=200):
    before = page_cursor(request) if request.method == "GET" else None
    found, page = lists.list_page(
        get_redis(), request.user.id, list_id, before=before, count=settings.TIMELINE_PAGE_SIZE
    )
    if found is None:
        raise Http404("You have no such list.")
    context = {
        "list": found,
        "page": page,
        "rename_form": rename_form or ListNameForm(initial={"name": found["name"]}),
        "member_form": member_form or ListMemberForm(),
        "most_members": limits.LIST_MEMBERS,
    }
    return render(request, "timeline/list.html", context, status=status)


@require_GET
@login_required
def list_timeline(request, list_id):
    """A list's timeline, newest first, paged like the home page, with its newest
    members, the form adding someone and the forms renaming and deleting it."""
    return _list_timeline(request, list_id)


@require_GET
@login_required
def list_members(request, list_id):
    """Everyone on a list, most recently added first, each with a button taking them off."""
    found, page = lists.members_page(
        get_redis(), request.user.id, list_id, before=page_cursor(request),
        count=settings.TIMELINE_PAGE_SIZE,
    )  # fmt: skip
    if found is None:
        raise Http404("You have no such list.")
    return render(request, "timeline/list_members.html", {"list": found, "page": page})


@require_POST
@login_required
def rename_list(request, list_id):
    form = ListNameForm(request.POST)
    if form.is_valid():
        name = form.cleaned_data["name"]
        result = lists.rename_list(get_redis(), request.user.id, list_id, name)
        if result is ListResult.MISSING:
            raise Http404("You have no such list.")
        if result is ListResult.RENAMED:
            messages.success(request, f"The list is named \u201c{name}\u201d now.")
            return redirect("list_timeline", list_id)
        form.add_error("name", NAME_REFUSALS[result].format(name=name))
    return _list_timeline(request, list_id, rename_form=form, status=400)


@require_POST
@login_required
def delete_list(request, list_id):
    found = _list_or_404(request, list_id)
    lists.delete_list(get_redis(), request.user.id, list_id)
    messages.success(request, f"Your list \u201c{found['name']}\u201d is deleted.")
    return redirect("lists")


def _change_member(request, list_id, change):
    """Add someone to a list or take them off (``change``: lists.add_member or
    remove_member); a refusal shows the list's page with the login typed and why."""
    form = ListMemberForm(request.POST)
    if form.is_valid():
        login = form.cleaned_data["login"]
        r = get_redis()
        other = users.get_user_by_login(r, login)
        if other is None or users.is_hidden(other):
            form.add_error("login", f"There is no user @{login}.")
        else:
            result = change(r, request.user.id, list_id, other["id"])
            if result is MemberResult.MISSING:
                raise Http404("You have no such list.")
            if result in MEMBER_REFUSALS:
                form.add_error("login", MEMBER_REFUSALS[result].format(login=other["login"]))
            else:
                found = _list_or_404(request, list_id)
                level, text = MEMBER_MESSAGES[result]
                messages.add_message(
                    request, level, text.format(login=other["login"], name=found["name"])
                )
                back = request.POST.get("back")
                if back == "members":
                    return redirect("list_members", list_id)
                return redirect("list_timeline", list_id)
    return _list_timeline(request, list_id, member_form=form, status=400)


@require_POST
@login_required
def add_to_list(request, list_id):
    return _change_member(request, list_id, lists.add_member)


@require_POST
@login_required
def remove_from_list(request, list_id):
    return _change_member(request, list_id, lists.remove_member)
