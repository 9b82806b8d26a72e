"""``manage.py benchconsole``: the staff console's page views as the demo
grows, beside the background job that keeps their figures (bench/console.py)."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

from django.core.management.base import CommandError

from bench import console as bench_console
from devtools.localhbase_process import LocalHBaseProcess
from devtools.processes import free_port
from feeds.management.commands._base import TwitBaseCommand
from feeds.management.commands.loaddemo import ProgressBar


class Command(TwitBaseCommand):
    help = (
        "Time the console's pages on demo graphs of growing size (a fresh local HBase "
        "server with pre-split tables, or --host/--port), and the background job that "
        "counts the tables for them."
    )

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--sizes",
            default="10000,100000",
            help="demo users (and as many twits), comma-separated (default 10000,100000)",
        )
        parser.add_argument("--reads", type=int, default=20, help="fetches of each page")
        parser.add_argument("--host", help="an existing Thrift server instead of a fresh one")
        parser.add_argument("--port", type=int, default=9090)
        parser.add_argument("--thrift2-port", type=int, default=0)
        parser.add_argument("--svg", help="also draw the results as an SVG chart to this file")
        parser.add_argument("--title", default="Console pages as the demo grows")
        parser.add_argument(
            "--chart-from",
            metavar="FILE",
            help="draw --svg from a table this command printed before, instead of running",
        )
        parser.add_argument(
            "--before",
            metavar="FILE",
            help="a table printed by an earlier version, charted beside the results",
        )

    def handle(self, *args: Any, **o: Any) -> None:
        sizes = tuple(int(x) for x in o["sizes"].split(",") if x.strip())
        bar = ProgressBar(self.stderr._out)
        before = None
        if o["before"]:
            before = bench_console.parse_table(Path(o["before"]).read_text())
        if o["chart_from"]:
            if not o["svg"]:
                raise CommandError("--chart-from draws a chart: give --svg FILE too")
            results = bench_console.parse_table(Path(o["chart_from"]).read_text())
            bench_console.draw(results, o["svg"], o["title"], before)
            self.stderr.write(f"chart written to {o['svg']}")
            return
        if o["host"]:
            results = bench_console.run(
                o["host"], o["port"], o["thrift2_port"], sizes, o["reads"], bar
            )
        else:
            with (
                tempfile.TemporaryDirectory() as tmp,
                LocalHBaseProcess(Path(tmp) / "data", thrift2_port=free_port()) as server,
            ):
                results = bench_console.run(
                    server.host, server.port, server.thrift2_port, sizes, o["reads"], bar
                )
        self.stdout.write(bench_console.format_table(results))
        if o["svg"]:
            bench_console.draw(results, o["svg"], o["title"], before)
            self.stderr.write(f"chart written to {o['svg']}")
