"""The reader's time zone (settings page, socialsite/actions/settings.py): UTC until
chosen; once chosen, the absolute time of every status (its hover and focus text) is in
it; a name not in the list is refused."""

import datetime
import re
import zoneinfo

from django.test import Client

from socialsite.actions import settings as settings_actions
from socialsite.repository import keys
from tests.support.helpers import log_in, make_user, post


def shown(r, sid, zone):
    """How status ``sid``'s time reads in ``zone``."""
    posted = float(r.hget(keys.status(sid), "posted"))
    moment = datetime.datetime.fromtimestamp(posted, tz=zoneinfo.ZoneInfo(zone))
    return f"{moment.day} {moment:%b %Y, %H:%M} {moment.tzname()}"


def absolute_times(html):
    return re.findall(r'<a class="when" href="[^"]+" data-full="([^"]+)">', html)


def test_times_are_in_utc_until_a_zone_is_chosen_then_in_it(r):
    alice = make_user(r, "alice", "Alice Liddell")
    sid = post(r, alice, "a status")
    client = log_in(Client(), "alice")
    page = client.get("/settings/").content.decode()
    assert '<option value="UTC" selected>UTC</option>' in page
    assert absolute_times(client.get("/").content.decode()) == [shown(r, sid, "UTC")]

    response = client.post("/settings/", {"time_zone_form": "1", "time_zone": "Europe/Paris"})
    assert response.status_code == 302 and response["Location"] == "/settings/"
    assert r.hget(keys.user(alice["id"]), keys.TIME_ZONE_FIELD) == "Europe/Paris"
    page = client.get("/settings/").content.decode()
    assert "The pages now show times in Europe/Paris." in page
    assert '<option value="Europe/Paris" selected>Europe/Paris</option>' in page
    assert absolute_times(client.get("/").content.decode()) == [shown(r, sid, "Europe/Paris")]
    # A visitor, and another reader, still read UTC.
    assert absolute_times(Client().get("/@alice/").content.decode()) == [shown(r, sid, "UTC")]

    # Back to UTC: the field goes.
    client.post("/settings/", {"time_zone_form": "1", "time_zone": "UTC"})
    assert r.hget(keys.user(alice["id"]), keys.TIME_ZONE_FIELD) is None


def test_an_unknown_zone_is_refused(r):
    make_user(r, "alice")
    client = log_in(Client(), "alice")
    response = client.post("/settings/", {"time_zone_form": "1", "time_zone": "Mars/Olympus"})
    assert response.status_code == 400
    assert "Select a valid choice" in response.content.decode()
    assert settings_actions.time_zones()[0] == "UTC"
    assert "Europe/Paris" in settings_actions.time_zones()
