"""GET /healthz: the liveness check operators point load balancers at."""

from tests.support.helpers import PASSWORD, make_user


def test_it_answers_ok_in_plain_text(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.content == b"ok"
    assert response["Content-Type"] == "text/plain; charset=utf-8"


def test_it_is_not_cached(client):
    assert client.get("/healthz")["Cache-Control"] == "no-store"


def test_it_answers_head(client):
    response = client.head("/healthz")
    assert response.status_code == 200
    assert response.content == b""


def test_it_rejects_post(client):
    response = client.post("/healthz")
    assert response.status_code == 405
    assert response["Allow"] == "GET, HEAD"


def test_it_does_not_touch_redis(client, round_trips):
    client.get("/healthz")
    assert round_trips["n"] == 0


def test_it_does_not_touch_redis_for_a_logged_in_user(r, client, round_trips):
    make_user(r, "alice")
    response = client.post("/accounts/login/", {"username": "alice", "password": PASSWORD})
    assert response.status_code == 302
    round_trips["n"] = 0
    response = client.get("/healthz")
    assert response.status_code == 200
    assert round_trips["n"] == 0
