"""``manage.py sweepfanout``: queue again the fan-outs whose lease expired."""

from __future__ import annotations

import argparse
from typing import Any

from django.conf import settings

from feeds.management.commands._base import TwitBaseCommand
from feeds.services import fanout


class Command(TwitBaseCommand):
    help = (
        "Queue again every pending fan-out whose lease expired (e.g. posted while the "
        "broker was down, or its worker died). Reads only the index of pending fan-outs. "
        "Idempotent; Celery beat runs the same sweep every minute."
    )

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--older-than",
            type=float,
            default=settings.TWITBASE_SWEEP_AFTER_S,
            help="seconds after its last renewal that a lease expires, doubled for each "
            "earlier takeover (default TWITBASE_SWEEP_AFTER_S)",
        )
        parser.add_argument(
            "--reindex",
            action="store_true",
            help="first rebuild the index of pending fan-outs from a scan of the whole twits "
            "table (once, after upgrading from a version without the index)",
        )

    def handle(self, *args: Any, **o: Any) -> None:
        if o["reindex"]:
            n = fanout.reindex_pending()
            self.stdout.write(f"indexed {n} pending fan-out(s)")
        queued = fanout.sweep_pending(o["older_than"])
        self.stdout.write(f"queued {len(queued)} pending fan-out(s)")
