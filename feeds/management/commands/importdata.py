"""``manage.py importdata DIR``: put back every cell of an exportdata DIR,
at its own timestamp, into the tables of this prefix. Rerun with the same
DIR to continue an import that was cut short; importing twice is harmless."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from django.conf import settings

from feeds.management.commands._base import TwitBaseCommand
from feeds.management.commands.exportdata import show_progress
from storage import backup


class Command(TwitBaseCommand):
    help = (
        "Import the export in DIR (made by exportdata) into the TwitBase tables of this "
        "prefix, each cell at its own timestamp; run createtables --apply first. Interrupted, run "
        "it again: it goes on from the last chunk put. Importing twice writes the same cells."
    )

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("directory", metavar="DIR")

    def handle(self, *args: Any, **o: Any) -> None:
        directory = Path(o["directory"])
        prefix = settings.TWITBASE_TABLE_PREFIX
        target = f"{settings.TWITBASE_HBASE_HOST}:{settings.TWITBASE_HBASE_PORT}"
        show_progress(
            self,
            "imported",
            directory,
            lambda conn: backup.import_tables(conn, directory, prefix, target=target),
            "from the last chunk put",
        )
