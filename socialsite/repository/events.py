"""Broadcasting posted and deleted statuses to the streaming servers (section 8.5).

PUBLISH is fire-and-forget: a streaming server that is not subscribed at that moment
never sees the event. Nothing else in the site depends on these events arriving.
"""

import json

from . import keys


def publish_posted(r, status):
    """Publish a new status as JSON (its hash's fields)."""
    r.publish(keys.STATUS_CHANNEL, json.dumps(status))


def publish_deleted(r, status):
    """Publish a deleted status with ``deleted: true``.

    The whole status goes out, not only its id, so that a streaming filter can decide
    whether the deletion concerns its client exactly as it decided for the post.
    """
    r.publish(keys.STATUS_CHANNEL, json.dumps({**status, "deleted": True}))
