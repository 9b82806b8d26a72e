"""``manage.py sweepfanout``: queue again the fan-outs left pending."""

from __future__ import annotations

import argparse
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand

from feeds.services import fanout


class Command(BaseCommand):
    help = (
        "Queue again every fan-out still marked pending (e.g. posted while the broker "
        "was down). Idempotent; Celery beat runs the same sweep every minute."
    )

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--older-than",
            type=float,
            default=settings.TWITBASE_SWEEP_AFTER_S,
            help="seconds a mark must be old (default TWITBASE_SWEEP_AFTER_S)",
        )

    def handle(self, *args: Any, **o: Any) -> None:
        queued = fanout.sweep_pending(o["older_than"])
        self.stdout.write(f"queued {len(queued)} pending fan-out(s)")
