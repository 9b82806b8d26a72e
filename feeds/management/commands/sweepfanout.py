"""``manage.py sweepfanout``: queue again the fan-outs whose lease expired."""

from __future__ import annotations

import argparse
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand

from feeds.services import fanout


class Command(BaseCommand):
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

    def handle(self, *args: Any, **o: Any) -> None:
        queued = fanout.sweep_pending(o["older_than"])
        self.stdout.write(f"queued {len(queued)} pending fan-out(s)")
