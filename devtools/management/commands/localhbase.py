"""``manage.py localhbase``: run the local HBase server (local LSM mode)."""

from __future__ import annotations

import argparse
from typing import Any

from feeds.management.commands._base import TwitBaseCommand
from localhbase import build_parser, serve


class Command(TwitBaseCommand):
    help = (
        "Serve a RocksDB directory over HBase's Thrift1 API, so happybase clients "
        "(web, workers, scripts) connect to it as to a real HBase Thrift server."
    )

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        build_parser(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        serve(
            options["data"],
            options["host"],
            options["port"],
            options["ready_file"],
            options["idle_timeout"],
            options["thrift2_port"],
        )
