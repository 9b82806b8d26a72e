"""``manage.py loaddemo --users N --twits M``: a synthetic power-law social graph,
with replies, likes, reposts, mentions and hashtags."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.management.base import CommandError

from feeds.management.commands._base import TwitBaseCommand
from feeds.services import bulk
from storage.connection import connection
from storage.schema import create_tables


class ProgressBar:
    """One line per stage on stderr, redrawn in place: done/total, rate, ETA.

    The rate is the stage's average since it started (its first report, of 0
    done). Until MIN_RATE_S have passed it shows as ``--``: a rate over a few
    milliseconds (one batch sent) says nothing and can be off by orders of
    magnitude. A stage that finishes sooner shows its true average.
    """

    MIN_RATE_S = 1.0
    REDRAW_S = 0.2

    def __init__(self, stream: Any = sys.stderr, clock: Callable[[], float] = time.monotonic):
        self.stream = stream
        self.clock = clock
        self.stage = ""
        self.started = 0.0
        self.last_draw = 0.0

    def __call__(self, stage: str, done: int, total: int) -> None:
        now = self.clock()
        if stage != self.stage:
            self.stage, self.started, self.last_draw = stage, now, 0.0
        elif done < total and now - self.last_draw < self.REDRAW_S:
            return
        self.last_draw = now
        elapsed = now - self.started
        if done >= total or elapsed >= self.MIN_RATE_S:
            rate = done / elapsed if elapsed > 0 else 0.0
            shown = f"{rate:>9,.0f}/s"
            eta = f"{(total - done) / rate:4.0f}s" if rate else "  --"
        else:
            shown, eta = f"{'--':>9}/s", "  --"
        width = 30
        filled = int(width * done / total) if total else width
        bar = "#" * filled + "-" * (width - filled)
        self.stream.write(f"\r{stage:8} [{bar}] {done:>10,}/{total:,}  {shown}  eta {eta}")
        if done >= total:
            self.stream.write(f"  done in {elapsed:.1f}s\n")
        self.stream.flush()


class Command(TwitBaseCommand):
    help = (
        "Load N demo users with a power-law follow graph and M twits fanned out to "
        "streams, with replies, likes, reposts, mentions and hashtags. The same seed gives "
        "the same graph and twits (their times aside). Into tables that hold a demo already "
        "it refuses: a second load would add every twit again under new ids."
    )

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--users", type=int, required=True)
        parser.add_argument("--twits", type=int, required=True)
        parser.add_argument(
            "--follows", type=int, default=20, help="mean follows per user (default 20)"
        )
        parser.add_argument("--seed", type=int, default=42)
        parser.add_argument(
            "--image-twits",
            type=int,
            default=12,
            help="twits with generated images, posted as people post them (default 12)",
        )
        parser.add_argument(
            "--processes",
            type=int,
            default=2,
            help="processes writing the users, follows and twits (default 2: one per core "
            "here, beside the server)",
        )

    def handle(self, *args: Any, **o: Any) -> None:
        if o["users"] < 1 or o["twits"] < 0 or o["follows"] < 0 or o["processes"] < 1:
            raise CommandError("--users and --processes must be >= 1; --twits and --follows >= 0")
        with connection() as conn:
            create_tables(conn)
        loaded = bulk.demo_loaded()
        if loaded is not None:
            raise CommandError(
                f"These tables (prefix {settings.TWITBASE_TABLE_PREFIX!r}) hold a demo already "
                f"({loaded} exists); loading it again would add every twit a second time under "
                "new ids and overwrite the counts, so nothing was written. To load it afresh, "
                "empty them first (manage.py createtables --reset --apply: DELETES ALL THEIR "
                "DATA), or load into other tables (another TWITBASE_TABLE_PREFIX)."
            )
        # First, so it is on screen before the progress bars (and above them
        # in a scroll-back), not only at the end of a long load.
        last = bulk.demo_userid(o["users"] - 1)
        self.stdout.write(
            f"demo password: {bulk.DEMO_PASSWORD}  (every demo user has it; log in as "
            f"{bulk.demo_userid(0)}, or any user up to {last})"
        )
        self.stdout.flush()
        stats = bulk.load_demo(
            o["users"],
            o["twits"],
            seed=o["seed"],
            mean_follows=o["follows"],
            progress=ProgressBar(self.stderr._out),
            processes=o["processes"],
        )
        total = sum(stats.rows_written.values())
        self.stdout.write(
            f"loaded {stats.users:,} users, {stats.edges:,} follows "
            f"(most followed: {stats.most_followed}, {stats.max_followers:,} followers), "
            f"{stats.twits:,} twits ({stats.replies:,} of them replies), "
            f"{stats.likes:,} likes, {stats.reposts:,} reposts, {stats.stream_rows:,} stream rows"
        )
        self.stdout.write(f"{stats.edited:,} twits edited (they show a history)")
        if o["image_twits"] > 0:
            posted = bulk.post_image_twits(o["users"], o["image_twits"], seed=o["seed"])
            self.stdout.write(f"posted {posted:,} twits with generated images")
        for table, rows in sorted(stats.rows_written.items()):
            self.stdout.write(f"  {table:<11} {rows:>12,} row{'' if rows == 1 else 's'}")
        self.stdout.write(
            f"{total:,} rows in {stats.seconds:.1f}s ({total / stats.seconds:,.0f} rows/s); "
            f"every demo user's password is {bulk.DEMO_PASSWORD!r}, e.g. log in as "
            f"{bulk.demo_userid(0)}; to watch a large fan-out, post as {stats.most_followed}"
        )
