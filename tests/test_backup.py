"""``manage.py backup`` and ``restore`` against the real Redis (one server, or a cluster of
three masters with --redis=cluster): seed, back up, flush, restore, and every key (its
DUMP, whether it expires), every page and the pictures are as before. The files are the
owner's only; a Redis with keys and a directory with files are refused."""

import json
import re
import stat

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from socialsite.repository import client as repository_client
from socialsite.repository import graph, likes, users
from socialsite_dev.ports import free_port
from tests.support.helpers import log_in, make_user, post

# Values made anew for each page: CSRF tokens (masked differently each time), posting keys.
PER_REQUEST = re.compile(r'(name="(?:csrfmiddlewaretoken|posting_key)" value=)"[^"]*"')


@pytest.fixture
def binary(redis_backend):
    return repository_client.connect(redis_backend.url, cluster=redis_backend.cluster, decode=False)


def keys_of(rb):
    """{key: (DUMP payload, whether it expires)} of every key of every master."""
    servers = (
        [node.redis_connection for node in rb.get_primaries()]
        if repository_client.is_cluster(rb)
        else [rb]
    )
    return {
        name: (server.dump(name), server.pttl(name) > 0)
        for server in servers
        for name in server.scan_iter(count=1000)
    }


def pages(web, paths):
    """{path: (status, body without the values made anew for each request)}."""
    seen = {}
    for path in paths:
        response = web.get(path)
        seen[path] = (response.status_code, PER_REQUEST.sub(r"\1", response.content.decode()))
    return seen


@pytest.fixture
def seeded(r, client, media_root):
    """Three people who follow, post, reply and like; alice logged in (a session that
    expires); two pictures on disk."""
    alice, bob, carol = make_user(r, "alice"), make_user(r, "bob"), make_user(r, "carol")
    graph.follow(r, alice["id"], bob["id"])
    graph.follow(r, carol["id"], bob["id"])
    graph.follow(r, bob["id"], alice["id"])
    first = post(r, bob, "First, about #backups")
    post(r, alice, "A reply", reply_to=first)
    likes.like(r, carol["id"], first)
    for n in range(30):
        post(r, carol, f"Status number {n}")
    log_in(client, "alice")
    (media_root / "avatars" / "ab").mkdir(parents=True)
    (media_root / "avatars" / "ab" / "abcdef.jpg").write_bytes(b"\xff\xd8 a picture")
    (media_root / "statuses").mkdir()
    (media_root / "statuses" / "012345.webp").write_bytes(b"RIFF another")
    paths = ["/", "/@alice/", "/@bob/", f"/@bob/{first}/", "/@bob/followers/", "/@carol/",
             "/explore/", "/notifications/", "/tags/backups/"]  # fmt: skip
    return {"paths": paths, "alice": alice, "first": first}


def test_backup_flush_restore_gives_every_key_page_and_picture_back(
    r, binary, client, seeded, media_root, tmp_path
):
    # Pages first, twice: reading one may write (the welcome message shown once, the
    # notifications marked read); the keys are compared right after the restore, before
    # the pages are read again.
    pages(client, seeded["paths"])
    before_pages = pages(client, seeded["paths"])
    before_keys = keys_of(binary)
    assert all(status == 200 for status, _ in before_pages.values()), before_pages.keys()
    assert any(expires for _, expires in before_keys.values())  # the session, at least

    target = tmp_path / "backups" / "tonight"
    call_command("backup", str(target))

    assert stat.S_IMODE(target.stat().st_mode) == 0o700
    for path in target.rglob("*"):
        expected = 0o700 if path.is_dir() else 0o600
        assert stat.S_IMODE(path.stat().st_mode) == expected, path
    manifest = json.loads((target / "manifest.json").read_text())
    assert manifest["redis"]["keys"] == len(before_keys)
    masters = manifest["redis"]["masters"]
    assert len(masters) == (3 if repository_client.is_cluster(r) else 1)
    assert sum(master["keys"] for master in masters) == len(before_keys)
    assert manifest["media"] == {"included": True, "files": 2, "bytes": 24}

    repository_client.flush_all(r)
    for path in list(media_root.rglob("*"))[::-1]:
        path.unlink() if path.is_file() else path.rmdir()
    assert keys_of(binary) == {}
    assert Client().get("/@bob/").status_code == 404

    call_command("restore", str(target))

    assert keys_of(binary) == before_keys
    assert pages(client, seeded["paths"]) == before_pages
    assert (media_root / "avatars" / "ab" / "abcdef.jpg").read_bytes() == b"\xff\xd8 a picture"
    assert (media_root / "statuses" / "012345.webp").read_bytes() == b"RIFF another"
    assert users.get_user_by_login(r, "alice")["id"] == seeded["alice"]["id"]


def test_restore_refuses_a_redis_with_keys_unless_forced(r, binary, seeded, tmp_path):
    target = tmp_path / "backup"
    call_command("backup", str(target))
    before = keys_of(binary)
    post(r, seeded["alice"], "Posted after the backup")
    likes.unlike(r, users.get_user_id(r, "carol"), seeded["first"])

    with pytest.raises(CommandError, match="has .* keys already"):
        call_command("restore", str(target))

    call_command("restore", str(target), "--force")
    after = keys_of(binary)
    # Every key of the backup is as it was; keys made since stay.
    assert {name: after[name] for name in before} == before
    assert len(after) > len(before)


def test_backup_refuses_a_directory_with_files_and_restore_a_damaged_backup(r, seeded, tmp_path):
    used = tmp_path / "used"
    used.mkdir()
    (used / "something").write_text("kept")
    with pytest.raises(CommandError, match="not an empty directory"):
        call_command("backup", str(used))
    assert (used / "something").read_text() == "kept"

    target = tmp_path / "backup"
    call_command("backup", str(target))
    data = target / "redis.data"
    data.write_bytes(data.read_bytes()[:-10])
    repository_client.flush_all(r)
    with pytest.raises(CommandError, match="does not match its manifest"):
        call_command("restore", str(target))
    (target / "manifest.json").unlink()
    with pytest.raises(CommandError, match="no manifest.json"):
        call_command("restore", str(target))


def test_an_unreachable_redis_is_said_in_a_sentence(r, settings, tmp_path):
    settings.REDIS_URL = f"redis://127.0.0.1:{free_port()}/0"
    settings.REDIS_CLUSTER = False
    with pytest.raises(CommandError, match="Redis could not be read .* is incomplete"):
        call_command("backup", str(tmp_path / "backup"))
    assert not (tmp_path / "backup" / "manifest.json").exists()
