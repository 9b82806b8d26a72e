"""gunicorn's settings for TwitBase's web processes:

    gunicorn -c python:twitbase.gunicorn_conf twitbase.wsgi --bind 0.0.0.0:8000 --workers 2

Two things a plain ``gunicorn twitbase.wsgi`` lacks:

- Prometheus multiprocess mode. Each worker process writes its counters and
  histograms to files in PROMETHEUS_MULTIPROC_DIR, and ``/metrics``, in
  whichever worker serves it, adds up every process's files. The directory
  is emptied when gunicorn starts (counts from a previous run would be
  added in), and a worker that exits is marked dead (``child_exit``). Unset,
  a fresh temporary directory is made and removed at exit. It must be set
  here, before anything imports prometheus_client: the client chooses its
  storage once, at import.
- Logs: gunicorn's own lines in the app's format (JSON in production,
  twitbase/logconfig.py), so that the process writes nothing else. The
  access log stays off, as before: the request histogram counts requests.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from typing import Any

MULTIPROC_DIR = "PROMETHEUS_MULTIPROC_DIR"
_made_dir: str | None = None
if not os.environ.get(MULTIPROC_DIR):
    _made_dir = tempfile.mkdtemp(prefix="twitbase-metrics-")
    os.environ[MULTIPROC_DIR] = _made_dir

# Imported under other names: gunicorn reads every module-level name that is
# one of its settings, and "logconfig" is one.
from twitbase import logconfig as _logs  # noqa: E402  (after the directory is set)
from twitbase.env import env_bool as _env_bool  # noqa: E402
from twitbase.env import exit_on_bad_settings as _exit_on_bad_settings  # noqa: E402

# In the master, before any worker forks: a bad setting stops gunicorn with
# one line, not a traceback per worker and a "Worker failed to boot".
_exit_on_bad_settings("gunicorn")

logconfig_dict = _logs.logging_config(
    _logs.log_format(_env_bool("DJANGO_DEBUG", True)), _logs.log_level()
)
logconfig_dict["loggers"] = {
    "gunicorn.error": {"level": "INFO", "propagate": True},
    # Set its level to INFO for one line per request.
    "gunicorn.access": {"level": "WARNING", "propagate": True},
}


def on_starting(server: Any) -> None:
    path = os.environ[MULTIPROC_DIR]
    os.makedirs(path, exist_ok=True)
    for name in os.listdir(path):
        if name.endswith(".db"):
            os.remove(os.path.join(path, name))


def child_exit(server: Any, worker: Any) -> None:
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)  # type: ignore[no-untyped-call]


def on_exit(server: Any) -> None:
    if _made_dir is not None:
        shutil.rmtree(_made_dir, ignore_errors=True)
