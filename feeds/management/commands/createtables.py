"""``manage.py createtables``: bring this prefix's tables to the schema
(storage/upgrade.py). Prints the plan; ``--apply`` makes it. Never drops a
table or family, except ``--reset --apply``."""

from __future__ import annotations

import argparse
from contextlib import nullcontext
from typing import Any

import happybase
from django.conf import settings
from django.core.management.base import CommandError

from feeds.management.commands._base import TwitBaseCommand
from storage import upgrade
from storage.admin import regions_of, thrift2_client
from storage.connection import connection, table_name
from storage.schema import SCHEMA, drop_tables


class Command(TwitBaseCommand):
    help = (
        "Bring this prefix's tables to the schema: create missing tables, add missing "
        "families, change a family's TTL or max versions where the schema says otherwise. "
        "Prints what it would change and changes nothing, unless --apply. Never drops a "
        "table or a family; those the schema does not know are left alone."
    )

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--apply",
            action="store_true",
            help="make the changes (without it, only print them)",
        )
        parser.add_argument(
            "--reset",
            action="store_true",
            help="with --apply, drop this prefix's schema tables first and create them "
            "again (DELETES ALL THEIR DATA); without --apply, print what it would drop",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        apply, prefix = opts["apply"], settings.TWITBASE_TABLE_PREFIX
        thrift2 = bool(settings.TWITBASE_HBASE_THRIFT2_PORT)
        regions = settings.TWITBASE_PRESPLIT_REGIONS if thrift2 else 1
        where = (
            f"(prefix {prefix!r}, {settings.TWITBASE_HBASE_HOST}:{settings.TWITBASE_HBASE_PORT})"
        )
        client: Any
        with connection() as conn:
            conn.tables()  # Thrift1 first: an unreachable HBase is then reported as such
            with thrift2_client() if thrift2 else nullcontext() as client:
                existing = upgrade.read_existing(conn, client, prefix)
                if opts["reset"]:
                    existing = self.reset(conn, existing, apply)
                changes = upgrade.plan(SCHEMA, existing, prefix=prefix, regions=regions)
                for name in upgrade.left_alone(SCHEMA, existing, prefix=prefix):
                    self.stdout.write(f"{name}: not in the schema; left alone")
                if not changes:
                    self.stdout.write(f"the tables match the schema: {len(SCHEMA)} tables {where}")
                elif apply and (thrift2 or not upgrade.needs_thrift2(changes)):
                    self.apply(conn, client, changes)
                    # Read back: "match" is what the server now reports, not what was asked.
                    after = upgrade.read_existing(conn, client, prefix)
                    still = upgrade.plan(SCHEMA, after, prefix=prefix, regions=regions)
                    if still:
                        raise CommandError(
                            "still differs from the schema after --apply: "
                            + "; ".join(change.describe() for change in still)
                        )
                    self.stdout.write(
                        f"{len(changes)} change(s) made; the tables match the schema {where}"
                    )
                else:
                    self.show(changes, thrift2, apply, where)

    def reset(
        self, conn: happybase.Connection, existing: upgrade.Existing, apply: bool
    ) -> upgrade.Existing:
        """Drop the schema's tables (or, without ``apply``, say which it would);
        ``existing`` without them."""
        if apply:
            for name in drop_tables(conn):
                self.stdout.write(f"dropped {name}")
        else:
            for name in SCHEMA:
                if table_name(name) in existing:
                    self.stdout.write(f"would drop {table_name(name)}")
        dropped = {table_name(name) for name in SCHEMA}
        return {table: fams for table, fams in existing.items() if table not in dropped}

    def show(self, changes: list[upgrade.Change], thrift2: bool, apply: bool, where: str) -> None:
        """Print the plan; under ``apply``, fail when it needs the Thrift2 API
        and there is none (before making any change)."""
        for change in changes:
            self.stdout.write("would " + change.describe())
        if any(isinstance(c, upgrade.ChangeFamily) and c.drops_cells for c in changes):
            self.stdout.write(
                "note: a shorter TTL or fewer versions hides older cells at once "
                "and removes them at the next major compaction"
            )
        blocked = [] if thrift2 else upgrade.needs_thrift2(changes)
        cannot = (
            f"{len(blocked)} family change(s) need HBase's Thrift2 API (Thrift1 cannot "
            "alter a table): set TWITBASE_HBASE_THRIFT2_PORT"
        )
        if apply:
            raise CommandError(cannot + "; nothing was changed")
        if blocked:
            self.stdout.write(cannot + " before --apply")
        self.stdout.write(
            f"{len(changes)} change(s) to make; run with --apply to make them {where}"
        )

    def apply(self, conn: happybase.Connection, client: Any, changes: list[upgrade.Change]) -> None:
        """Make ``changes`` one at a time, printing each once made."""
        for change in changes:
            upgrade.execute(conn, client, change)
            if isinstance(change, upgrade.CreateTable):
                # The regions it was made with, as the server reports them.
                n = len(regions_of(client, change.table)) if client else 1
                change = upgrade.CreateTable(change.name, change.table, n)
            self.stdout.write(change.describe(done=True))
