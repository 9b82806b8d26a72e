"""``manage.py devstack``: the whole app on one machine, on the embedded default."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from devtools.devstack import DevStack


class Command(BaseCommand):
    help = (
        "Start the local HBase server, Redis, a Celery worker and the web server "
        "(each a child process), "
        "print where each is, restart any that dies, and stop them all on Ctrl-C."
    )

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--port", type=int, default=8000, help="web port (default 8000)")
        parser.add_argument("--host", default="127.0.0.1", help="web address (default 127.0.0.1)")
        parser.add_argument(
            "--data",
            type=Path,
            default=None,
            help="directory for the store and logs (default $TWITBASE_DATA_DIR or ./var/data)",
        )
        parser.add_argument(
            "--hbase-port",
            type=int,
            default=0,
            help="port of the local HBase server (default: a free one)",
        )
        parser.add_argument(
            "--backoff",
            type=float,
            default=1.0,
            help="seconds before restarting a part that died; doubles while it keeps "
            "dying (default 1)",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        data = (opts["data"] or settings.TWITBASE_DATA_DIR).resolve()
        stack = DevStack(
            data=data,
            host=opts["host"],
            port=opts["port"],
            hbase_port=opts["hbase_port"],
            backoff=opts["backoff"],
        )
        try:
            stack.start()
            self.stdout.write(stack.describe())
            stack.wait()
        except RuntimeError as exc:
            raise CommandError(str(exc)) from exc
        finally:
            stack.stop()
            self.stdout.write("devstack: stopped")
