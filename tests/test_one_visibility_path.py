"""One visibility path, kept by reading the code: every status shown goes through
visibility.shown_statuses (or, for one author's statuses, statuses_visibility).

- Views, template helpers and the streaming server never read statuses themselves:
  they call the repository's page functions (timelines.tag_page, conversations.thread,
  ...), which apply the rule.
- In the repository, a function that reads statuses (statuses.get_status,
  get_statuses...) also applies the rule, or is listed below with why it need not: it
  shows nothing to anyone (an action, a count, an export of one's own statuses).

A new page that fetched statuses another way fails here, before anyone sees it.
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REPOSITORY = ROOT / "socialsite" / "repository"
# Where pages, templates' helpers, the client API and the streaming server live.
# socialsite/ is read one level deep (its own modules: views, jinja2 helpers), so its
# packages are named here: the actions (socialsite/actions/) may act only on what the
# actor may see, so they too read a status through a repository function that applies
# the rule (likes.status_for_viewer ...), never statuses.get_status.
FRONT = [ROOT / "timeline", ROOT / "accounts", ROOT / "moderation", ROOT / "socialsite",
         ROOT / "socialsite" / "actions", ROOT / "api", ROOT / "streaming"]  # fmt: skip

# What turns status ids into statuses.
READERS = {
    "get_status",
    "get_statuses",
    "get_statuses_with_replies",
    "get_statuses_and",
    "decode_status",
    "_statuses",
    "_read_or_confirm",
    "_page_of_statuses",
}
# What applies the one rule: a list of many authors' statuses, or one author's.
RULE = {"shown_statuses", "statuses_visibility"}

# Repository functions that read statuses and show none of them to a reader.
NOT_SHOWN = {
    ("statuses", "get_statuses"): "the reader itself",
    ("statuses", "get_statuses_with_replies"): "the reader itself",
    ("statuses", "get_statuses_and"): "the reader itself",
    ("statuses", "_statuses"): "the reader itself",
    ("reposts", "_original_event"): "the repost's event: the streams send public reposts "
    "only (hub.py), live pages send them to the reposter's followers only",
    ("reposts", "repost"): "an action, refused for a status not public or across a block",
    ("reposts", "unrepost"): "an action on one's own repost",
    # Edits: an author always sees their own statuses.
    ("statuses", "edit_status"): "an action on one's own status",
    ("statuses", "own_status"): "the reader's own status, which they always see",
    ("leaving", "export_statuses"): "an export of the reader's own statuses",
    ("moderation", "open_reports_page"): "moderators see reported statuses whatever the rule",
    ("moderation", "delete_status"): "a moderator's action",
    ("status_search", "set_indexable"): "indexes or takes out the author's own statuses: "
    "shows nothing",
    ("status_search", "_index_batch"): "the index's rebuild: shows nothing",
}
# Outside the repository: none may read statuses, except these.
FRONT_ALLOWED = {
    # A live page's event names its author: events come through the reader's follows.
    ("timeline/live.py", "get_authors"),
}


def _functions(tree):
    """(name, node) of each top-level function and method; nested ones count as their
    outer function's."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node.name, node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    yield f"{node.name}.{item.name}", item


def _called(node):
    """The names of what ``node`` calls (``x.f(...)`` and ``f(...)`` both give f)."""
    names = set()
    for call in ast.walk(node):
        if isinstance(call, ast.Call):
            func = call.func
            if isinstance(func, ast.Attribute):
                names.add(func.attr)
            elif isinstance(func, ast.Name):
                names.add(func.id)
    return names


def test_views_helpers_and_streams_never_read_statuses_themselves():
    found = []
    for folder in FRONT:
        files = folder.glob("*.py") if folder.name == "socialsite" else folder.rglob("*.py")
        for path in files:
            relative = path.relative_to(ROOT).as_posix()
            if relative.startswith("socialsite/repository/") or "/migrations/" in relative:
                continue
            tree = ast.parse(path.read_text(), str(path))
            for name in _called(tree) & (READERS | {"get_authors", "hgetall"}):
                if (relative, name) not in FRONT_ALLOWED:
                    found.append(f"{relative} calls {name}")
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and node.module and "statuses" in node.module:
                    imported = {alias.name for alias in node.names}
                    if imported & READERS:
                        found.append(f"{relative} imports {imported & READERS}")
    assert not found, (
        "Show statuses through a repository page function, which applies the "
        "visibility rule (visibility.shown_statuses):\n" + "\n".join(found)
    )


# In the repository, _page_of_statuses is one of the page functions that apply it.
REPOSITORY_READERS = READERS - {"_page_of_statuses"}


def _repository_readers_without_the_rule():
    """{(module, function): what it reads} for each repository function that reads
    statuses and applies no rule."""
    found = {}
    for path in sorted(REPOSITORY.glob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for name, node in _functions(tree):
            called = _called(node)
            if called & REPOSITORY_READERS and not called & RULE:
                found[(path.stem, name)] = sorted(called & REPOSITORY_READERS)
    return found


def test_every_repository_function_that_reads_statuses_applies_the_rule():
    found = [
        f"{module}.{name} reads statuses ({', '.join(read)}) and applies no rule"
        for (module, name), read in _repository_readers_without_the_rule().items()
        if (module, name) not in NOT_SHOWN
    ]
    assert not found, (
        "Pass the statuses through visibility.shown_statuses (or list the function in "
        "NOT_SHOWN with why it shows nothing):\n" + "\n".join(found)
    )


def test_each_exception_is_still_needed():
    """An entry of NOT_SHOWN that names a function that no longer reads statuses
    without the rule (or no longer exists) is taken out."""
    stale = set(NOT_SHOWN) - set(_repository_readers_without_the_rule())
    assert not stale, stale


def test_the_check_finds_a_page_that_forgets_the_rule(tmp_path):
    """The check can fail: a page function that reads statuses and shows them as read."""
    source = (
        "def careless_page(r, ids):\n"
        "    return statuses.get_statuses(r, ids)\n"
        "def careful_page(r, viewer, ids):\n"
        "    return visibility.shown_statuses(r, viewer, statuses.get_statuses(r, ids))\n"
    )
    offenders = [
        name
        for name, node in _functions(ast.parse(source))
        if _called(node) & READERS and not _called(node) & RULE
    ]
    assert offenders == ["careless_page"]
