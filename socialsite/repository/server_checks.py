"""Whether the Redis the site uses keeps what it is given: its settings read from the
running servers (``manage.py doctor``, and each web process once at start-up).

Each check gives Findings: ok, a problem (a plain sentence saying what is lost and
what to set), or "cannot check" where the server refuses to say (a managed Redis that
refuses CONFIG), which is no problem found. On a cluster every master is checked, each
through a connection of its own, so that a cluster whose slots are not all covered
(which a cluster client refuses to work with) can still be looked at.
"""

from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from redis.exceptions import ResponseError

from . import client, jobs, mail, scripts

OK, PROBLEM, UNCHECKED = "ok", "problem", "cannot check"
CLUSTER_SLOTS = 16384
# A fan-out worker (and its mail thread) notes that it is alive every few seconds
# (heartbeats.NOTE_EVERY_SECONDS), with jobs or without: one not seen for longer than
# this is stopped, stuck or dead.
WORKER_ALIVE_MS = 60_000


@dataclass(frozen=True)
class Finding:
    item: str  # what was checked ("maxmemory-policy", "fan-out workers", ...)
    state: str  # OK, PROBLEM or UNCHECKED
    sentence: str


def check_redis(url, cluster=False, timeout=2.0):
    """The Findings of the server ``url`` names, or of every master of its cluster:
    eviction, persistence, appendfsync, (cluster) slot coverage, the site's scripts."""
    try:
        entry = client.connect(url, timeout=timeout, retries=0)
        findings = []
        if cluster:
            findings.append(_slots(entry))
            nodes = [(name, client.connect(node_url, timeout=timeout, retries=0))
                     for name, node_url in _master_urls(entry, url)]  # fmt: skip
        else:
            nodes = [(_name(url), entry)]
        for name, node in nodes:
            findings += _config_findings(name, node)
            findings.append(_scripts(name, node))
        return findings
    except client.OUTAGE_ERRORS as error:
        return [Finding("redis", PROBLEM, f"Redis at {_name(url)} does not answer ({error}).")]


def _name(url):
    parts = urlsplit(url)
    if parts.scheme == "unix":
        return parts.path
    return f"{parts.hostname}:{parts.port or 6379}"


def _master_urls(entry, url):
    """(host:port, URL) of every master the node ``url`` knows, with ``url``'s
    credentials, TLS and database."""
    parts = urlsplit(url)
    userinfo = parts.netloc.rpartition("@")[0]
    masters = []
    for address, node in sorted(entry.execute_command("CLUSTER NODES").items()):
        if "master" not in node["flags"] or "fail" in node["flags"]:
            continue
        host, _, port = address.rpartition(":")
        netloc = f"{userinfo}@{address}" if userinfo else address
        masters.append((f"{host}:{port}", urlunsplit(parts._replace(netloc=netloc))))
    return masters


def _slots(entry):
    info = entry.execute_command("CLUSTER INFO")
    assigned, ok = int(info["cluster_slots_assigned"]), int(info["cluster_slots_ok"])
    if info["cluster_state"] == "ok" and ok == CLUSTER_SLOTS:
        return Finding("cluster slots", OK, f"all {CLUSTER_SLOTS} cluster slots are served.")
    return Finding(
        "cluster slots",
        PROBLEM,
        f"The cluster serves {ok} of its {CLUSTER_SLOTS} slots ({assigned} assigned, state "
        f"{info['cluster_state']}): the keys of the others can be neither read nor written; "
        "assign every slot to a master (redis-cli --cluster fix).",
    )


def _config(node, parameter):
    """The value of ``parameter``, or the ResponseError of a server refusing CONFIG."""
    try:
        return node.config_get(parameter).get(parameter, "")
    except ResponseError as error:
        return error


def _config_findings(name, node):
    policy, appendonly = _config(node, "maxmemory-policy"), _config(node, "appendonly")
    save, fsync = _config(node, "save"), _config(node, "appendfsync")
    findings = []
    if isinstance(policy, ResponseError):
        findings.append(_refused("maxmemory-policy", name, policy))
    elif policy != "noeviction":
        findings.append(Finding("maxmemory-policy", PROBLEM, (
            f"Redis at {name} evicts keys when its memory is full (maxmemory-policy "
            f"{policy}): it would silently lose accounts and statuses. Set maxmemory-policy "
            "noeviction (writes then fail visibly when memory runs out)."
        )))  # fmt: skip
    else:
        findings.append(Finding("maxmemory-policy", OK, f"Redis at {name} evicts nothing."))
    if isinstance(appendonly, ResponseError) or isinstance(save, ResponseError):
        refused = appendonly if isinstance(appendonly, ResponseError) else save
        findings.append(_refused("persistence", name, refused))
    elif appendonly != "yes" and not save.strip():
        findings.append(Finding("persistence", PROBLEM, (
            f"Redis at {name} keeps nothing on disk (appendonly no, save \"\"): a restart "
            "loses every account and status. Set appendonly yes with appendfsync everysec."
        )))  # fmt: skip
    else:
        kept = "an append-only file" if appendonly == "yes" else f"snapshots (save {save})"
        findings.append(Finding("persistence", OK, f"Redis at {name} keeps {kept}."))
    if isinstance(fsync, ResponseError):
        findings.append(_refused("appendfsync", name, fsync))
    elif appendonly == "yes":
        if fsync not in ("everysec", "always"):
            findings.append(Finding("appendfsync", PROBLEM, (
                f"Redis at {name} leaves flushing its append-only file to the system "
                f"(appendfsync {fsync}): a crash of the machine may lose the last 30 seconds "
                "of writes or more. Set appendfsync everysec (or always)."
            )))  # fmt: skip
        else:
            findings.append(Finding("appendfsync", OK, f"Redis at {name} fsyncs {fsync}."))
    return findings


def _refused(item, name, error):
    return Finding(item, UNCHECKED, (
        f"Redis at {name} refuses CONFIG GET ({error}), as managed services do: check "
        f"{item} in its provider's settings."
    ))  # fmt: skip


def _scripts(name, node):
    try:
        scripts.load_all(node)
    except ResponseError as error:
        return Finding("scripts", PROBLEM, (
            f"Redis at {name} does not load the site's Lua scripts ({error}): posting, "
            "following and most pages need them. Allow the site's user scripting "
            "(ACL +@scripting) and Lua."
        ))  # fmt: skip
    return Finding("scripts", OK, f"Redis at {name} loads the site's {len(scripts.ALL)} scripts.")


def check_workers(r, now=None):
    """Whether fan-out workers, and their mail threads, were seen alive within the last
    WORKER_ALIVE_MS (their heartbeats: jobs.note_alive, mail.note_alive), as two
    Findings. ``r``: the site's client, a cluster client on a cluster."""
    try:
        workers = jobs.alive_workers(r, WORKER_ALIVE_MS, now)
        senders = mail.alive_senders(r, WORKER_ALIVE_MS, now)
    except ResponseError as error:
        return [
            Finding(item, UNCHECKED, f"Redis refused to list the workers ({error}).")
            for item in ("fan-out workers", "mail senders")
        ]
    seconds = WORKER_ALIVE_MS // 1000
    if workers:
        found = [Finding("fan-out workers", OK, f"{len(workers)} fan-out worker(s) alive.")]
    else:
        found = [Finding("fan-out workers", PROBLEM, (
            f"No fan-out worker has been seen alive in the last {seconds} seconds: "
            "statuses for large followings, deletions and mail wait. Start manage.py fanout "
            "(two or more, under a supervisor)."
        ))]  # fmt: skip
    if senders:
        found.append(Finding("mail senders", OK, f"{len(senders)} mail sender(s) alive."))
    else:
        found.append(Finding("mail senders", PROBLEM, (
            f"No fan-out worker's mail thread has been seen alive in the last {seconds} "
            "seconds: verification and password reset mail waits. Start manage.py fanout, "
            "or look in its log for what holds its mail thread."
        )))  # fmt: skip
    return found
