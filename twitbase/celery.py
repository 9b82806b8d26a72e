"""The Celery app, wired as in Celery's Django example."""

from __future__ import annotations

import logging.config
import os
import sys
from pathlib import Path
from typing import Any

from celery import Celery
from celery.signals import setup_logging

from twitbase.env import exit_on_bad_settings

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "twitbase.settings")
if Path(sys.argv[0]).name == "celery":
    # Celery's command line (worker, beat): a bad setting stops it with one
    # line. Elsewhere the program that imported this module checks.
    exit_on_bad_settings("celery")

app = Celery("twitbase")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@setup_logging.connect
def _log_as_django_does(**_: Any) -> None:
    """Workers and beat log as the web does: Django's LOGGING (JSON lines in
    production, twitbase/logconfig.py), not Celery's own format. Connecting
    this receiver is what stops Celery from installing its handlers."""
    from django.conf import settings

    logging.config.dictConfig(settings.LOGGING)


def use_broker(url: str) -> None:
    """Point this process's Celery app at another broker (tests, benchmarks).

    Celery binds its producer pool to the broker URL it first saw; forgetting
    the pool (what Celery itself does after a fork) makes the next publish
    connect to ``url``.
    """
    # Item assignment: celery-types declares Settings' broker_url read-only,
    # though Celery's ConfigurationView stores attributes as keys too.
    app.conf["broker_url"] = url
    # Private, so celery-types leaves it out; Celery calls it after each fork.
    app._after_fork()  # type: ignore[attr-defined]
