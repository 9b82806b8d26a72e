"""``manage.py tablestats``: count the tables' rows and sample their key
spreads now, for the console's pages (the worker does it every
TWITBASE_TABLE_STATS_EVERY_S)."""

from __future__ import annotations

import argparse
from typing import Any

from feeds.management.commands._base import TwitBaseCommand
from feeds.services import console


class Command(TwitBaseCommand):
    help = (
        "Count every table's rows (or one table's) and sample its key spread, and keep "
        "both for the console's tables and key-design pages. Celery beat has the worker "
        "do the same every TWITBASE_TABLE_STATS_EVERY_S; each table is reported as it is done."
    )

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--table", default="", help="one table (default: every table)")

    def handle(self, *args: Any, **o: Any) -> None:
        n = console.refresh_stats(o["table"], say=self.stdout.write)
        self.stdout.write(f"measured {n} table(s)")
