"""The development Redis: started once, shared, and keeping its data across restarts."""

import threading

import redis

from socialsite import embedded_redis


def test_it_keeps_data_across_a_stop_and_start(tmp_path):
    url = embedded_redis.ensure_running(tmp_path)
    try:
        redis.Redis.from_url(url).set("kept", "yes")
        embedded_redis.stop(tmp_path)
        assert not embedded_redis.is_running(tmp_path)
        url = embedded_redis.ensure_running(tmp_path)
        assert redis.Redis.from_url(url).get("kept") == b"yes"
        config = redis.Redis.from_url(url).config_get("append*")
        assert config["appendonly"] == "yes"
        assert config["appendfsync"] == "everysec"
    finally:
        embedded_redis.stop(tmp_path)


def test_processes_starting_it_at_once_share_one_server(tmp_path):
    urls = []
    start = threading.Barrier(4)

    def start_it():
        start.wait()
        urls.append(embedded_redis.ensure_running(tmp_path))

    threads = [threading.Thread(target=start_it) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        assert len(set(urls)) == 1
        client = redis.Redis.from_url(urls[0])
        assert client.info("server")["process_id"] == int((tmp_path / "redis.pid").read_text())
        assert int(client.info("clients")["connected_clients"]) >= 1
    finally:
        embedded_redis.stop(tmp_path)
