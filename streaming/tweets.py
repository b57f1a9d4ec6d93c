"""Statuses and deletions as Twitter's v1.1 streaming API sent them: Tweet objects and
``delete`` notices, so that a client written for Twitter (tweepy's ``Stream``, for one)
reads this server's streams as they are.

A Tweet is made of a status event as published (repository.events): the status's own
fields and its author as the account was at posting time (``author``: login, name,
counts, signup), so that the bytes of an event are the same for every client and made
once (hub.Format.bytes_for). Beside Twitter's fields each Tweet keeps the book's
(``message``, ``posted``, ``uid``, ``login`` and ``location``) for clients written
against the book. What this site does not have, or cannot know once for all clients,
is absent rather than made up: ``favorite_count``, ``retweet_count``, ``reply_count``,
``quote_count`` (they change after posting), ``favorited`` and ``retweeted`` (they
depend on who asks), ``lang``, ``source``, ``filter_level``, the user's
``description``, ``url``, ``location`` and images, and a mention's ``name``.

A status's images are Twitter's photos, in ``entities.media`` and
``extended_entities.media`` (media_entities), their URLs made by the caller's
``media_url`` (the stream server's: full URLs, on SITE_URL unless MEDIA_URL is one).

Plain Python: no Django, no Redis.
"""

import json
import time

from socialsite.repository import entities

from .filters import point_of

# Twitter's created_at ("Wed Oct 10 20:19:24 +0000 2018") in English whatever the
# process's locale, which strftime's %a and %b would follow.
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def twitter_time(seconds):
    """``seconds`` since the epoch as Twitter wrote times: "Wed Oct 10 20:19:24 +0000 2018"."""
    t = time.gmtime(seconds)
    return (
        f"{WEEKDAYS[t.tm_wday]} {MONTHS[t.tm_mon - 1]} {t.tm_mday:02d} "
        f"{t.tm_hour:02d}:{t.tm_min:02d}:{t.tm_sec:02d} +0000 {t.tm_year}"
    )


def user(uid, login, author):
    """Twitter's user object of a status's author. ``author``: the event's (the account
    at posting time: repository.users.event_author); None for an event published without
    it, whose user then has only the id and the login (as both names)."""
    uid = int(uid)
    if not author:
        return {"id": uid, "id_str": str(uid), "name": login, "screen_name": login,
                "protected": False}  # fmt: skip
    return {
        "id": uid,
        "id_str": str(uid),
        "name": author.get("name") or author.get("login") or login,
        "screen_name": author.get("login") or login,
        # Always false here: a status posted while its author's account was private
        # never reaches the API (Hub.targets).
        "protected": False,
        "followers_count": int(author.get("followers", 0)),
        "friends_count": int(author.get("following", 0)),
        "statuses_count": int(author.get("posts", 0)),
        "created_at": twitter_time(float(author.get("signup", 0))),
    }


def with_ids(found):
    """Twitter's entities (entities.unpack's) with ``id_str`` beside each mention's id."""
    mentions = found["user_mentions"]
    if not mentions:
        return found
    return {
        **found,
        "user_mentions": [
            {"screen_name": mention["screen_name"], "id": mention["id"],
             "id_str": str(mention["id"]), "indices": mention["indices"]}
            for mention in mentions
        ],
    }  # fmt: skip


def places(location):
    """``geo``, ``coordinates`` and ``place`` of a status at ``location`` (None each for
    a status without one). Twitter's GeoJSON: coordinates are [longitude, latitude]
    (``geo``, deprecated by Twitter but still read by old clients, [latitude, longitude]).
    The site keeps a point, not a named place: ``place`` is a point of interest whose
    bounding box is that point, named by its coordinates, as Twitter's "poi" places were."""
    point = point_of(location) if location is not None else None
    if point is None:
        return None, None, None
    lat, lon = point
    corner = [lon, lat]
    name = f"{lat},{lon}"
    place = {
        "id": name,
        "url": None,
        "place_type": "poi",
        "name": name,
        "full_name": name,
        "country_code": "",
        "country": "",
        "bounding_box": {"type": "Polygon", "coordinates": [[corner, corner, corner, corner]]},
        "attributes": {},
    }
    geo = {"type": "Point", "coordinates": [lat, lon]}
    return geo, {"type": "Point", "coordinates": corner}, place


def relative_media_url(name):
    """Where the default storage serves stored file ``name``, as a path (what a Tweet
    made without a ``media_url`` names)."""
    return f"/media/{name}"


def media_entities(status, media_url=relative_media_url):
    """Twitter's photo entities of ``status``'s images (its ``media`` field, records.Status: a
    JSON list), in order; [] for none. Each image's id is made
    of the status's and its place (status id x 10 + place), so it is the same in every
    event; ``sizes`` are ``large`` (the original, at ``media_url_https``) and ``small``
    (the preview, at ``preview_url_https``, the site's own field); there is no link in
    the text, so ``indices`` mark its end."""
    packed = status.get("media")
    if not packed:
        return []
    try:
        items = json.loads(packed) if isinstance(packed, str) else packed
        sid = int(status["id"])
        end = len(str(status.get("message", "")))
        made = []
        for place, item in enumerate(items):
            image_id = sid * 10 + place
            original = media_url(item["o"])
            made.append({
                "id": image_id,
                "id_str": str(image_id),
                "indices": [end, end],
                "media_url": original,
                "media_url_https": original,
                "preview_url_https": media_url(item["p"]),
                "url": original,
                "display_url": original,
                "expanded_url": original,
                "type": "photo",
                "sizes": {
                    "large": {"w": int(item["w"]), "h": int(item["h"]), "resize": "fit"},
                    "small": {"w": int(item["pw"]), "h": int(item["ph"]), "resize": "fit"},
                },
                "ext_alt_text": item.get("a") or None,
            })  # fmt: skip
        return made
    except (ValueError, TypeError, KeyError, AttributeError):
        return []


def tweet(status, found=None, media_url=relative_media_url):
    """The Tweet object of ``status`` (a status event's fields, repository.events), with
    its entities ``found`` in Twitter's format (None: unpacked from the status's packed
    ``entities``) and its images' (media_entities, their URLs by ``media_url``). A
    repost is a retweet: its text "RT @author: " and the original's text, its entities
    those of that text, and the original as ``retweeted_status``; its images are the
    original's, as on Twitter."""
    sid, uid = int(status["id"]), int(status["uid"])
    login = str(status.get("login", ""))
    message = str(status.get("message", ""))
    posted = float(status.get("posted", 0))
    text = message
    if found is None:
        found = entities.unpack(message, status.get("entities"))
    original = status.get("retweeted_status")
    retweeted = None
    photos = media_entities(status, media_url)
    if isinstance(original, dict):
        retweeted = tweet(
            {k: v for k, v in original.items() if k != "retweeted_status"}, media_url=media_url
        )
        text, found = retweet_text(retweeted)
        photos = retweeted.get("extended_entities", {}).get("media", [])
    parent = status.get("in_reply_to")
    replied_to = status.get("in_reply_to_uid")
    geo, coordinates, place = places(status.get("location"))
    fields = {
        "created_at": twitter_time(posted),
        "id": sid,
        "id_str": str(sid),
        "text": text,
        "truncated": False,
        "entities": with_ids(found),
        "in_reply_to_status_id": None if parent is None else int(parent),
        "in_reply_to_status_id_str": None if parent is None else str(int(parent)),
        "in_reply_to_user_id": None if replied_to is None else int(replied_to),
        "in_reply_to_user_id_str": None if replied_to is None else str(int(replied_to)),
        "in_reply_to_screen_name": None if parent is None else status.get("in_reply_to_login"),
        "user": user(uid, login, status.get("author")),
        "geo": geo,
        "coordinates": coordinates,
        "place": place,
        "is_quote_status": False,
    }
    if photos:
        # As Twitter's v1.1: the first photo in entities, every one in extended_entities.
        fields["entities"] = {**fields["entities"], "media": photos[:1]}
        fields["extended_entities"] = {"media": photos}
    if retweeted is not None:
        fields["retweeted_status"] = retweeted
    fields["timestamp_ms"] = str(int(posted * 1000))
    # The book's fields, for clients written against it; "posted" last (the benchmark's
    # load generator finds a line's own time there without decoding it).
    fields["message"] = message
    fields["uid"] = uid
    fields["login"] = login
    if "location" in status:
        fields["location"] = status["location"]
    fields["posted"] = posted
    return fields


def retweet_text(original):
    """(text, entities) of a retweet of the Tweet ``original``, as Twitter made them:
    "RT @author: " then the original's text, its entities moved along by that prefix,
    after a mention of the author."""
    screen_name = original["user"]["screen_name"]
    prefix = f"RT @{screen_name}: "
    shift = len(prefix)

    def moved(items):
        return [{**item, "indices": [item["indices"][0] + shift, item["indices"][1] + shift]}
                for item in items]  # fmt: skip

    found = original["entities"]
    author = original["user"]
    mention = {
        "screen_name": screen_name,
        "id": author["id"],
        "id_str": author["id_str"],
        "indices": [3, 4 + len(screen_name)],
    }
    return prefix + original["text"], {
        "hashtags": moved(found["hashtags"]),
        "user_mentions": [mention, *moved(found["user_mentions"])],
        "urls": moved(found["urls"]),
    }


def delete_notice(status):
    """Twitter's notice of the deletion of ``status`` (a deleted status's event), with
    the book's ``{"id": ID, "deleted": true}`` beside it."""
    sid, uid = int(status["id"]), int(status["uid"])
    return {
        "delete": {
            "status": {"id": sid, "id_str": str(sid), "user_id": uid, "user_id_str": str(uid)}
        },
        "id": sid,
        "deleted": True,
    }
