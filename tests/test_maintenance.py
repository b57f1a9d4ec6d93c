"""MAINTENANCE=true: every request that could write is answered 503 with a page saying
nothing was saved, before the session or the view is reached; pages still read."""

from socialsite.repository import timelines
from tests.support.helpers import bearer, log_in


def test_maintenance_refuses_writes_with_a_readable_page_and_pages_still_read(
    r, client, alice, settings
):
    log_in(client, "alice")
    settings.MAINTENANCE = True

    response = client.post("/statuses/", {"message": "During the backup"})
    assert response.status_code == 503
    assert response["Retry-After"] == "300"
    page = response.content.decode()
    assert "read-only for maintenance" in page and "What you sent was not saved" in page
    assert timelines.profile_ids(r, alice["id"]) == []

    assert client.post("/accounts/login/", {"username": "alice"}).status_code == 503
    assert client.get("/").status_code == 200
    assert client.get("/@alice/").status_code == 200

    settings.MAINTENANCE = False
    assert client.post("/statuses/", {"message": "After the backup"}).status_code == 302
    assert len(timelines.profile_ids(r, alice["id"])) == 1


def test_maintenance_answers_the_client_api_in_json(r, client, alice, token, settings):
    settings.MAINTENANCE = True
    response = client.post(
        "/api/v1/statuses", {"status": "During the backup"}, **bearer(token(alice))
    )
    assert response.status_code == 503
    assert response["Retry-After"] == "300"
    assert "read-only for maintenance" in response.json()["error"]
    assert timelines.profile_ids(r, alice["id"]) == []
    assert client.post("/oauth/token", {"grant_type": "client_credentials"}).status_code == 503
