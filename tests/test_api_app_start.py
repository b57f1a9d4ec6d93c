"""What real Mastodon apps trip on as they start: the discovery documents
(NodeInfo, the OAuth metadata) open to every origin, JSON answers for every path under
/api/, both forms of the OAuth paths, the endpoints apps call at start, the Account's
data wherever it appears, an exact name found whatever the relationship, the OAuth
popup's Cross-Origin-Opener-Policy, and pictures and static files open to other
origins."""

import json
from urllib.parse import urlsplit

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.http import HttpResponse
from django.test import RequestFactory

from api.middleware import json_errors
from socialsite.repository import blocks, graph, keys, statuses, trends, users
from socialsite.static_files import CrossOriginStaticFilesHandler
from tests.support.helpers import bearer, make_user

ORIGIN = {"HTTP_ORIGIN": "https://client.example"}


def test_nodeinfo_names_the_software_and_counts_its_use(client, r, alice, bob, settings):
    settings.SITE_URL = "https://social.example"
    statuses.post_status(r, alice["id"], "one")
    statuses.post_status(r, bob["id"], "two")
    links = client.get("/.well-known/nodeinfo", **ORIGIN)
    assert links.status_code == 200 and links["Access-Control-Allow-Origin"] == "*"
    [link] = links.json()["links"]
    assert link == {
        "rel": "http://nodeinfo.diaspora.software/ns/schema/2.0",
        "href": "https://social.example/nodeinfo/2.0",
    }
    info = client.get("/nodeinfo/2.0", **ORIGIN)
    assert info.status_code == 200 and info["Access-Control-Allow-Origin"] == "*"
    body = info.json()
    assert body["software"]["name"] == "socialsite" and body["software"]["version"]
    assert body["protocols"] == [] and body["version"] == "2.0"
    assert body["usage"] == {"users": {"total": 2}, "localPosts": 2}
    assert body["metadata"]["upstream"]["name"] == "mastodon"
    instance = client.get("/api/v1/instance").json()
    assert instance["stats"]["user_count"] == 2 and instance["stats"]["status_count"] == 2


def test_every_discovery_document_is_open_to_other_origins(client):
    for path in ("/.well-known/oauth-authorization-server", "/.well-known/nodeinfo",
                 "/nodeinfo/2.0", "/api/v2/instance"):  # fmt: skip
        response = client.get(path, **ORIGIN)
        assert response.status_code == 200, path
        assert response["Access-Control-Allow-Origin"] == "*", path
        preflight = client.options(
            path, HTTP_ACCESS_CONTROL_REQUEST_METHOD="GET", **ORIGIN
        )  # fmt: skip
        assert preflight.status_code == 204 and preflight["Access-Control-Allow-Origin"] == "*"


@pytest.mark.parametrize(
    "path",
    ["/api/v1/nothing", "/api/v2/accounts/1/nothing", "/api/", "/api/v9/instance/"],
)
def test_an_unknown_api_path_answers_json(client, path):
    response = client.get(path, **ORIGIN)
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/json")
    assert response.json() == {"error": "Record not found"}
    assert response["Access-Control-Allow-Origin"] == "*"


def test_an_api_error_page_is_answered_as_json(client, settings):
    settings.MAINTENANCE = True  # the maintenance answer is JSON already, kept as it is
    response = client.post("/api/v1/statuses", {"status": "hi"})
    assert response.status_code == 503 and "read-only" in response.json()["error"]
    page = HttpResponse("<h1>Server error</h1>", status=500)
    assert json.loads(json_errors(page).content) == {"error": "Internal Server Error"}
    limited = HttpResponse("<p>slow down</p>", status=429, headers={"Retry-After": "7"})
    answer = json_errors(limited)
    assert answer.status_code == 429 and answer["Retry-After"] == "7"
    assert json_errors(HttpResponse("<p>ok</p>")).content == b"<p>ok</p>"


def test_the_oauth_paths_answer_with_a_final_slash(client, alice, app):
    client_id, secret = app
    for path in ("/oauth/authorize", "/oauth/authorize/"):
        response = client.get(path, {"client_id": client_id, "response_type": "code"})
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    for path in ("/oauth/token", "/oauth/token/"):
        response = client.post(
            path,
            {"grant_type": "client_credentials", "client_id": client_id,
             "client_secret": secret},
        )  # fmt: skip
        assert response.status_code == 200, response.content
        assert response.json()["access_token"]


def test_the_endpoints_apps_call_at_start(client, r, alice, bob, token):
    headers = bearer(token(alice))
    prefs = client.get("/api/v1/preferences", **headers).json()
    assert prefs["posting:default:visibility"] == "public"
    assert prefs["reading:expand:spoilers"] is False
    assert client.get("/api/v1/custom_emojis").json() == []
    assert client.get("/api/v1/announcements", **headers).json() == []
    assert client.get(f"/api/v1/accounts/{bob['id']}/featured_tags", **headers).json() == []
    assert client.get("/api/v1/accounts/999999/featured_tags", **headers).status_code == 404
    assert client.get("/api/v1/trends/statuses").json() == []
    assert client.get("/api/v1/trends/links").json() == []
    assert client.get("/api/v1/trends/tags?limit=x").status_code == 422


def test_a_private_accounts_preferences_post_to_followers(client, r, alice, token):
    r.hset(keys.user(alice["id"]), "private", "1")
    prefs = client.get("/api/v1/preferences", **bearer(token(alice))).json()
    assert prefs["posting:default:visibility"] == "private"


def test_trending_tags_with_their_history(client, r, settings):
    people = [make_user(r, f"user{n}") for n in range(6)]
    for person in people:
        statuses.post_status(r, person["id"], "about #redis")
    trends.recompute(r)
    found = client.get("/api/v1/trends/tags").json()
    assert [tag["name"] for tag in found] == ["redis"]
    history = found[0]["history"]
    assert len(history) == 7 and history[0]["accounts"] == "6" and history[1]["accounts"] == "0"
    assert int(history[0]["day"]) % 86400 == 0
    assert client.get("/api/v1/trends").json() == found


def test_an_account_says_its_sign_up_and_counts_wherever_it_appears(client, r, alice, bob, token):
    graph.follow(r, bob["id"], alice["id"])
    for n in range(3):
        statuses.post_status(r, alice["id"], f"status {n}")
    alice = users.get_user(r, alice["id"])
    headers = bearer(token(bob))
    own = client.get(f"/api/v1/accounts/{alice['id']}", **headers).json()
    assert own["statuses_count"] == 3 and not own["created_at"].startswith("1970")
    users.forget_author(alice["id"])
    home = client.get("/api/v1/timelines/home", **headers).json()
    found = client.get("/api/v2/search?q=alic&type=accounts", **headers).json()["accounts"]
    for entity in (home[0]["account"], found[0]):
        for field in ("created_at", "statuses_count", "followers_count", "following_count"):
            assert entity[field] == own[field], field


def test_an_exact_name_finds_the_account_whatever_the_relationship(client, r, alice, bob, token):
    blocks.block(r, alice["id"], bob["id"])
    headers = bearer(token(alice))
    found = client.get("/api/v2/search?q=bo&resolve=true&type=accounts", **headers).json()
    assert found["accounts"] == []  # a search by part leaves out whom the searcher blocks
    for query in ("bob", "@bob", "@bob@testserver", "BOB"):
        found = client.get(
            "/api/v2/search", {"q": query, "resolve": "true", "type": "accounts"}, **headers
        ).json()
        assert [a["username"] for a in found["accounts"]] == ["bob"], query
    found = client.get("/api/v1/accounts/search?q=bob", **headers).json()
    assert [a["username"] for a in found] == ["bob"]
    other = client.get("/api/v2/search?q=bob@elsewhere.example&type=accounts", **headers)
    assert other.status_code in (200, 422)
    if other.status_code == 200:
        assert other.json()["accounts"] == []


def test_the_oauth_popup_pages_keep_their_opener(client, alice, app):
    strict = client.get("/accounts/login/")
    assert strict["Cross-Origin-Opener-Policy"] == "same-origin"
    to_consent = client.get("/oauth/authorize/", {"client_id": app[0], "response_type": "code"})
    assert to_consent["Cross-Origin-Opener-Policy"] == "unsafe-none"
    login = client.get(to_consent["Location"])
    assert login.status_code == 200 and login["Cross-Origin-Opener-Policy"] == "unsafe-none"
    assert client.get("/")["Cross-Origin-Opener-Policy"] == "same-origin"
    assert client.get("/api/v1/instance")["Cross-Origin-Opener-Policy"] == "same-origin"


def test_static_files_under_run_are_open_to_other_origins():
    def app(environ, start_response):  # the site: never reached for a static file
        raise AssertionError("not a static file")

    handler = CrossOriginStaticFilesHandler(app)
    request = RequestFactory().get("/static/api/avatar-missing.png")
    response = handler.get_response(request)
    assert response.status_code == 200
    assert response["Access-Control-Allow-Origin"] == "*"
    assert response["Cross-Origin-Resource-Policy"] == "cross-origin"


def test_runserver_serves_static_files_open_to_other_origins(settings):
    from socialsite.management.commands.runserver import Command

    settings.DEBUG = True
    handler = Command().get_handler(use_static_handler=True, insecure_serving=False)
    assert isinstance(handler, CrossOriginStaticFilesHandler)


def test_pictures_are_open_to_other_origins(client, r, alice, token, media_root):
    from tests.test_media_images import png

    upload = SimpleUploadedFile("a.png", png((64, 64)), content_type="image/png")
    response = client.post("/api/v2/media", {"file": upload}, **bearer(token(alice)))
    assert response.status_code in (200, 202), response.content
    url = response.json()["url"]
    picture = client.get(urlsplit(url).path)
    assert picture.status_code == 200
    assert picture["Access-Control-Allow-Origin"] == "*"
    assert picture["Cross-Origin-Resource-Policy"] == "cross-origin"
