"""``manage.py benchschema``: tall-narrow vs flat-wide for a user's twits."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand

from bench import schema as bench_schema
from devtools.localhbase_process import LocalHBaseProcess


class Command(BaseCommand):
    help = (
        "Measure a row per twit (tall) against a column per twit (wide) on a fresh "
        "local HBase server, or on --host/--port."
    )

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--sizes",
            default="10,100,1000,5000",
            help="twits per user, comma-separated (default 10,100,1000,5000)",
        )
        parser.add_argument("--users", type=int, default=5)
        parser.add_argument("--reads", type=int, default=50)
        parser.add_argument("--host", help="an existing Thrift server instead of a fresh one")
        parser.add_argument("--port", type=int, default=9090)

    def handle(self, *args: Any, **o: Any) -> None:
        sizes = tuple(int(x) for x in o["sizes"].split(","))
        if o["host"]:
            results = bench_schema.run(o["host"], o["port"], sizes, o["users"], o["reads"])
        else:
            with (
                tempfile.TemporaryDirectory() as tmp,
                LocalHBaseProcess(Path(tmp) / "data") as server,
            ):
                results = bench_schema.run(server.host, server.port, sizes, o["users"], o["reads"])
        self.stdout.write(bench_schema.format_table(results))
