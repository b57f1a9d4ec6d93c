"""The stream server of section 8.5 (``manage.py stream``): one Redis subscription per
process, fanned out in memory to long-lived HTTP and WebSocket clients. Three products
share it, each found by its name:

- twitter.py: Twitter's v1.1 streaming API, the book's (sample and filter), with
  filters.py (the book's sample, track, follow and location filters, and the events
  read from the channel) and tweets.py (Tweet objects and delete notices).
- timeline/live.py: the live pages' feeds (/live/home, /live/messages), beside the
  pages they serve.
- api/streaming.py: Mastodon's streaming API, beside the client API it mirrors.

What they share, here:

- server.py: the ASGI application: routes the products register, errors, health,
  metrics, and ``stream``, which answers a request with a hub client.
- hub.py: one Redis subscription per process, fanned out in memory to the clients,
  each with a bounded queue; subscribing again after Redis restarts. index.py finds
  the clients an event can match.
- home.py: a user's home timeline as a filter (the live home page, Mastodon's user
  and list streams); refresh.py: the one loop that reads it again when told.
- replay.py: what a reconnecting client missed, before the live events.
- limits.py: connection limits uvicorn does not have (request timeout, per address,
  total); metrics.py: the server's /metrics; asgi.py: small HTTP helpers;
  direct_writes.py: writing to an idle connection from the hub.
"""
