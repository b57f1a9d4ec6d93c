"""Small ASGI helpers of the stream server, without a web framework: whole responses
with readable bodies, CORS preflights, the request's headers, query string, form body
and client address."""

from urllib.parse import parse_qs

from socialsite import throttling

from .filters import RequestError

# A request's body: a filter request's 5,000 logins of up to 30 characters and 400
# phrases of up to 60 bytes fit in well under this.
MAX_BODY_BYTES = 1024 * 1024
# Form fields per request: enough for every limit, and parse_qs's guard against
# requests made of nothing but separators.
MAX_FORM_FIELDS = 10_000

# Every response of this server says what it is and forbids guessing otherwise: a
# browser must never take a stream that quotes what people wrote for HTML.
NOSNIFF = (b"x-content-type-options", b"nosniff")
JSON_TYPE = b"application/json; charset=utf-8"


class ClientGone(Exception):
    """The client disconnected before its request was read."""


async def send_preflight(send, cors, allowed_headers):
    """Answer a CORS preflight of a GET stream: 204 with ``cors`` and the request
    headers ``allowed_headers`` (bytes) a browser may send with it."""
    preflight = [
        (b"access-control-allow-methods", b"GET"),
        (b"access-control-allow-headers", allowed_headers),
        (b"access-control-max-age", b"600"),
        NOSNIFF,
    ]
    await send({"type": "http.response.start", "status": 204, "headers": cors + preflight})
    await send({"type": "http.response.body", "body": b""})


async def send_text(
    send, status, text, headers=(), content_type=b"text/plain; charset=utf-8", head=False
):
    """A whole response with a readable body (errors, the health check); with ``head``
    (a HEAD request), its headers only."""
    await send_bytes(send, status, text.encode() + b"\n", content_type, headers, head)


async def send_bytes(send, status, body, content_type, headers=(), head=False):
    """A whole response of ``body`` (bytes); with ``head``, its headers only."""
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", content_type),
                (b"content-length", str(len(body)).encode()),
                # Error texts may quote the request: never let a browser sniff HTML.
                NOSNIFF,
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": b"" if head else body})


async def wait_for_disconnect(receive):
    """Return when the client goes away (ASGI's http.disconnect)."""
    while (await receive())["type"] != "http.disconnect":
        pass


def client_address(scope):
    """The client's address as the site's pages count it (throttling.address_from:
    behind a proxy, the last address of X-Forwarded-For), an IPv6 address as its /64."""
    peer = scope.get("client")
    forwarded = request_headers(scope).get("x-forwarded-for", "")
    address = throttling.address_from(peer[0] if peer else "", forwarded)
    return throttling.address_bucket(address)


def request_headers(scope):
    """The request's headers as {lowercased name: value} (the last of repeats)."""
    return {name.decode("latin-1"): value.decode("latin-1") for name, value in scope["headers"]}


def parse_query(scope):
    return parse_qs(
        scope["query_string"].decode("latin-1"),
        keep_blank_values=True,
        max_num_fields=MAX_FORM_FIELDS,
    )


def first(fields, name):
    values = fields.get(name)
    return values[0] if values else None


async def read_form(scope, receive):
    """The request body's form fields, {name: [values]} (application/x-www-form-urlencoded)."""
    content_type = request_headers(scope).get("content-type", "")
    media_type = content_type.partition(";")[0].strip().lower()
    if media_type not in ("", "application/x-www-form-urlencoded"):
        raise RequestError(
            415, f"Send the filter as application/x-www-form-urlencoded, not {media_type}."
        )
    body = bytearray()
    more = True
    while more:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ClientGone
        body += message.get("body", b"")
        more = message.get("more_body", False)
        if len(body) > MAX_BODY_BYTES:
            raise RequestError(413, f"The request body is over {MAX_BODY_BYTES} bytes.")
    try:
        return parse_qs(
            body.decode("utf-8"),
            keep_blank_values=True,
            strict_parsing=False,
            max_num_fields=MAX_FORM_FIELDS,
        )
    except UnicodeDecodeError:
        raise RequestError(400, "The request body is not valid UTF-8.") from None
    except ValueError:
        raise RequestError(413, f"More than {MAX_FORM_FIELDS} form fields.") from None
