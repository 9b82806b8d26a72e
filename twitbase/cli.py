"""``manage.py``'s entry point: Django's, plus one line instead of a
traceback when HBase cannot be reached.

Every command that touches storage (users, follows, twits, createtables,
loaddemo, sweepfanout, the benchmarks...) fails the same way when nothing
listens where the settings point: so it is handled here, once, rather than
in each command. The line says where HBase was looked for, where that
address came from (environment, devstack's ports file, or the default) and
how to start it. Any other error keeps Django's behaviour.
"""

from __future__ import annotations

import logging
import os
import select
import sys
from collections.abc import Sequence

from twitbase import startup


def _root_cause(exc: BaseException) -> BaseException:
    seen = {id(exc)}
    while exc.__cause__ is not None and id(exc.__cause__) not in seen:
        exc = exc.__cause__
        seen.add(id(exc))
    return exc


def unreachable_line(command: str, exc: BaseException) -> str:
    """The one line printed when ``command`` could not reach HBase."""
    from django.conf import settings

    cause = _root_cause(exc)
    # thriftpy2's exceptions print as their repr; their message is the readable part.
    text = str(getattr(cause, "message", None) or cause).strip()
    why = text.splitlines()[0] if text else type(cause).__name__
    return (
        f"manage.py {command}: cannot reach HBase at "
        f"{settings.TWITBASE_HBASE_HOST}:{settings.TWITBASE_HBASE_PORT} "
        f"({settings.TWITBASE_HBASE_SOURCE}): {why}. "
        "Start the app with `make run` (or `python manage.py devstack`) in another "
        "terminal, or set TWITBASE_HBASE_HOST and TWITBASE_HBASE_PORT."
    )


def main(argv: Sequence[str] | None = None) -> None:
    # Django is set up next: no collector passes over its imports (startup.py).
    startup.pause()
    argv = list(sys.argv if argv is None else argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "twitbase.settings")
    from django.core.management import execute_from_command_line

    from twitbase.env import exit_on_bad_settings

    exit_on_bad_settings("manage.py")

    command = argv[1] if len(argv) > 1 else ""
    if command != "runserver":
        # happybase says at INFO that it replaced the connection that failed:
        # a second line, before ours, that tells a command-line user nothing.
        logging.getLogger("happybase.pool").setLevel(logging.WARNING)
    try:
        execute_from_command_line(argv)
    except Exception as exc:
        if isinstance(exc, BrokenPipeError) and _reader_gone():
            # `manage.py users list | head`: the reader has what it wanted.
            # Not "cannot reach HBase" (the errno is a network one too); no
            # message, and none from Python when it flushes stdout at exit.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(1)
        from storage.connection import is_unreachable

        chain = [exc, *_causes(exc)]
        if not any(is_unreachable(e) for e in chain) or "--traceback" in argv:
            raise
        print(unreachable_line(command, exc), file=sys.stderr)
        sys.exit(1)


def _reader_gone() -> bool:
    """Whether stdout is a pipe nobody reads any more: then a broken pipe
    is the reader's going, not HBase's (poll reports POLLERR on it)."""
    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(events & select.POLLERR for _, events in poller.poll(0))
    except (OSError, ValueError):
        return False


def _causes(exc: BaseException) -> list[BaseException]:
    found: list[BaseException] = []
    cur: BaseException | None = exc.__cause__ or exc.__context__
    while cur is not None and cur not in found and len(found) < 10:
        found.append(cur)
        cur = cur.__cause__ or cur.__context__
    return found
