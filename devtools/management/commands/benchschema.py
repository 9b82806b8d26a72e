"""``manage.py benchschema``: tall-narrow vs flat-wide for a user's twits, and
a permalink with 100 replies against a raw scan of the same rows, (with
``--home N``) a home page with reposts against a raw scan of its stream rows
(and with ``--stream-framework``, Stream-Framework's read of the same feed),
(with ``--search N``) a search of twits by one and two words against a raw
read of the same index and twit rows, (with ``--messages N``) an inbox and
a conversation page against raw scans of their rows, (with ``--lists N``) a
list's timeline against a raw read of the same rows and a fanned-out stream,
and (with ``--writes N``) what a post,
a like, a repost, a follow and their undoing cost, against one raw put and
one raw checkAndPut; (with ``--quotes N``) a twit page and its quotes
page against a raw scan of the same quotes rows; (with ``--media N``) image
twits against plain ones, each beside a raw put or read of the same rows."""

from __future__ import annotations

import argparse
import contextlib
import tempfile
from pathlib import Path
from typing import Any

from bench import homepage as bench_homepage
from bench import lists as bench_lists
from bench import media as bench_media
from bench import messages as bench_messages
from bench import quotes as bench_quotes
from bench import schema as bench_schema
from bench import search as bench_search
from bench import threads as bench_threads
from bench import writes as bench_writes
from bench.streamframework import StreamFramework
from devtools.localhbase_process import LocalHBaseProcess
from feeds.management.commands._base import TwitBaseCommand
from feeds.management.commands.loaddemo import ProgressBar


class Command(TwitBaseCommand):
    help = (
        "Measure a row per twit (tall) against a column per twit (wide) on a fresh "
        "local HBase server, or on --host/--port."
    )

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--sizes",
            default="10,100,1000,5000",
            help="twits per user, comma-separated (default 10,100,1000,5000; '' for none)",
        )
        parser.add_argument(
            "--replies",
            type=int,
            default=100,
            help="replies under the benchmarked permalink (default 100; 0 skips it)",
        )
        parser.add_argument(
            "--home",
            type=int,
            default=0,
            help="followees of the benchmarked home page reader, whose stream is about "
            "30%% reposts (default 0: skip it; 50 is the documented run)",
        )
        parser.add_argument(
            "--stream-framework",
            action="store_true",
            help="with --home: time Stream-Framework 1.4.0's read of 50 beside the home "
            "page, on a feed holding the reader's stream (its environment is made "
            "under var/bench/ the first time)",
        )
        parser.add_argument(
            "--writes",
            type=int,
            default=0,
            help="users who each make each write once, timed (default 0: skip it; 50 is "
            "the documented run)",
        )
        parser.add_argument(
            "--search",
            type=int,
            default=0,
            help="twits posted for the benchmarked search of twits by their words "
            "(default 0: skip it; 2000 is the documented run)",
        )
        parser.add_argument(
            "--media",
            type=int,
            default=0,
            help="plain twits and image twits each posted and read, timed (default 0: skip "
            "it; 100 is the documented run)",
        )
        parser.add_argument(
            "--thrift2-port",
            type=int,
            default=0,
            help="with --host: its Thrift2 port, so --media's tables are made as deployed "
            "(pre-split, the images in a MOB family)",
        )
        parser.add_argument(
            "--messages",
            type=int,
            default=0,
            help="conversations of the benchmarked inbox's reader (default 0: skip it; "
            "60 is the documented run)",
        )
        parser.add_argument(
            "--lists",
            type=int,
            default=0,
            help="twits each of a list's 20 members posts for the benchmarked list "
            "timeline (default 0: skip it; 25 is the documented run)",
        )
        parser.add_argument(
            "--quotes",
            type=int,
            default=0,
            help="quotes of the benchmarked twit (default 0: skip it; 100 is the documented run)",
        )
        parser.add_argument("--users", type=int, default=5)
        parser.add_argument("--reads", type=int, default=50)
        parser.add_argument("--host", help="an existing Thrift server instead of a fresh one")
        parser.add_argument("--port", type=int, default=9090)

    def handle(self, *args: Any, **o: Any) -> None:
        sizes = tuple(int(x) for x in o["sizes"].split(",") if x.strip())
        if o["host"]:
            self._run(o["host"], o["port"], sizes, o)
        else:
            with (
                tempfile.TemporaryDirectory() as tmp,
                LocalHBaseProcess(Path(tmp) / "data") as server,
            ):
                self._run(
                    server.host, server.port, sizes, {**o, "thrift2_port": server.thrift2_port}
                )

    def _run(self, host: str, port: int, sizes: tuple[int, ...], o: dict[str, Any]) -> None:
        if sizes:
            results = bench_schema.run(host, port, sizes, o["users"], o["reads"])
            self.stdout.write(bench_schema.format_table(results))
        if o["replies"] > 0:
            thread = bench_threads.run(host, port, o["replies"], o["reads"])
            self.stdout.write("\n" + bench_threads.format_table(thread))
        if o["home"] > 0:
            with contextlib.ExitStack() as stack:
                peer = stack.enter_context(StreamFramework()) if o["stream_framework"] else None
                home = bench_homepage.run(
                    host,
                    port,
                    o["home"],
                    o["reads"],
                    progress=ProgressBar(self.stderr._out),
                    peer=peer,
                )
            self.stdout.write("\n" + bench_homepage.format_table(home))
        if o["search"] > 0:
            found = bench_search.run(
                host, port, o["search"], o["reads"], progress=ProgressBar(self.stderr._out)
            )
            self.stdout.write("\n" + bench_search.format_table(found))
        if o["media"] > 0:
            found_media = bench_media.run(
                host,
                port,
                o["media"],
                o["reads"],
                thrift2_port=o["thrift2_port"],
                progress=ProgressBar(self.stderr._out),
            )
            self.stdout.write("\n" + bench_media.format_table(found_media))
        if o["messages"] > 0:
            inbox = bench_messages.run(
                host, port, o["messages"], o["reads"], progress=ProgressBar(self.stderr._out)
            )
            self.stdout.write("\n" + bench_messages.format_table(inbox))
        if o["lists"] > 0:
            listed = bench_lists.run(
                host, port, o["lists"], o["reads"], progress=ProgressBar(self.stderr._out)
            )
            self.stdout.write("\n" + bench_lists.format_table(listed))
        if o["quotes"] > 0:
            quoted = bench_quotes.run(
                host, port, o["quotes"], o["reads"], progress=ProgressBar(self.stderr._out)
            )
            self.stdout.write("\n" + bench_quotes.format_table(quoted))
        if o["writes"] > 0:
            writes = bench_writes.run(
                host, port, o["writes"], progress=ProgressBar(self.stderr._out)
            )
            self.stdout.write("\n" + bench_writes.format_table(writes))
