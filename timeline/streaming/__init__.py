"""The streaming server of section 8.5: the Twitter-style streaming API and the live
pages' feed, as an ASGI application run by ``manage.py stream``.

- filters.py: the book's sample, track, follow and location filters, and the checks
  on their parameters (plain Python).
- hub.py: one Redis subscription per process, fanned out in memory to the clients,
  each with a bounded queue; subscribing again after Redis restarts.
- app.py: the ASGI application: routes, errors, streaming responses.
- live.py: the logged-in home page's Server-Sent Events (sessions, CORS, statuses'
  markup).
- mastodon.py: Mastodon's streaming API (Server-Sent Events and the WebSocket under
  /api/v1/streaming), its streams clients of the same hub.
- limits.py: connection limits uvicorn does not have (request timeout, per address, total).
"""
