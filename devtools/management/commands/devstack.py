"""``manage.py devstack``: the whole app on one machine, on the embedded default."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import CommandError

from devtools.devstack import DevStack, parse_hostport
from feeds.management.commands._base import TwitBaseCommand


class Command(TwitBaseCommand):
    help = (
        "Start the local HBase server, Redis, a Celery worker and the web server "
        "(each a child process), "
        "print where each is, restart any that dies, and stop them all on Ctrl-C."
    )

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--port",
            type=int,
            default=None,
            help="web port (default 8000, or a free one if 8000 is taken)",
        )
        parser.add_argument("--host", default="127.0.0.1", help="web address (default 127.0.0.1)")
        parser.add_argument(
            "--data",
            type=Path,
            default=None,
            help="directory for the store, logs and ports.json "
            "(default $TWITBASE_DATA_DIR or ./var/data)",
        )
        parser.add_argument(
            "--hbase-port",
            type=int,
            default=None,
            help="port of the local HBase server (default 9090, or a free one if taken; "
            "0: a free one, and a free one for its Thrift2 API too)",
        )
        parser.add_argument(
            "--redis-port",
            type=int,
            default=None,
            help="port of Redis (default 6379, or a free one if taken; 0: a free one)",
        )
        parser.add_argument(
            "--hbase",
            metavar="HOST:PORT",
            default=None,
            help="use this HBase Thrift server (e.g. Apache HBase's) instead of starting "
            "the local one; its tables are created at start",
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
        hbase = None
        if opts["hbase"] is not None:
            if opts["hbase_port"] is not None:
                raise CommandError("--hbase and --hbase-port exclude each other")
            try:
                hbase = parse_hostport(opts["hbase"])
            except ValueError as exc:
                raise CommandError(f"--hbase: {exc}") from None
        stack = DevStack(
            data=data,
            host=opts["host"],
            port=opts["port"],
            hbase_port=opts["hbase_port"],
            redis_port=opts["redis_port"],
            hbase=hbase,
            backoff=opts["backoff"],
        )
        stack.catch_signals()
        try:
            stack.start()
            self.stdout.write(stack.describe())
            stack.wait()
        except RuntimeError as exc:
            raise CommandError(str(exc)) from exc
        except KeyboardInterrupt as exc:
            by = str(exc) or "Ctrl-C"
            raise CommandError(f"stopped by {by} before every part was up") from None
        finally:
            stack.stop()
            self.stdout.write("devstack: stopped")
