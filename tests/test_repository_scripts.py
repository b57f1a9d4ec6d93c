"""Every Lua script against its Python wrapper (repository/scripts.py), and the key
formats: built in keys.py, and in Lua only by lua/_keys.lua, which must agree with it."""

import ast
import inspect
import re
import tokenize
from pathlib import Path

import pytest
from redis.crc import key_slot

from socialsite.repository import keys, scripts

ROOT = Path(__file__).resolve().parent.parent
LUA_DIR = scripts.LUA_DIR

# Three followers in one shard (3 mod keys.USER_SHARDS), as fan-out groups them.
GROUP = [3, 3 + keys.USER_SHARDS, 3 + 2 * keys.USER_SHARDS]

# Parameters for each wrapper: one call per way it can shape its keys.
SAMPLES = {
    "add_edge": [
        {"follower": 1, "followed": 2, "now_ms": 5, "side": "following"},
        {"follower": 1, "followed": 2, "now_ms": 5, "side": "followers"},
    ],
    "remove_edge": [{"follower": 1, "followed": 2}],
    "follow_check": [{"uid": 1, "other": 2, "now_ms": 5, "approved": False}],
    "unfollow": [
        {"uid": 1, "followed": 2, "now_ms": 5, "items": ["7", "9/8/4"], "originals": [8]},
        {"uid": 1, "followed": 2, "now_ms": 5, "items": [], "originals": []},
    ],
    "backfill": [
        {"uid": 1, "followed": 2, "now_ms": 5, "items": ["7", "9/8/4/2"], "originals": [8]},
        {"uid": 1, "followed": None, "now_ms": 5, "items": ["7"], "originals": []},
    ],
    "take_out": [{"uid": 1, "author": 2, "items": ["7", "9/8/4"], "originals": [8]}],
    "set_block": [{"uid": 1, "other": 2, "now_ms": 5, "action": "block", "side": "blocker"}],
    "set_mute": [{"uid": 1, "other": 2, "now_ms": 5, "action": "mute", "ends_ms": 9}],
    "add_own_status": [
        {"uid": 1, "sid": 7, "now_ms": 5, "conversation": False},
        {"uid": 1, "sid": 7, "now_ms": 5, "conversation": True, "parent": 6, "replied_to": 2},
        {"uid": 1, "sid": 7, "now_ms": 5, "conversation": False, "pull_at": 9, "push_below": 8},
    ],
    "remove_own_status": [{"uid": 1, "sid": 7}],
    "add_reply": [{"parent": 6, "sid": 7}],
    "remove_reply": [{"parent": 6, "sid": 7}],
    "add_repost": [{"uid": 1, "orig": 6, "rid": 7, "author": 2, "now_ms": 5}],
    "remove_own_repost": [{"uid": 1, "orig": 6}, {"uid": 1, "orig": 6, "rid": 7}],
    "status_count": [
        {"sid": 7, "uid": 1, "kind": "likes", "action": "add", "now_ms": 5},
        {"sid": 7, "uid": 1, "kind": "reposts", "action": "remove"},
    ],
    "mark_like": [{"uid": 1, "sid": 7, "now_ms": 5}],
    "poll_vote": [{"sid": 7, "uid": 1, "choices": [0, 2], "options": 3, "now_ms": 5}],
    "mark_bookmark": [{"uid": 1, "sid": 7, "now_ms": 5}],
    "pin_status": [{"uid": 1, "sid": 7, "now_ms": 5, "most": 5}],
    "edit_status": [
        {"sid": 7, "uid": 1, "edited": "", "now_ms": 5, "most": 20, "fields": {"message": "x"}}
    ],
    "deliver": [
        {"author": 2, "sid": 7, "followers": GROUP, "now_ms": 5},
        {"author": 2, "sid": 7, "followers": GROUP, "now_ms": 5, "replied_to": 4},
    ],
    "deliver_repost": [
        {"reposter": 2, "rid": 9, "orig": 7, "orig_author": 4, "followers": GROUP, "now_ms": 5}
    ],
    "remove_repost": [
        {"rid": 9, "orig": 7, "orig_author": 4, "reposter": 2, "followers": GROUP, "purge": True}
    ],
    "list_remove_status": [{"sid": 7, "author": 2, "followers": GROUP}],
    "home_page": [
        {"uid": 1, "before": None, "count": 31, "now_ms": 5},
        {"uid": 1, "before": 99, "count": 31, "now_ms": 5, "with_likes": True},
        {"uid": 1, "before": None, "count": 31, "now_ms": 5, "list_id": 3},
        {"uid": 1, "before": 99, "count": 31, "now_ms": 5, "with_likes": True, "merge": True},
        {"uid": 1, "before": None, "count": 31, "now_ms": 5, "merge": True},
        {"uid": 1, "before": None, "count": 31, "now_ms": 5, "list_id": 3, "merge": True},
        {"uid": 1, "before": 99, "count": 31, "now_ms": 5, "merge": True, "above": 7},
        {"uid": 1, "before": None, "count": 31, "now_ms": 5, "list_id": 3, "above": 7},
    ],
    "create_list": [{"uid": 1, "name": "friends", "limit": 50}],
    "save_filter": [
        {"uid": 1, "fid": 0, "filter_json": '{"title":"t","keywords":[]}', "limit": 50},
        {"uid": 1, "fid": 3, "filter_json": '{"title":"t","keywords":[{"id":0}]}', "limit": 50},
    ],
    "community_join": [
        {"cid": 3, "uid": 1, "now_ms": 5},
        {"cid": 3, "uid": 1, "now_ms": 5, "approve": True},
    ],
    "rename_list": [{"uid": 1, "lid": 3, "name": "friends"}],
    "delete_list": [{"uid": 1, "lid": 3}],
    "list_member": [{"uid": 1, "lid": 3, "member": 2, "action": "add", "now_ms": 5, "limit": 9}],
    "list_fill": [
        {"uid": 1, "member": 2, "action": "fill", "now_ms": 5, "lid": "", "marked_ids": ["7"]}
    ],
    "list_forget": [{"uid": 1, "member": 2, "status_ids": ["7"]}],
    "direct_send": [
        {"cid": 3, "sender": 1, "text": "hi", "packed": "", "now_ms": 5, "key": "k"},
        {
            "cid": 3,
            "sender": 1,
            "text": "hi",
            "packed": "",
            "now_ms": 5,
            "key": "k",
            "pair": "1:2",
            "members": [1, 2],
        },
    ],  # fmt: skip
    "direct_member": [
        {"uid": 1, "cid": 3, "action": "deliver", "mid": 4, "at_ms": 5, "role": "request"},
        {"uid": 1, "cid": 3, "action": "read"},
        {"uid": 1, "cid": 3, "action": "show", "mid": 2, "newest": 4},
    ],
    "notify": [{"uid": 1, "event": "follow:2:0:0", "now_ms": 5, "keep": 10}],
    "unnotify": [{"uid": 1, "events": ["follow:2:0:0"]}, {"uid": 1, "events": [], "seen": "*"}],
    "replace_pending_upload": [{"uid": 1, "upload_id": "abc", "entry": "{}", "new_entry": "{}"}],
    "release_login": [{"login": "Alice", "uid": 1}],
    "release_email": [{"address": "Alice@Example.org", "uid": 1}],
    "flag_user": [{"uid": 1, "field": keys.SUSPENDED_FIELD, "value": "5"}],
    "update_user_fields": [{"uid": 1, "changes": {"bio": "hi", "avatar": ""}}],
    "set_user_field": [
        {"uid": 1, "field": "name", "value": "Alice"},
        {"uid": 1, "field": keys.DEVICE_GENERATION_FIELD, "value": "t", "credentials": True},
    ],
    "save_session": [
        {
            "session_key": "1.abc",
            "uid": 1,
            "data": "{}",
            "ttl_seconds": 60,
            "must_create": True,
            "now_ms": 5,
        }  # fmt: skip
    ],
    "suggestions_cached": [{"uid": 1}],
    "evict_home": [{"uid": 1, "seen_before": 5}],
    "rebuild_home": [
        {"uid": 1, "action": "begin", "now_ms": 5, "hold_ms": 10},
        {"uid": 1, "action": "end", "now_ms": 5, "until_ms": 15},
    ],
    "search_people": [
        {
            "first_character": "a",
            "tiers": (0, 10, 100),
            "low": "[a",
            "high": "[a\xff",
            "candidates": 10,
            "need": 0,
        }  # fmt: skip
    ],
    "search_statuses": [
        {"shard": 3, "blocks": [2, 1, 0], "words": ["tea", "from:7"], "before": None, "count": 20},
        {"shard": 0, "blocks": [0], "words": ["tea"], "before": 99, "count": 5},
    ],
    "search_tags": [{"low": "[a", "high": "[a\xff", "candidates": 10, "offset": 0, "count": 5}],
    "store_trends": [
        {"trends": [("redis", "1.5", 3)], "peaks": {"redis": "1.5:5"}, "forgotten": ["lua"]}
    ],
    "complete_job": [
        {"job_id": "1-0", "followups_json": ['{"kind": "refill"}']},
        {"job_id": "1-0", "followups_json": [], "mail": True},
    ],
    "fail_job": [
        {"job_id": "1-0", "job_json": "{}", "max_attempts": 5, "error": "boom", "deliveries": 1},
        {
            "job_id": "1-0",
            "job_json": "{}",
            "max_attempts": 5,
            "error": "boom",
            "deliveries": 1,
            "mail": True,
        },
    ],
    "replay_dead": [{"count": 10}, {"count": 10, "mail": True}],
    "inbox_row": [{"cid": 7}, {"cid": 7, "mid": 3}],
    "inbox_ids": [
        {"uid": 1},
        {"uid": 1, "requests": True, "before": 5, "count": 3},
        {"uid": 1, "before": 9, "after": 5, "count": 3, "oldest_first": True},
    ],
    "release_lock": [{"lock": keys.follow_lock(1), "token": "t"}],
    "throttle": [
        {
            "counter": keys.account_throttle(1, "statuses"),
            "now_ms": 5,
            "limit": 3,
            "window_ms": 1000,
            "token": "t",
        },
        {
            "counter": keys.account_throttle(1, "statuses"),
            "now_ms": 5,
            "limit": 3,
            "window_ms": 1000,
            "token": "t",
            "session_key": "1.abc",
        },
        {
            "counter": keys.account_throttle(1, "api"),
            "now_ms": 5,
            "limit": 3,
            "window_ms": 1000,
            "token": "t",
            "guard_key": keys.oauth_token(1, "abc"),
        },
    ],  # fmt: skip
    "hold_stream": [
        {"server": "s1", "process": 1, "processes": 3, "token": "t", "address": "::1", "limit": 4}
    ],  # fmt: skip
    "release_stream": [{"server": "s1", "process": 1, "token": "t"}],
    "unthrottle": [{"counter": keys.login_throttle("login", "alice"), "start_ms": 5, "token": "t"}],
}

HEADER_LINE = re.compile(r"^-- KEYS\[([^\]]+)\] = (\w+)(\?)?", re.MULTILINE)


def header(name):
    """The KEYS a script's header declares, in order: [(index, name, run, optional)];
    ``index`` an int for a single key, the header's text (``5..``, ``n+5..2n+4``) for a
    run of keys."""
    found = []
    for index, label, optional in HEADER_LINE.findall((LUA_DIR / f"{name}.lua").read_text()):
        run = ".." in index
        found.append((index if run else int(index), label, run, bool(optional)))
    return found


def without_comments(text):
    return "\n".join(line.split("--", 1)[0] for line in text.splitlines())


def prefix(key):
    """The literal start of a key, before its first digit: ``home:{s`` of home:{s3}:3."""
    return re.split(r"\d", key, maxsplit=1)[0]


def sample_key(builder):
    """What a keys.py function builds from ids 1 (a session key for keys.session)."""
    count = len([p for p in inspect.signature(builder).parameters.values() if p.default is p.empty])
    try:
        return builder(*[1] * count)
    except AttributeError:
        return builder("1.x")


def test_every_script_has_one_wrapper_and_every_wrapper_a_script():
    files = {path.stem for path in LUA_DIR.glob("*.lua") if not path.stem.startswith("_")}
    wrapped = [script.name for script in scripts.ALL]
    assert sorted(wrapped) == sorted(set(wrapped))  # one wrapper per script
    assert set(wrapped) == files
    for script in scripts.ALL:
        assert getattr(scripts, script.name) is script
        assert script.__doc__, f"{script.name}: a wrapper says what it does to which keys"


def test_every_prelude_is_used_and_exists():
    preludes = {path.stem[1:] for path in LUA_DIR.glob("_*.lua")}
    used = {prelude for script in scripts.ALL for prelude in script.preludes}
    assert used == preludes


def test_every_wrapper_is_called_here_in_each_of_its_shapes():
    assert set(SAMPLES) == {script.name for script in scripts.ALL}


@pytest.mark.parametrize(
    "name, params",
    [(name, params) for name, calls in SAMPLES.items() for params in calls],
    ids=lambda value: value if isinstance(value, str) else "",
)
def test_a_script_is_passed_the_keys_its_header_names_in_one_slot(name, params):
    wrapper = getattr(scripts, name)
    named_keys, _ = wrapper.build(**params)
    declared = header(name)
    assert declared, f"{name}.lua has no KEYS header"
    passed = list(named_keys.items())
    position = 0
    for index, label, run, optional in declared:
        if position < len(passed) and passed[position][0] == label:
            given = passed[position][1]
            assert isinstance(given, list) == run, f"{name}: KEYS[{index}] = {label}"
            position += 1
        else:
            assert optional, f"{name}: the wrapper passes no {label} (KEYS[{index}])"
    assert position == len(passed), f"{name}: keys the header does not name: {passed[position:]}"
    # Each label that names a key of keys.py is passed keys of that kind.
    for label, given in passed:
        built = getattr(keys, label, None)
        for key in given if isinstance(given, list) else [given]:
            if isinstance(built, str):
                assert key == built, (name, label)
            elif callable(built):
                sample = sample_key(built)  # a key, or a list of keys (keys.hidden_actors)
                starts = [prefix(one) for one in (sample if isinstance(sample, list) else [sample])]
                assert any(key.startswith(start) for start in starts), (name, label, key)
    # All in one slot: a script never spans two (Redis Cluster refuses it).
    flat, _ = wrapper.keys_and_args(**params)
    assert flat and len({key_slot(key.encode()) for key in flat}) == 1, (name, flat)


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_a_script_uses_only_the_keys_its_header_names(name):
    declared = header(name)
    singles = [index for index, _, run, _ in declared if not run]
    assert singles == list(range(1, len(singles) + 1)), f"{name}: KEYS[1..] in order"
    runs = [index for index, _, run, _ in declared if run]
    assert len(runs) <= len(declared) - len(singles)
    text = without_comments(getattr(scripts, name).text)
    used = {int(index) for index in re.findall(r"KEYS\[(\d+)\]", text)}
    assert used <= set(singles), f"{name} reads KEYS it does not declare: {used - set(singles)}"
    assert set(singles) <= used, f"{name} declares KEYS it never reads: {set(singles) - used}"
    any_index = re.search(r"KEYS\[[^\d\]]|#KEYS|unpack\(KEYS", text)
    if runs:
        assert any_index, f"{name} declares a run of keys but reads none past KEYS[n]"


def test_every_script_loads(r):
    scripts.load_all(r)  # compiles each: a syntax error raises here
    for script in scripts.ALL:
        loaded = r.script_load(script.text)
        shas = set(loaded.values()) if isinstance(loaded, dict) else {loaded}
        assert shas == {script.sha}, script.name


LUA_KEY_FUNCTIONS = re.findall(
    r"^function keys\.(\w+)\(", (LUA_DIR / "_keys.lua").read_text(), re.MULTILINE
)


@pytest.mark.parametrize("uid", [1, 63, 64, 1066, 10**12 + 7])
def test_the_lua_key_formats_build_what_keys_py_builds(r, uid):
    lid, author = 42, 2 * keys.USER_SHARDS + 5
    home = keys.home(uid)
    built = r.eval(
        (LUA_DIR / "_keys.lua").read_text()
        + """
        local tag = keys.tag_of(KEYS[1])
        return {keys.user_of(KEYS[1]), tag, keys.listed(tag, ARGV[1]),
                keys.listing(tag, ARGV[3]), keys.list_members(tag, ARGV[1], ARGV[2]),
                keys.list_timeline(tag, ARGV[1], ARGV[2]), keys.pulled_copy(tag, ARGV[3])}
        """,
        1,
        home,
        uid,
        lid,
        author,
    )
    assert built == [
        str(uid),
        keys.shard(uid),
        keys.listed(uid),
        keys.listing(uid, author),
        keys.list_members(uid, lid),
        keys.list_timeline(uid, lid),
        keys.pulled_copy(uid, author),
    ]
    # Every key built in Lua is in the slot of the key it started from.
    assert {key_slot(key.encode()) for key in built[2:]} == {key_slot(home.encode())}
    assert sorted(LUA_KEY_FUNCTIONS) == sorted(
        ["user_of", "tag_of", "listed", "listing", "list_members", "list_timeline", "pulled_copy"]
    )


def key_prefixes():
    """The literal start of every key keys.py builds ("home:", "{status:", "users:"),
    read from its string constants and the f-strings its functions return."""
    tree = ast.parse((ROOT / "socialsite/repository/keys.py").read_text())
    found = set()
    for node in ast.walk(tree):
        value = node.value if isinstance(node, ast.Assign | ast.Return) else None
        if isinstance(value, ast.ListComp):
            value = value.elt
        if isinstance(value, ast.JoinedStr) and isinstance(value.values[0], ast.Constant):
            found.add(value.values[0].value)
        elif isinstance(value, ast.Constant) and isinstance(value.value, str):
            found.add(value.value)
    return {text.split(":", 1)[0] + ":" for text in found if ":" in text}


def test_the_key_prefixes_are_read_from_keys_py():
    assert {"home:", "user:", "{status:", "listed:", "list:", "users:", "fanout:"} <= (
        key_prefixes()
    )


def test_no_lua_file_but_the_key_formats_writes_a_key():
    prefixes = key_prefixes()
    for path in LUA_DIR.glob("*.lua"):
        if path.name == "_keys.lua":
            continue
        literals = re.findall(r"'([^']*)'|\"([^\"]*)\"", without_comments(path.read_text()))
        for literal in (single or double for single, double in literals):
            if literal in NOT_KEYS:
                continue
            assert not any(literal.startswith(p) for p in prefixes), (path.name, literal)


def python_files():
    for package in ("socialsite", "timeline", "accounts", "moderation", "benchmarks"):
        yield from (ROOT / package).rglob("*.py")


# Strings that start like a key and are none: Mastodon's stream names
# (api/streaming.py).
NOT_KEYS = {"user:notification"}


def test_no_python_but_keys_py_writes_a_key():
    prefixes = key_prefixes()
    keys_py = ROOT / "socialsite/repository/keys.py"
    for path in python_files():
        if path == keys_py or "migrations" in path.parts:
            continue
        with tokenize.open(path) as source:
            tokens = list(tokenize.generate_tokens(source.readline))
        for token, after in zip(tokens, tokens[1:] + tokens[:1], strict=True):
            if token.type == tokenize.STRING:
                literal = token.string.lstrip("rbfuRBFU").strip("'\"")
            elif token.type == getattr(tokenize, "FSTRING_START", None):  # Python 3.12+
                literal = after.string if after.type == tokenize.FSTRING_MIDDLE else ""
            else:
                continue
            if literal in NOT_KEYS:
                continue
            assert not any(literal.startswith(p) for p in prefixes), (
                f"{path.relative_to(ROOT)}:{token.start[0]} formats a key: {token.string}"
            )
