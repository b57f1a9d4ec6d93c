"""The book's streaming design (listing 8.15 of *Redis in Action*), for comparison only:
every client holds a Redis subscription of its own, and decodes and filters every
event itself. ``manage.py bench_stream_server`` runs the streaming server with it, and
``manage.py bench_stream`` measures it against the server's own design, one
subscription per process (streaming/hub.py), in the same run.
"""

import asyncio

from streaming.hub import Hub


class PerClientHub(Hub):
    """A hub whose clients each subscribe on their own, as in the book."""

    # The book's clients want statuses alone.
    listens_to_notifications = False

    def __init__(self, urls, **options):
        super().__init__(urls, **options)
        self.subscribers = {}

    @property
    def subscribed(self):
        # No client, no subscription: the server is still ready for clients.
        return True

    async def start(self):
        # Keep-alives only: each client subscribes when it is added.
        self.tasks.append(asyncio.create_task(self._send_keepalives()))

    def add(self, client):
        if not super().add(client):
            return False

        async def on_event(text):
            event = self.decode(text)
            if event is not None and self.matches(client, event) and not client.closing:
                if self.prepare is not None and client.format.needs_author_name:
                    await self.prepare(event)
                self.deliver(client, client.format.bytes_for(event))

        self.subscribers[client] = asyncio.create_task(self._follow_channel(on_event))
        return True

    def remove(self, client):
        super().remove(client)
        task = self.subscribers.pop(client, None)
        if task is not None:
            task.cancel()

    async def stop(self):
        tasks = list(self.subscribers.values())
        for client in list(self.subscribers):
            self.remove(client)
        await asyncio.gather(*tasks, return_exceptions=True)
        await super().stop()
