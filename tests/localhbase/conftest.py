"""The local server's own tests. They need localhbase and its dependencies,
a client (happybase, thriftpy2), hypothesis and the process helpers of
devtools, and nothing of the app: no Django, no settings. So they also run
on their own, with neither pytest-django nor the app's session servers
(tests/conftest.py, left out by ``--confcutdir``)::

    python -m pytest -p no:django --confcutdir tests/localhbase tests/localhbase

Run so, a session that imported any of the app fails
(test_standalone.py runs the check in CI); in the whole suite's run,
Django is there anyway and nothing is checked.
"""

from __future__ import annotations

import sys

import pytest

# What a test here must not import: the app, and what it is built on.
APP = ("django", "celery", "twitbase", "feeds", "storage", "worker")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if session.config.pluginmanager.has_plugin("django"):
        return
    loaded = [name for name in APP if name in sys.modules]
    if loaded:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(
                f"tests/localhbase imported the app without Django's plugin: {', '.join(loaded)}",
                red=True,
            )
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
