"""``manage.py benchcapacity``: the whole stack under locust for a while (issue 39)."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

from bench import capacity
from devtools.localhbase_process import LocalHBaseProcess
from devtools.management.options import add_targets
from feeds.management.commands._base import TwitBaseCommand


class Command(TwitBaseCommand):
    help = (
        "Signed-in home pages a second and their p99 while 10,000-follower accounts post "
        "and their fan-out runs, with memory, disk per row and fan-out lag over time; the "
        "stack as deployed (gunicorn, a worker with beat, Redis) on a fresh local HBase "
        "server and on real HBase. Prints a table of 5-minute blocks and draws a chart."
    )

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        add_targets(parser, ("local", "hbase"))
        parser.add_argument("--minutes", type=float, default=30.0)
        parser.add_argument("--readers", type=int, default=200, help="signed-in readers")
        parser.add_argument(
            "--rate", type=float, default=200.0, help="home pages a second asked, all readers"
        )
        parser.add_argument("--stars", type=int, default=3)
        parser.add_argument("--star-followers", type=int, default=10_000)
        parser.add_argument("--posts-per-s", type=float, default=1.0, help="by the stars, in all")
        parser.add_argument("--window-s", type=float, default=10.0)
        parser.add_argument(
            "--web-workers", type=int, default=2, help="gunicorn's processes (as deployed: 2)"
        )
        parser.add_argument(
            "--page",
            default="/",
            help="the page the readers load: / (their home page), or /favicon.ico for the "
            "stack's own ceiling (gunicorn and Django's middleware around a page that reads "
            "and renders nothing), everything else as in a run of the home page",
        )
        parser.add_argument(
            "--out", type=Path, default=Path("var/capacity"), help="CSV files and chart"
        )

    def handle(self, *args: Any, **o: Any) -> None:
        kwargs = dict(
            minutes=o["minutes"],
            readers=o["readers"],
            rate=o["rate"],
            stars=o["stars"],
            star_followers=o["star_followers"],
            posts_s=o["posts_per_s"],
            window_s=o["window_s"],
            web_workers=o["web_workers"],
            page=o["page"],
        )
        out: Path = o["out"].resolve()
        with tempfile.TemporaryDirectory(prefix="benchcapacity-") as tmp:
            work = Path(tmp)
            for target in o["targets"]:
                if target == "local":
                    with LocalHBaseProcess(work / "local") as server:
                        done = capacity.run(
                            "local",
                            server.host,
                            server.port,
                            server.thrift2_port,
                            work / "local",
                            work,
                            **kwargs,
                        )
                else:
                    from devtools.realhbase import for_benchmarks

                    with for_benchmarks(work / "hbase") as hbase:
                        done = capacity.run(
                            "hbase",
                            "127.0.0.1",
                            hbase.thrift_port,
                            hbase.thrift2_port,
                            work / "hbase",
                            work,
                            **kwargs,
                        )
                kept = out / target
                kept.mkdir(parents=True, exist_ok=True)
                for f in done.iterdir():
                    if f.suffix in (".csv", ".svg", ".json", ".log") and f.name != "seed.json":
                        (kept / f.name).write_bytes(f.read_bytes())
                self.stdout.write(capacity.report(kept, target, o["window_s"], page=o["page"]))
                self.stdout.write(f"CSV files and chart in {kept}")
