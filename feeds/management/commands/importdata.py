"""``manage.py importdata DIR``: put back every cell of an exportdata DIR,
at its own timestamp, into the tables of this prefix. Rerun with the same
DIR to continue an import that was cut short; importing twice is harmless."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import CommandError

from feeds.management.commands._base import TwitBaseCommand
from feeds.management.commands.exportdata import summary
from storage import backup
from storage.connection import connection


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
        started = time.monotonic()
        finished: list[backup.Progress] = []
        try:
            with connection() as conn:
                events = backup.import_tables(conn, directory, prefix, target=target)
                for event in backup.throttled(events):
                    self.stdout.write(backup.line(event))
                    self.stdout.flush()
                    if event.done:
                        finished.append(event)
        except backup.BackupError as exc:
            raise CommandError(str(exc)) from None
        except KeyboardInterrupt:
            raise CommandError(
                f"interrupted; run `python manage.py importdata {directory}` again to go on "
                "from the last chunk put"
            ) from None
        self.stdout.write(summary("imported", finished, time.monotonic() - started, directory))
