"""The one loop that keeps a long-lived stream's view of its user fresh.

A live page and a Mastodon stream both hold something read from Redis when they
started: whom the user follows and hides, whether their session or token is still
good. A follow, unfollow, block, mute, logout, password change or revoked token is
published on the channel and sets the client's ``refresh`` event (Hub.dispatch), so
it is read again at once; the periodic read is for events lost (pub/sub is at most
once) and sessions that expire.
"""

import asyncio
import random


async def refresh_until_ended(client, period_seconds, refresh):
    """Await ``refresh()`` whenever ``client.refresh`` is set, and every
    ``period_seconds`` otherwise, until it returns False (the stream is to end).

    The period is spread out (randomly 0.8 to 1.2 of it) so that streams opened
    together do not read together ever after.
    """
    while True:
        period = period_seconds * random.uniform(0.8, 1.2)
        try:
            await asyncio.wait_for(client.refresh.wait(), period)
        except TimeoutError:
            pass
        client.refresh.clear()
        if not await refresh():
            return
