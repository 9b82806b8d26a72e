"""The local server stands apart from the app: importing it loads none of
the app, and its tests run without Django (conftest.py says how)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.localhbase.conftest import APP

ROOT = Path(__file__).resolve().parents[2]


def _no_django_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}


def test_importing_the_server_loads_nothing_of_the_app() -> None:
    check = (
        "import sys, localhbase, localhbase.thrift2, localhbase.thrift2_admin;"
        f"print(','.join(m for m in {APP!r} if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", check],
        cwd=ROOT,
        env=_no_django_env(),
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == ""


def test_its_tests_collect_without_django() -> None:
    """Collecting imports every test module, the conftest fails the session
    if that loaded any of the app; running them all again here would double
    their time, so CI's run of the whole suite runs them, with Django."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:django",
            "-p",
            "no:cacheprovider",
            "--confcutdir",
            "tests/localhbase",
            "--collect-only",
            "-q",
            "tests/localhbase",
        ],
        cwd=ROOT,
        env=_no_django_env(),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert " error" not in done.stdout, done.stdout
