"""Named lists: the lists page, a list's timeline and members, read through
socialsite.repository.lists, and the forms that change them through the lists actions
(socialsite/actions/lists.py), whose refusals they say beside the field.

Lists are their owner's alone: every view reads the logged-in user's own list by its
id, so another user's list id is a plain 404, as a list that does not exist."""

from django.conf import settings
from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.decorators import login_required
from socialsite.acting import actor_of
from socialsite.actions import Invalid, rules
from socialsite.actions import lists as list_actions
from socialsite.connection import get_redis
from socialsite.form_markup import BlankForm
from socialsite.query import page_cursor
from socialsite.repository import limits, lists, users

from .forms import ListMemberForm, ListNameForm

MemberResult = lists.MemberResult

MEMBER_MESSAGES = {
    MemberResult.ADDED: (messages.SUCCESS, "@{login} is on \u201c{name}\u201d now."),
    MemberResult.ALREADY: (messages.INFO, "@{login} is on \u201c{name}\u201d already."),
    MemberResult.REMOVED: (messages.SUCCESS, "@{login} is off \u201c{name}\u201d now."),
    MemberResult.ABSENT: (messages.INFO, "@{login} was not on \u201c{name}\u201d."),
}


def _refused_in(form, refused):
    """Say the action's Invalid ``refused`` in ``form``: beside its field, else above."""
    form.add_error(refused.field if refused.field in form.fields else None, refused.message)


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
    try:
        made = list_actions.create_list(actor_of(request), form.cleaned_data["name"])
    except Invalid as refused:
        _refused_in(form, refused)
        return _lists_page(request, form, status=400)
    if made.created:
        messages.success(
            request, f"Your list \u201c{made.name}\u201d is made: add people you follow to it."
        )
    else:  # the same form sent twice, or a name in use
        messages.info(request, rules.LIST_EXISTS.format(name=made.name))
    return redirect("list_timeline", made.list_id)


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
        try:
            name = list_actions.rename_list(actor_of(request), list_id, form.cleaned_data["name"])
        except Invalid as refused:
            _refused_in(form, refused)
        else:
            messages.success(request, f"The list is named \u201c{name}\u201d now.")
            return redirect("list_timeline", list_id)
    return _list_timeline(request, list_id, rename_form=form, status=400)


@require_POST
@login_required
def delete_list(request, list_id):
    name = list_actions.delete_list(actor_of(request), list_id)
    messages.success(request, f"Your list \u201c{name}\u201d is deleted.")
    return redirect("lists")


def _change_member(request, list_id, change):
    """Add someone to a list or take them off (``change``: list_actions.add_member or
    remove_member); a refusal shows the list's page with the login typed and why."""
    form = ListMemberForm(request.POST)
    if form.is_valid():
        login = form.cleaned_data["login"]
        other = users.get_user_by_login(get_redis(), login)
        if other is None or users.is_hidden(other):
            form.add_error("login", f"There is no user @{login}.")
        else:
            try:
                done = change(actor_of(request), list_id, other["id"])
            except Invalid as refused:
                _refused_in(form, refused)
            else:
                level, text = MEMBER_MESSAGES[done.result]
                messages.add_message(
                    request, level, text.format(login=done.login, name=done.list_name)
                )
                if request.POST.get("back") == "members":
                    return redirect("list_members", list_id)
                return redirect("list_timeline", list_id)
    return _list_timeline(request, list_id, member_form=form, status=400)


@require_POST
@login_required
def add_to_list(request, list_id):
    return _change_member(request, list_id, list_actions.add_member)


@require_POST
@login_required
def remove_from_list(request, list_id):
    return _change_member(request, list_id, list_actions.remove_member)
