"""``manage.py benchstorage``: batch puts, gets, scans and counters on each store."""

from __future__ import annotations

import argparse
import dataclasses
import os
import platform
from typing import Any

from django.core.management.base import CommandError

from bench import storage as bench
from devtools.management.options import add_targets
from feeds.management.commands._base import TwitBaseCommand


def _csv_ints(text: str) -> tuple[int, ...]:
    try:
        values = tuple(int(x) for x in text.split(",") if x)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected numbers like 1,4; got {text!r}") from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError("client counts must be >= 1")
    return values


def machine() -> str:
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if "model name" in line)
    except (OSError, StopIteration):
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{os.cpu_count()} cores ({cpu}), {mem:.0f} GiB, Python {platform.python_version()}"


class Command(TwitBaseCommand):
    help = "Benchmark the local HBase server against real HBase and raw in-process RocksDB."

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        add_targets(parser, ("raw", "local", "hbase"))
        parser.add_argument(
            "--clients",
            type=_csv_ints,
            default=(1, 4),
            help="concurrent client counts (default 1,4)",
        )
        for size in dataclasses.fields(bench.Workload):
            parser.add_argument(f"--{size.name}", type=int, default=size.default)
        parser.add_argument("--svg", help="also draw the results as an SVG chart to this file")

    def handle(self, *args: Any, **opts: Any) -> None:
        if opts["rows"] % opts["batch"] or opts["rows"] % bench.GROUP:
            raise CommandError(f"--rows must be a multiple of --batch and of {bench.GROUP}")
        w = bench.Workload(
            **{size.name: opts[size.name] for size in dataclasses.fields(bench.Workload)}
        )
        self.stderr.write(f"machine: {machine()}")
        self.stderr.write(f"workload: {w}")
        results = bench.run(opts["targets"], opts["clients"], w)
        self.stdout.write(f"machine: {machine()}\n")
        self.stdout.write(bench.format_table(results))
        self.stdout.write("\nWhere a batch put's time goes (same run, one process):\n")
        self.stdout.write(bench.format_breakdown(bench.write_path_breakdown()))
        if opts["svg"]:
            with open(opts["svg"], "w") as f:
                f.write(bench.svg_chart(results, f"Storage benchmark: {machine()}"))
            self.stderr.write(f"chart written to {opts['svg']}")
