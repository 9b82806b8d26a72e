"""Celery tasks: the coprocessor substitute. Each is a thin wrapper around a
service in feeds.services.fanout, takes ids only, and is idempotent, so
acks_late (redelivery after a worker dies mid-task) and retries are safe.

Each task runs one kind of job (feeds/jobs.py; worker/jobs.py maps them), and
its parameters are that job's fields, by name: a message queued by an older
version, keyword arguments by name, runs the same. The names of the tasks are
on the wire too (``worker.tasks.fan_out_twit``): keep them."""

from __future__ import annotations

from typing import Any

from celery import Task, shared_task
from celery.signals import task_failure, task_postrun

from feeds import jobs
from feeds.services import console, deletion, fanout, metrics, passwordreset, reactions

# One decorator for every task, its options spelled as keywords so that
# celery-types can check them and keep each task's signature.
retrying = shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(Exception,),
    retry_backoff=1,
    retry_backoff_max=60,
    retry_jitter=True,
    max_retries=8,
)


@retrying
def fan_out_twit(
    twit_id: str,
    start: str = "",
    chunk: int = 0,
    lease: str = "",
    stop: str = "",
    readers: str = "",
    listed: str = "",
    offset: int = 0,
    count: int = 0,
) -> int:
    job = jobs.FanOutChunk(twit_id, lease, start, chunk, stop, readers, listed, offset, count)
    step = fanout.start_chunk(job)
    if isinstance(step, fanout.ChunkResult):
        return step.rows
    # Before this chunk writes, so the chunks of a large fan-out run in
    # parallel. The lease records them as queued already: a retry of this
    # chunk does not queue them again.
    for successor in step.successors:
        jobs.dispatch(successor)
    return fanout.write_chunk(step).rows


@retrying
def backfill_stream(follower: str, followed: str) -> int:
    return fanout.backfill_stream(follower, followed)


@retrying
def withdraw_reactions(userid: str, author: str) -> int:
    return reactions.withdraw_from(userid, author)


@retrying
def remove_followee_from_stream(follower: str, followed: str) -> int:
    return fanout.remove_followee_from_stream(follower, followed)


@retrying
def remove_twit_from_streams(
    author: str,
    twit_id: str,
    start: str = "",
    chunk: int = 0,
    stop: str = "",
    readers: str = "",
    lease: str = "",
) -> int:
    job = jobs.RemoveTwitFromStreams(author, twit_id, start, chunk, stop, readers, lease)
    return _stream_chunk(job)


@retrying
def repost_to_streams(
    twit_id: str,
    reposter: str,
    ms: int,
    start: str = "",
    chunk: int = 0,
    stop: str = "",
    readers: str = "",
    lease: str = "",
) -> int:
    job = jobs.RepostToStreams(twit_id, reposter, ms, start, chunk, stop, readers, lease)
    return _stream_chunk(job)


@retrying
def remove_repost_from_streams(
    twit_id: str,
    reposter: str,
    ms: int,
    start: str = "",
    chunk: int = 0,
    stop: str = "",
    readers: str = "",
    lease: str = "",
) -> int:
    job = jobs.RemoveRepostFromStreams(twit_id, reposter, ms, start, chunk, stop, readers, lease)
    return _stream_chunk(job)


def _stream_chunk(job: fanout.StreamJob) -> int:
    """One chunk of a repost's or a removal's fan-out: its successors queued
    first, as fan_out_twit queues a twit's, then its rows."""
    step = fanout.start_stream_chunk(job)
    for successor in step.successors:
        jobs.dispatch(successor)
    return fanout.write_stream_chunk(step)


@retrying
def trim_stream(reader: str) -> int:
    return fanout.trim_stream(reader)


# Retried like the rest: a sweep that meets a storage outage runs again once
# HBase is back, not a minute later at beat's next tick. A sweep run twice
# queues nothing twice: it takes each lease by checkAndPut first.
@retrying
def sweep_pending_fanouts() -> int:
    """Queue again fan-outs whose lease expired (run by Celery beat, or sweepfanout)."""
    from django.conf import settings

    return len(fanout.sweep_pending(settings.TWITBASE_SWEEP_AFTER_S))


@retrying
def delete_account(userid: str, created: int) -> bool:
    """Erase a deleted account's rows (feeds.services.deletion)."""
    return deletion.erase_account(userid, created)


@retrying
def refresh_table_stats(table: str = "", due_only: int = 0) -> int:
    """Count rows and sample key spreads for the console: on a staff member's
    request, or every table that is due (``due_only``) when Celery beat sends it."""
    return console.refresh_stats(table, due_only=bool(due_only))


@retrying
def send_password_reset(userid: str, site: str) -> bool:
    """Email a password reset link, if the account exists (feeds.services.passwordreset)."""
    return passwordreset.send_reset(userid, site)


@retrying
def send_password_resets_to(email: str, site: str) -> int:
    """Email reset links for the accounts of an address (feeds.services.passwordreset)."""
    return passwordreset.send_resets_to(email, site)


@task_postrun.connect
def _heartbeat(sender: Task[Any, Any] | None = None, **kwargs: Any) -> None:
    metrics.heartbeat()


@task_failure.connect
def _failed(
    sender: Task[Any, Any] | None = None, exception: BaseException | None = None, **kwargs: Any
) -> None:
    metrics.record_failure(getattr(sender, "name", "?"), repr(exception))


@retrying
def sweep_unattached_media() -> int:
    """Delete images no twit used within a day (run by Celery beat, hourly);
    running it twice deletes nothing twice."""
    from feeds.services import media

    return media.sweep_unattached()
