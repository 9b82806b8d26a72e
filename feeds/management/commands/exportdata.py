"""``manage.py exportdata DIR``: every TwitBase table, every cell with its
timestamp, to files in DIR (the format: storage/backup.py). Rerun with the
same DIR to continue an export that was cut short."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import happybase
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from feeds.management.commands._base import TwitBaseCommand
from storage import backup
from storage.connection import connection


class Command(TwitBaseCommand):
    help = (
        "Export every TwitBase table of this prefix, every cell with its timestamp, to "
        "files in DIR (made if missing). Interrupted, run it again with the same DIR: it "
        "goes on from the last chunk written. Restore with importdata."
    )

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("directory", metavar="DIR")
        parser.add_argument(
            "--chunk-rows",
            type=int,
            default=backup.CHUNK_ROWS,
            help=f"rows per file, the unit of resuming (default {backup.CHUNK_ROWS:,})",
        )

    def handle(self, *args: Any, **o: Any) -> None:
        if o["chunk_rows"] < 1:
            raise CommandError("--chunk-rows must be at least 1")
        directory = Path(o["directory"])
        prefix = settings.TWITBASE_TABLE_PREFIX
        source = f"{settings.TWITBASE_HBASE_HOST}:{settings.TWITBASE_HBASE_PORT}"
        show_progress(
            self,
            "exported",
            directory,
            lambda conn: backup.export_tables(
                conn, directory, prefix, source=source, chunk_rows=o["chunk_rows"]
            ),
            "from the last chunk written",
        )


def show_progress(
    command: BaseCommand,
    verb: str,
    directory: Path,
    events: Callable[[happybase.Connection], Iterator[backup.Progress]],
    resumes: str,
) -> None:
    """Run an export or import (``events`` of a connection), printing its
    progress lines and, at the end, :func:`summary`; its errors, and Ctrl-C,
    as one line (Ctrl-C's saying how to go on, ``resumes``)."""
    started = time.monotonic()
    finished: list[backup.Progress] = []
    try:
        with connection() as conn:
            for event in backup.throttled(events(conn)):
                command.stdout.write(backup.line(event))
                command.stdout.flush()
                if event.done:
                    finished.append(event)
    except backup.BackupError as exc:
        raise CommandError(str(exc)) from None
    except KeyboardInterrupt:
        name = "exportdata" if verb == "exported" else "importdata"
        raise CommandError(
            f"interrupted; run `python manage.py {name} {directory}` again to go on {resumes}"
        ) from None
    command.stdout.write(summary(verb, finished, time.monotonic() - started, directory))


def summary(verb: str, finished: list[backup.Progress], seconds: float, directory: Path) -> str:
    """The last line of an export or import: what this run did, in all."""
    rows = sum(e.run_rows for e in finished)
    cells = sum(e.cells for e in finished if not e.earlier)
    earlier = sum(e.earlier for e in finished)
    text = (
        f"{verb} {len(finished) - earlier} table(s), {rows:,} rows, {cells:,} cells "
        f"{'to' if verb == 'exported' else 'from'} {directory} in {seconds:.1f}s "
        f"({rows / seconds if seconds > 0 else 0:,.0f} rows/s)"
    )
    if earlier:
        text += f"; {earlier} done by an earlier run"
    return text
