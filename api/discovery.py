"""What a client reads to learn which server it talks to, before any token: NodeInfo
(/.well-known/nodeinfo and /nodeinfo/2.0, as every fediverse server serves it: the
software, its version and usage counts; megalodon's ``detector()`` reads it). Open to
every origin (api/middleware.py), as the OAuth metadata beside it."""

from django.views.decorators.http import require_GET

from socialsite.connection import get_redis
from socialsite.repository import users

from . import entities
from .instance import MASTODON_VERSION, TITLE, software_version
from .responses import json_response

NODEINFO_SCHEMA = "http://nodeinfo.diaspora.software/ns/schema/2.0"


def _public(response):
    """A discovery document: the same for everyone, kept a few minutes by anyone."""
    response["Cache-Control"] = "public, max-age=300"
    return response


@require_GET
def nodeinfo_links(request):
    """GET /.well-known/nodeinfo: where the NodeInfo document is."""
    base = entities.site_base(request)
    return _public(
        json_response({"links": [{"rel": NODEINFO_SCHEMA, "href": f"{base}/nodeinfo/2.0"}]})
    )


@require_GET
def nodeinfo(request):
    """GET /nodeinfo/2.0: the software, no federation protocol yet, the accounts and
    statuses counted in one round trip. ``metadata.upstream`` names the API it speaks
    (Mastodon's), which is how client libraries tell what to call on a server whose
    software they do not know."""
    accounts, posts = users.site_counts(get_redis())
    return _public(
        json_response(
            {
                "version": "2.0",
                "software": {"name": "socialsite", "version": software_version()},
                "protocols": [],
                "services": {"inbound": [], "outbound": []},
                "usage": {"users": {"total": accounts}, "localPosts": posts},
                "openRegistrations": True,
                "metadata": {
                    "nodeName": TITLE,
                    "upstream": {"name": "mastodon", "version": MASTODON_VERSION},
                },
            }
        )
    )
