"""``manage.py benchfanout``: fan-out by real workers, on the local server and real HBase."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

from bench import fanout as bench_fanout
from devtools.localhbase_process import LocalHBaseProcess
from devtools.management.options import add_targets
from feeds.management.commands._base import TwitBaseCommand


class Command(TwitBaseCommand):
    help = (
        "Measure fan-out rows/s with 1, 2 and 4 worker processes against raw batched "
        "puts, post-to-visible latency for a 10k-follower account, and home-stream "
        "read latency; on a fresh local HBase server and on real HBase."
    )

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        add_targets(parser, ("local", "hbase"))
        parser.add_argument("--followers", type=int, default=10_000)
        parser.add_argument("--posts", type=int, default=3, help="twits per throughput measurement")
        parser.add_argument("--latency-posts", type=int, default=10)
        parser.add_argument("--graph-users", type=int, default=2_000)
        parser.add_argument("--reads", type=int, default=200)
        parser.add_argument(
            "--full-streams",
            action="store_true",
            help="first fill each follower's stream to TWITBASE_STREAM_MAX rows, so "
            "trims read what they read in a running service",
        )
        parser.add_argument(
            "--large-followers",
            type=int,
            default=0,
            help="also time posts by an account with this many followers, merged at "
            "read time, against posts by one with none (0: not measured)",
        )

    def handle(self, *args: Any, **o: Any) -> None:
        kwargs = dict(
            star_followers=o["followers"],
            posts=o["posts"],
            latency_posts=o["latency_posts"],
            graph_users=o["graph_users"],
            reads=o["reads"],
            large_followers=o["large_followers"],
            full_streams=o["full_streams"],
        )
        rows = []
        with tempfile.TemporaryDirectory(prefix="benchfanout-") as tmp:
            work = Path(tmp)
            for target in o["targets"]:
                if target == "local":
                    with LocalHBaseProcess(work / "local") as server:
                        rows += bench_fanout.run(
                            "local", server.host, server.port, server.thrift2_port, work, **kwargs
                        )
                else:
                    from devtools.realhbase import for_benchmarks

                    with for_benchmarks(work / "hbase") as hbase:
                        rows += bench_fanout.run(
                            "hbase",
                            "127.0.0.1",
                            hbase.thrift_port,
                            hbase.thrift2_port,
                            work,
                            **kwargs,
                        )
        self.stdout.write(bench_fanout.format_table(rows))
