"""The collector paused for start-up comes back on once Django is ready, and
what start-up made is kept out of later passes (twitbase/startup.py)."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from twitbase import startup
from twitbase.celery import _celery_command

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def collector() -> Iterator[None]:
    """The collector as it was, after the test (and nothing left frozen by it)."""
    was = gc.isenabled()
    yield
    gc.unfreeze()
    if was:
        gc.enable()
    else:
        gc.disable()


def test_settle_turns_back_on_what_pause_turned_off(
    collector: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from django.apps import apps

    monkeypatch.setattr(apps, "ready", False)  # as before Django is set up
    gc.enable()
    startup.pause()
    assert not gc.isenabled()
    startup.settle()
    assert gc.isenabled()
    assert gc.get_freeze_count() > 0


def test_pause_once_django_is_set_up_leaves_the_collector_on(collector: None) -> None:
    gc.enable()
    startup.pause()  # the test process's apps are ready: nothing would settle
    assert gc.isenabled()


def test_settle_leaves_off_a_collector_someone_else_turned_off(collector: None) -> None:
    gc.disable()
    startup.pause()  # off already: not ours to turn on
    startup.settle()
    assert not gc.isenabled()


def test_a_command_runs_with_the_collector_on_and_its_imports_frozen() -> None:
    # manage.py pauses the collector before Django is set up; the last app's
    # ready() must turn it on again, or a long command would never free a cycle.
    # Importing the WSGI module after Django is set up (as runserver does)
    # must not turn it off again: no ready() would come to turn it on.
    probe = (
        "import gc, sys, feeds.services, worker.tasks, twitbase.urls, twitbase.wsgi; "
        "print(gc.isenabled(), gc.get_freeze_count(), 'hbasethrift.thrift2' in sys.modules)"
    )
    proc = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", probe],
        cwd=ROOT,
        env={**os.environ, "TWITBASE_LOG_LEVEL": "WARNING"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    enabled, frozen, thrift2 = proc.stdout.splitlines()[-1].split()
    assert enabled == "True"
    # Django, Celery, django-ninja and the services: tens of thousands of objects.
    assert int(frozen) > 20_000
    # Nor is the Thrift2 IDL parsed by a process that makes no admin call
    # (storage/admin.py loads it at the first).
    assert thrift2 == "False"


@pytest.mark.parametrize(
    ("argv0", "expected"),
    [
        ("/opt/venv/bin/celery", True),
        ("/opt/venv/lib/python3.11/site-packages/celery/__main__.py", True),
        ("manage.py", False),
        ("/opt/venv/bin/gunicorn", False),
        ("/work/celery/manage.py", False),
    ],
)
def test_celery_is_known_by_its_command_line(
    monkeypatch: pytest.MonkeyPatch, argv0: str, expected: bool
) -> None:
    monkeypatch.setattr(sys, "argv", [argv0, "-A", "twitbase", "worker"])
    assert _celery_command() is expected
