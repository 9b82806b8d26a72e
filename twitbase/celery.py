"""The Celery app, wired as in Celery's Django example."""

from __future__ import annotations

import logging.config
import os
import sys
from pathlib import Path
from typing import Any

from celery import Celery
from celery.signals import setup_logging

from twitbase import startup
from twitbase.env import exit_on_bad_settings


def _celery_command() -> bool:
    """Whether this process is Celery's command line (worker, beat), run as
    ``celery`` or as ``python -m celery`` (as devtools starts workers)."""
    program = Path(sys.argv[0])
    return program.name == "celery" or program.parts[-2:] == ("celery", "__main__.py")


os.environ.setdefault("DJANGO_SETTINGS_MODULE", "twitbase.settings")
if _celery_command():
    # A bad setting stops it with one line. Elsewhere the program that
    # imported this module checks.
    exit_on_bad_settings("celery")
    # Celery sets Django up next: no collector passes over its imports.
    startup.pause()

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
