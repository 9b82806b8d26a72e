"""``manage.py benchedits``: a twit's history of edits against a raw
multi-version get of its h:text cell, and the hydrate step's lookup with the
t:edit column against the same multi-get without it (bench/edits.py), on a
fresh local HBase server or on --host/--port. Prints a table."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

from bench import edits as bench_edits
from devtools.localhbase_process import LocalHBaseProcess
from feeds.management.commands._base import TwitBaseCommand


class Command(TwitBaseCommand):
    help = "Measure reading a twit's edit history against a raw multi-version get."

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--reads", type=int, default=200)
        parser.add_argument("--host", help="an existing Thrift server instead of a fresh one")
        parser.add_argument("--port", type=int, default=9090)

    def handle(self, *args: Any, **o: Any) -> None:
        if o["host"]:
            results = bench_edits.run(o["host"], o["port"], o["reads"])
        else:
            with (
                tempfile.TemporaryDirectory() as tmp,
                LocalHBaseProcess(Path(tmp) / "data") as server,
            ):
                results = bench_edits.run(server.host, server.port, o["reads"])
        self.stdout.write(bench_edits.format_table(results))
