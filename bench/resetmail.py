"""How long asking for a password reset takes to answer, for a userid that
has an account and one that has not, while the mail server takes a second
over each message.

    python -m bench.resetmail [--asks 7] [--smtp-delay 1.0]

The page's answer time must not tell a stranger whether a userid is taken,
nor wait for the mail server. This starts a local HBase server, a Redis
broker (with no worker: a queued job waits there, as it would for a busy
worker) and an SMTP server (aiosmtpd) that sleeps ``--smtp-delay`` seconds
before it accepts each message, then posts the reset form through Django's
test client ``--asks`` times for each userid, taking turns, after one
warm-up ask. Run from an older tree (the module copied in) it measures the
version that sent the email in the request. Progress goes to stderr; the
table to stdout.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ASKS = 7


class _SlowInbox:
    """Accepts each message after ``delay_s``, and counts them."""

    def __init__(self, delay_s: float) -> None:
        self.delay_s = delay_s
        self.received = 0

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        await asyncio.sleep(self.delay_s)
        self.received += 1
        return "250 Message accepted for delivery"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def measure(asks: int, smtp_delay_s: float) -> dict[str, list[float]]:
    """Seconds each ask took to answer, by kind of userid."""
    from aiosmtpd.controller import Controller

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "twitbase.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.test import Client

    from devtools.localhbase_process import LocalHBaseProcess
    from devtools.processes import RedisProcess
    from feeds import services
    from storage.connection import connection, reset_pool
    from storage.schema import create_tables
    from twitbase.celery import app as celery_app
    from twitbase.celery import use_broker

    inbox = _SlowInbox(smtp_delay_s)
    smtp = Controller(inbox, hostname="127.0.0.1", port=_free_port())
    work = Path(tempfile.mkdtemp(prefix="resetmail-"))
    smtp.start()
    try:
        with (
            LocalHBaseProcess(work / "hbase") as hbase,
            RedisProcess(work / "redis", persist=False) as redis,
        ):
            overrides: dict[str, object] = {
                "TWITBASE_HBASE_HOST": hbase.host,
                "TWITBASE_HBASE_PORT": hbase.port,
                "TWITBASE_HBASE_THRIFT2_PORT": hbase.thrift2_port,
                "TWITBASE_TABLE_PREFIX": "rm",
                "TWITBASE_PASSWORD_RESETS_PER_MINUTE": 1_000_000,
                "TWITBASE_PASSWORD_RESETS_PER_ADDRESS": 1_000_000,
                "PASSWORD_HASHERS": ["django.contrib.auth.hashers.MD5PasswordHasher"],
                "ALLOWED_HOSTS": ["testserver"],
                "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
                "EMAIL_HOST": "127.0.0.1",
                "EMAIL_PORT": smtp.port,
                "EMAIL_USE_TLS": False,
                "EMAIL_USE_SSL": False,
                "CELERY_BROKER_URL": redis.url,
            }
            for name, value in overrides.items():
                setattr(settings, name, value)
            celery_app.conf.task_always_eager = False
            use_broker(redis.url)
            reset_pool()
            with connection() as conn:
                create_tables(conn)
            services.register("alice", "Alice", "alice@example.com", "password-123")
            client = Client()
            times: dict[str, list[float]] = {"alice (has an account)": [], "nobody (has none)": []}

            def ask(userid: str) -> float:
                started = time.perf_counter()
                response = client.post("/password/reset", {"userid": userid})
                elapsed = time.perf_counter() - started
                if response.status_code != 200:
                    raise SystemExit(f"POST /password/reset answered {response.status_code}")
                return elapsed

            ask("nobody")  # warm-up: the first request sets up what later ones reuse
            for n in range(asks):
                print(f"ask {n + 1} of {asks}", file=sys.stderr)
                times["alice (has an account)"].append(ask("alice"))
                times["nobody (has none)"].append(ask("nobody"))
            return times
    finally:
        smtp.stop()


def format_table(times: dict[str, list[float]], smtp_delay_s: float) -> str:
    lines = [
        f"POST /password/reset, mail server taking {smtp_delay_s:g} s a message",
        "",
        "| userid | asks | median ms | min ms | max ms |",
        "|---|---:|---:|---:|---:|",
    ]
    for userid, seconds in times.items():
        ms = [s * 1000 for s in seconds]
        lines.append(
            f"| {userid} | {len(ms)} | {statistics.median(ms):.1f} | {min(ms):.1f} "
            f"| {max(ms):.1f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--asks", type=int, default=ASKS, help="asks per userid")
    parser.add_argument("--smtp-delay", type=float, default=1.0, help="seconds per message")
    args = parser.parse_args(argv)
    print(format_table(measure(args.asks, args.smtp_delay), args.smtp_delay))


if __name__ == "__main__":
    main()
