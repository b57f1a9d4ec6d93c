"""One action per act, kept by reading the code: no door calls a repository write.

A door (the pages in timeline/ and accounts/, the client API in api/, moderation's
pages, the streaming server, media's view, the site's own views and middleware, and
the management commands a person runs to act as someone) turns its input into an Actor
and calls one action in socialsite/actions/, which applies every rule of the act once
and calls the repository. A door that called a write itself would carry its own copy
of the rules, and copies drift apart.

- WRITES lists, per repository module, the functions that change what users see
  or own (a status, a follow, a block, a list, a report, a setting ...). Reads,
  key builders, parsers and the workers' own steps are not listed: doors may call them.
- A write counts wherever a door names it: ``graph.follow(...)``,
  ``from socialsite.repository.graph import follow``, and ``act=graph.follow`` (a
  write handed to another function to call).
- ALLOWED: the operator's tools over data (backup, bulk import, rebuilds, workers),
  which act as no one.
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Where doors live: every module of these folders, and management commands in them. In
# socialsite/ everything but the repository and the actions is a door (the site's views,
# middleware, jinja2 helpers, management commands). Not read: media/ is a library the
# actions call (it sits below them, beside the repository: its writes are listed in
# MEDIA_WRITES below), except its own view and command; benchmarks/ measures the
# repository and is never installed in the site.
DOOR_FOLDERS = ["timeline", "accounts", "moderation", "api", "streaming", "socialsite"]
DOOR_FILES = ["media/views.py", "media/management/commands/pictures.py"]
NOT_DOORS = ("socialsite/repository/", "socialsite/actions/")

# The repository's writes, per module: what only an action calls. Not listed: reads,
# key builders, parsers, queue_* steps of another write, the workers' steps (fanout,
# jobs, eviction, worker, mail, trends.recompute ...) and the OAuth protocol's own
# writes (issuing and revoking the token a client asks for, in api/oauth_server.py).
WRITES = {
    "statuses": {"post_status", "delete_status", "forget_posting_keys", "edit_status"},
    # Polls (their end, polls.end_due, is the workers' own step).
    "polls": {"vote", "note_end"},
    # Keyword filters (forget is the account deletion's step).
    "filters": {"save_filter", "delete_filter", "forget"},
    # Groups.
    "communities": {
        "create",
        "join",
        "reject",
        "invite",
        "leave",
        "unban",
        "set_admin",
        "set_in_home",
        "edit",
        "set_suspended",
        "delete",
        "record",
        "add_status",
        "remove_status",
        "notify",
        "add_pulled",
        "forget_pulled",
    },
    "graph": {"follow", "unfollow", "notify_follow_requested", "notify_follow_approved"},
    "likes": {"like", "unlike"},
    "bookmarks": {"bookmark", "unbookmark"},
    "pins": {"pin", "unpin"},
    "followed_tags": {"follow", "unfollow"},
    "reposts": {"repost", "unrepost"},
    "blocks": {"block", "unblock", "mute", "unmute", "restore"},
    "privacy": {"set_private", "approve", "reject", "approve_waiting"},
    "direct": {
        "set_messages_from",
        "start",
        "reply",
        "mark_read",
        "mute",
        "accept",
        "delete_for_member",
        "leave",
        "hide_message",
    },
    "lists": {"create_list", "rename_list", "delete_list", "add_member", "remove_member"},
    "moderation": {
        "record",
        "add_moderator",
        "remove_moderator",
        "file_report",
        "dismiss_report",
        "close_reports_about",
        "delete_status",
        "suspend",
        "unsuspend",
    },
    "markers": {"set_home"},
    "notifications": {"mark_read", "unnotify", "recount"},
    "profiles": {"update_profile", "set_theme", "set_top"},
    "users": {"create_user", "change_name", "flag", "set_password_hash", "reserve_login"},
    "emails": {"set_address", "change", "verify", "release"},
    "devices": {"revoke_all"},
    "sessions": {"end_all"},
    "leaving": {"delete_account"},
    "trends": {"hide", "unhide"},
    "uploads": {"add_pending", "describe_pending", "forget_pending"},
    "oauth": {"revoke_user_tokens"},
    "search": {"set_hidden", "set_shown", "rename"},
    "status_search": {"set_indexable", "rebuild"},
}
# media's functions that write (files and the repository together): the actions call
# them as they call the repository. delete_unused deletes the files an act let go (an
# avatar replaced, a status's images): the act's last step.
MEDIA_WRITES = {
    "pictures": {"change_profile", "delete_unused"},
    "attachments": {"post_with_images", "attach_pending", "store_pending", "describe_pending"},
}
# Where each library's modules are: the package, and its writes per module.
LIBRARIES = {"socialsite.repository": WRITES, "media": MEDIA_WRITES}

# Doors that may call writes: the operator's tools over the data, which act as no one
# (workers and rebuilds finishing or redoing what acts began; imports and seeds).
ALLOWED = {
    "socialsite/management/commands/backup.py": "dumps the data, for restore",
    "socialsite/management/commands/restore.py": "loads a backup into an empty database",
    "timeline/management/commands/seed_demo.py": "bulk-imports made-up people for a demo",
    "timeline/management/commands/timelines.py": "rebuilds timelines from the data",
    "timeline/management/commands/search_index.py": "rebuilds the search index",
    "timeline/management/commands/fanout.py": "the fan-out worker: finishes acts begun",
    "media/management/commands/pictures.py": "deletes the files nothing names any more",
}


def _door_files():
    paths = [ROOT / name for name in DOOR_FILES]
    for folder in DOOR_FOLDERS:
        paths += sorted((ROOT / folder).rglob("*.py"))
    for path in paths:
        relative = path.relative_to(ROOT).as_posix()
        if relative.startswith(NOT_DOORS) or "/migrations/" in relative:
            continue
        yield relative, path


def _absolute(node, relative):
    """The module an ImportFrom names, made absolute (``from .x import y`` in a/b.py
    names a.x)."""
    if not node.level:
        return node.module or ""
    package = list(Path(relative).parent.parts)
    base = package[: len(package) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _library_module(dotted):
    """(library, module) for a dotted name of a library's module, else None."""
    library, _, module = dotted.rpartition(".")
    if library in LIBRARIES and module in LIBRARIES[library]:
        return library, module
    return None


def writes_named(source, relative="door.py"):
    """{"module.function"} of the writes ``source`` names: called, imported by name, or
    handed on as a value."""
    tree = ast.parse(source, relative)
    # A local name (or dotted name) -> the library module it stands for.
    modules = {}
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            imported_from = _absolute(node, relative)
            for alias in node.names:
                local = alias.asname or alias.name
                full = f"{imported_from}.{alias.name}"
                if _library_module(full):  # from socialsite.repository import graph
                    modules[local] = _library_module(full)
                elif full in LIBRARIES:  # from socialsite import repository
                    modules.update(
                        {f"{local}.{module}": (full, module) for module in LIBRARIES[full]}
                    )
                elif found_in := _library_module(imported_from):  # ...graph import follow
                    library, module = found_in
                    if alias.name in LIBRARIES[library][module]:
                        found.add(f"{module}.{alias.name}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if _library_module(alias.name):  # import socialsite.repository.graph
                    modules[alias.asname or alias.name] = _library_module(alias.name)
    for node in ast.walk(tree):
        # Any mention, called or not: graph.follow(...), act=graph.follow.
        if isinstance(node, ast.Attribute) and ast.unparse(node.value) in modules:
            library, module = modules[ast.unparse(node.value)]
            if node.attr in LIBRARIES[library][module]:
                found.add(f"{module}.{node.attr}")
    return found


def _violations():
    """{(door file, "module.function")} of every write a door names."""
    found = set()
    for relative, path in _door_files():
        if relative not in ALLOWED:
            found |= {(relative, write) for write in writes_named(path.read_text(), relative)}
    return found


def test_doors_call_actions_not_repository_writes():
    found = sorted(_violations())
    assert not found, (
        "A door calls a repository write: call the act's action in socialsite/actions/ "
        "(which applies the act's rules once) instead:\n"
        + "\n".join(f"{door} names {write}" for door, write in found)
    )


def test_every_listed_write_exists():
    """A write renamed or moved in its library is renamed here too, or the check would
    silently stop looking for it."""
    missing = []
    for library, writes in LIBRARIES.items():
        for module, names in writes.items():
            path = ROOT / Path(*library.split(".")) / f"{module}.py"
            tree = ast.parse(path.read_text(), str(path))
            defined = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
            missing += [f"{library}.{module}.{name}" for name in sorted(names - defined)]
    assert not missing, missing


def test_every_allowed_command_exists():
    assert not [name for name in ALLOWED if not (ROOT / name).exists()]


def test_the_check_finds_writes_however_named():
    """The check can fail: a write called through its module, through a module
    renamed, through the repository package, imported by name, handed on as a value,
    and imported relatively from inside socialsite."""
    source = (
        "from socialsite.repository import graph, likes as l, keys\n"
        "from socialsite.repository.blocks import block, is_blocking\n"
        "from socialsite import repository\n"
        "import socialsite.repository.lists\n"
        "from media import pictures\n"
        "def view(r, request):\n"
        "    graph.follow(r, 1, 2)\n"
        "    l.like(r, 1, 2)\n"
        "    keys.user(1)\n"
        "    graph.is_following(r, 1, 2)\n"
        "    repository.privacy.set_private(r, 1, True)\n"
        "    socialsite.repository.lists.create_list(r, 1, 'x')\n"
        "    pictures.change_profile(r, 1, bio='', website='')\n"
        "    return act_on_user(request, act=graph.unfollow)\n"
    )
    assert writes_named(source) == {
        "graph.follow",
        "graph.unfollow",
        "likes.like",
        "blocks.block",
        "privacy.set_private",
        "lists.create_list",
        "pictures.change_profile",
    }
    relative = "from .repository import reposts\nreposts.repost(r, 1, 2)\n"
    assert writes_named(relative, "socialsite/views.py") == {"reposts.repost"}
    assert writes_named(relative, "timeline/views.py") == set()
