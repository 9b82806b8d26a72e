"""``manage.py loaddemo --users N --twits M``: a synthetic power-law social graph."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from feeds.services import bulk
from storage.connection import connection
from storage.schema import create_tables


class ProgressBar:
    """One line per stage on stderr, redrawn in place: done/total, rate, ETA."""

    def __init__(self, stream: Any = sys.stderr) -> None:
        self.stream = stream
        self.stage = ""
        self.started = 0.0
        self.last_draw = 0.0

    def __call__(self, stage: str, done: int, total: int) -> None:
        now = time.monotonic()
        if stage != self.stage:
            self.stage, self.started = stage, now
        if done < total and now - self.last_draw < 0.2:
            return
        self.last_draw = now
        elapsed = max(now - self.started, 1e-9)
        rate = done / elapsed
        eta = (total - done) / rate if rate else 0
        width = 30
        filled = int(width * done / total) if total else width
        bar = "#" * filled + "-" * (width - filled)
        self.stream.write(
            f"\r{stage:8} [{bar}] {done:>10,}/{total:,}  {rate:>9,.0f}/s  eta {eta:4.0f}s"
        )
        if done >= total:
            self.stream.write(f"  done in {elapsed:.1f}s\n")
        self.stream.flush()


class Command(BaseCommand):
    help = (
        "Load N demo users with a power-law follow graph and M twits fanned out to "
        "streams. Repeatable: the same seed gives the same graph."
    )

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--users", type=int, required=True)
        parser.add_argument("--twits", type=int, required=True)
        parser.add_argument(
            "--follows", type=int, default=20, help="mean follows per user (default 20)"
        )
        parser.add_argument("--seed", type=int, default=42)

    def handle(self, *args: Any, **o: Any) -> None:
        if o["users"] < 1 or o["twits"] < 0 or o["follows"] < 0:
            raise CommandError("--users must be >= 1; --twits and --follows >= 0")
        with connection() as conn:
            create_tables(conn)
        stats = bulk.load_demo(
            o["users"],
            o["twits"],
            seed=o["seed"],
            mean_follows=o["follows"],
            progress=ProgressBar(self.stderr._out),
        )
        total = sum(stats.rows_written.values())
        self.stdout.write(
            f"loaded {stats.users:,} users, {stats.edges:,} follows "
            f"(most-followed user: {stats.max_followers:,} followers), "
            f"{stats.twits:,} twits, {stats.stream_rows:,} stream rows"
        )
        for table, rows in sorted(stats.rows_written.items()):
            self.stdout.write(f"  {table:<11} {rows:>12,} rows")
        self.stdout.write(
            f"{total:,} rows in {stats.seconds:.1f}s ({total / stats.seconds:,.0f} rows/s); "
            f"every demo user's password is {bulk.DEMO_PASSWORD!r}, e.g. log in as "
            f"{bulk.demo_userid(0)}"
        )
