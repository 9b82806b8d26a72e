"""The registry: which Celery task runs each kind of job (feeds/jobs.py), and
the dispatcher that queues jobs on it, registered with feeds at start-up
(worker/apps.py), as cosmicpython's bootstrap wires its handlers.

When the broker cannot be reached, nothing is lost: a job that is queued
again if lost (a fan-out chunk: the twit keeps its pending mark and the sweep
queues it again) is left; the small follow/unfollow/delete jobs run in the
caller instead.
"""

from __future__ import annotations

import logging
from typing import Any, assert_never

from celery import Task
from kombu.exceptions import OperationalError

from feeds import jobs
from feeds.jobs import (
    BackfillStream,
    FanOutChunk,
    Job,
    RemoveFolloweeFromStream,
    RemoveTwitFromStreams,
    SweepPendingFanouts,
    TrimStream,
)

from . import tasks

log = logging.getLogger(__name__)


def task_for(job: Job) -> Task[Any, Any]:
    """The task that runs ``job``. mypy checks that every kind of job has one."""
    match job:
        case FanOutChunk():
            return tasks.fan_out_twit
        case BackfillStream():
            return tasks.backfill_stream
        case RemoveFolloweeFromStream():
            return tasks.remove_followee_from_stream
        case RemoveTwitFromStreams():
            return tasks.remove_twit_from_streams
        case TrimStream():
            return tasks.trim_stream
        case SweepPendingFanouts():
            return tasks.sweep_pending_fanouts
        case _:
            assert_never(job)


def dispatch(job: Job) -> None:
    """Queue ``job`` on its task, its fields as keyword arguments."""
    task, ids = task_for(job), jobs.kwargs(job)
    try:
        task.apply_async(kwargs=ids)
    except OperationalError as exc:
        log.warning("broker unavailable, %s(%s): %s", task.name, ids, exc)
        if not job.requeued_if_lost:
            task.run(**ids)
