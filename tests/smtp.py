"""A real SMTP server for tests: aiosmtpd on a free port, in a thread,
keeping every message it receives."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email import message_from_bytes
from email.message import Message
from typing import Any

from aiosmtpd.controller import Controller


@dataclass
class Inbox:
    """What the server received, in order."""

    host: str
    port: int
    messages: list[Message] = field(default_factory=list)
    # Seconds the server takes over each message before it accepts it, as a
    # slow mail server does.
    delay_s: float = 0.0

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        await asyncio.sleep(self.delay_s)
        message = message_from_bytes(envelope.content)
        message["X-Rcpt-To"] = ", ".join(envelope.rcpt_tos)
        self.messages.append(message)
        return "250 Message accepted for delivery"

    def wait_for(self, count: int = 1, timeout_s: float = 10.0) -> list[Message]:
        """The first ``count`` messages, once they have arrived."""
        deadline = time.monotonic() + timeout_s
        while len(self.messages) < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"{len(self.messages)} of {count} emails arrived")
            time.sleep(0.02)
        return self.messages[:count]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def smtp_server(delay_s: float = 0.0) -> Iterator[Inbox]:
    """An SMTP server on 127.0.0.1 that takes ``delay_s`` over each message,
    stopped on leaving."""
    inbox = Inbox("127.0.0.1", free_port(), delay_s=delay_s)
    controller = Controller(inbox, hostname=inbox.host, port=inbox.port)
    controller.start()
    try:
        yield inbox
    finally:
        controller.stop()


def body(message: Message) -> str:
    payload = message.get_payload(decode=True)
    assert isinstance(payload, bytes)
    return payload.decode()
