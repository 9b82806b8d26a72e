"""The one door through which services hand work to the background.

Work is named and carries ids only (userids, twit ids), never objects, so a
task always reads fresh data. Every task is idempotent. The work runs in the
Celery workers (worker/tasks.py); under CELERY_TASK_ALWAYS_EAGER (unit tests
only) Celery runs it in the caller.

When the broker cannot be reached, nothing is lost: a twit keeps its
pending-fan-out mark and the sweep (``manage.py sweepfanout``, or Celery
beat) queues it again; the small follow/unfollow/delete tasks run in the
caller instead.
"""

from __future__ import annotations

import logging

from kombu.exceptions import OperationalError

log = logging.getLogger(__name__)

# Left to the sweep when the broker is down: a fan-out can be large.
SWEPT = {"fan_out_twit"}


def dispatch(task: str, **ids: object) -> None:
    from worker import tasks

    work = getattr(tasks, task, None)
    if work is None:
        raise ValueError(f"unknown background task {task!r}")
    try:
        work.apply_async(kwargs=ids)
    except OperationalError as exc:
        log.warning("broker unavailable, %s(%s): %s", task, ids, exc)
        if task not in SWEPT:
            work.run(**ids)
