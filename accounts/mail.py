"""Mail the site sends: what each message says and how it goes out (docs/email.md).

Pages only queue mail (repository/mail.py); the fan-out workers take it from the queue
and send it here with Django's mail API (``manage.py fanout`` calls ``send``). A
message's links are built from settings.SITE_URL, never from a request's Host header,
and its tokens are made when it is sent, so the queue holds no secret.
"""

import re
import sys

from django.core.mail.backends.filebased import EmailBackend as FileBackend

LINK = re.compile(r"https?://\S+")


class DevelopmentMailBackend(FileBackend):
    """The embedded run's mail (no EMAIL_URL, DEBUG on): each message written to a file
    under DATA_DIR/mail/, and its links printed on the site's console, so that a
    newcomer can verify an address or reset a password without a mail server."""

    def write_message(self, message):
        super().write_message(message)
        links = LINK.findall(message.body)
        print(f"Mail to {', '.join(message.to)}: {message.subject}", file=sys.stderr)
        for link in links:
            print(f"    {link}", file=sys.stderr)
        sys.stderr.flush()
