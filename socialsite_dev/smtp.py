"""A real SMTP server on a loopback port (aiosmtpd), keeping what it is sent, for the
mail tests: it can be stopped and started again on the same port (a mail server down)."""

import email
import email.policy
import threading

from aiosmtpd.controller import Controller

from .ports import free_port


class _Keeper:
    def __init__(self, server):
        self.server = server

    async def handle_DATA(self, smtp_server, session, envelope):
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        with self.server.lock:
            self.server.messages.append(message)
        return "250 OK"


class SmtpServer:
    def __init__(self):
        self.port = free_port()
        self.messages = []
        self.lock = threading.Lock()
        self.controller = None

    def start(self):
        self.controller = Controller(_Keeper(self), hostname="127.0.0.1", port=self.port)
        self.controller.start()
        return self

    def stop(self):
        if self.controller is not None:
            self.controller.stop()
            self.controller = None

    def received(self):
        with self.lock:
            return list(self.messages)

    def clear(self):
        with self.lock:
            self.messages.clear()
