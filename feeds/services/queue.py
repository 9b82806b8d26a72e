"""The one door through which services hand work to the background.

Work is named and carries ids only (userids, twit ids), never objects, so a
task always reads fresh data. Each piece of work is idempotent. Until the
Celery workers land, ``dispatch`` runs the work inline, in the caller.
"""

from __future__ import annotations

from collections.abc import Callable


def _registry() -> dict[str, Callable[..., object]]:
    from . import fanout

    return {
        "fan_out_twit": fanout.fan_out_twit,
        "backfill_stream": fanout.backfill_stream,
        "remove_followee_from_stream": fanout.remove_followee_from_stream,
        "remove_twit_from_streams": fanout.remove_twit_from_streams,
    }


def dispatch(task: str, **ids: str) -> None:
    work = _registry().get(task)
    if work is None:
        raise ValueError(f"unknown background task {task!r}")
    work(**ids)
