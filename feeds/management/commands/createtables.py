"""``manage.py createtables``: create the TwitBase tables (idempotent)."""

from __future__ import annotations

import argparse
from typing import Any

from django.conf import settings

from feeds.management.commands._base import TwitBaseCommand
from storage.admin import regions_of, thrift2_client
from storage.connection import connection
from storage.schema import SCHEMA, create_tables, drop_tables


class Command(TwitBaseCommand):
    help = "Create the TwitBase tables that do not exist yet; existing ones are kept."

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--reset",
            action="store_true",
            help="drop the tables of this prefix first (DELETES ALL DATA)",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        with connection() as conn:
            if opts["reset"]:
                for name in drop_tables(conn):
                    self.stdout.write(f"dropped {name}")
            created = create_tables(conn)
        if created and settings.TWITBASE_HBASE_THRIFT2_PORT:
            with thrift2_client() as client:
                for name in created:
                    n = len(regions_of(client, name))
                    self.stdout.write(f"created {name} ({n} region{'' if n == 1 else 's'})")
        else:
            for name in created:
                self.stdout.write(f"created {name} (one region: no TWITBASE_HBASE_THRIFT2_PORT)")
        kept = len(SCHEMA) - len(created)
        self.stdout.write(
            f"{len(created)} created, {kept} already there "
            f"(prefix {settings.TWITBASE_TABLE_PREFIX!r}, "
            f"{settings.TWITBASE_HBASE_HOST}:{settings.TWITBASE_HBASE_PORT})"
        )
