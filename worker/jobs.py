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
from typing import Any

from celery import Task
from kombu.exceptions import OperationalError

from feeds import jobs
from feeds.jobs import (
    BackfillStream,
    DeleteAccount,
    FanOutChunk,
    Job,
    RefreshTableStats,
    RemoveFolloweeFromStream,
    RemoveRepostFromStreams,
    RemoveTwitFromStreams,
    RepostToStreams,
    SendPasswordReset,
    SendPasswordResetsTo,
    SweepPendingFanouts,
    SweepUnattachedMedia,
    TrimStream,
    WithdrawReactions,
)

from . import tasks

log = logging.getLogger(__name__)


# One row per kind of job. A kind without a row fails tests/unit/test_jobs.py,
# which runs task_for on an example of every kind that feeds/jobs.py defines.
TASKS: dict[type[Job], Task[Any, Any]] = {
    FanOutChunk: tasks.fan_out_twit,
    BackfillStream: tasks.backfill_stream,
    RemoveFolloweeFromStream: tasks.remove_followee_from_stream,
    RemoveTwitFromStreams: tasks.remove_twit_from_streams,
    TrimStream: tasks.trim_stream,
    SweepPendingFanouts: tasks.sweep_pending_fanouts,
    RepostToStreams: tasks.repost_to_streams,
    RemoveRepostFromStreams: tasks.remove_repost_from_streams,
    DeleteAccount: tasks.delete_account,
    RefreshTableStats: tasks.refresh_table_stats,
    WithdrawReactions: tasks.withdraw_reactions,
    SendPasswordReset: tasks.send_password_reset,
    SendPasswordResetsTo: tasks.send_password_resets_to,
    SweepUnattachedMedia: tasks.sweep_unattached_media,
}


def task_for(job: Job) -> Task[Any, Any]:
    """The task that runs ``job``."""
    return TASKS[type(job)]


def dispatch(job: Job) -> None:
    """Queue ``job`` on its task, its fields as keyword arguments."""
    task, ids = task_for(job), jobs.kwargs(job)
    try:
        task.apply_async(kwargs=ids)
    except OperationalError as exc:
        log.warning("broker unavailable, %s(%s): %s", task.name, ids, exc)
        if not job.requeued_if_lost:
            task.run(**ids)
