"""The hand-off to the background: each kind of job maps to one Celery task
whose parameters are the job's fields, and feeds reaches that task only
through the dispatcher registered at start-up."""

from __future__ import annotations

import dataclasses
import inspect
import subprocess
import sys
from typing import get_args

import pytest
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from kombu.exceptions import OperationalError

from feeds import jobs
from worker import jobs as registry
from worker import tasks

ALL_JOBS = get_args(jobs.Job)
EXAMPLES: list[jobs.Job] = [
    jobs.FanOutChunk("ab" * 28, "lease", "cd" * 16, 2),
    jobs.BackfillStream("alice", "bob"),
    jobs.RemoveFolloweeFromStream("alice", "bob"),
    jobs.RemoveTwitFromStreams("bob", "ab" * 28),
    jobs.TrimStream("alice"),
    jobs.SweepPendingFanouts(),
    jobs.RepostToStreams("ab" * 28, "alice", 1_700_000_000_000),
    jobs.RemoveRepostFromStreams("ab" * 28, "alice", 1_700_000_000_000),
    jobs.DeleteAccount("alice", 1_700_000_000_000),
    jobs.RefreshTableStats("users", 0),
    jobs.WithdrawReactions("bob", "alice"),
    jobs.SendPasswordReset("alice", "https://twitbase.example"),
    jobs.SendPasswordResetsTo("alice@example.com", "https://twitbase.example"),
    jobs.SweepUnattachedMedia(),
]


def test_every_job_class_in_feeds_jobs_is_a_kind_of_job() -> None:
    defined = {
        cls
        for cls in vars(jobs).values()
        if isinstance(cls, type)
        and dataclasses.is_dataclass(cls)
        and cls.__module__ == jobs.__name__
    }
    assert defined == set(ALL_JOBS)
    assert {type(job) for job in EXAMPLES} == set(ALL_JOBS)


@pytest.mark.parametrize("job", EXAMPLES, ids=lambda job: type(job).__name__)
def test_each_job_runs_on_a_task_that_takes_its_fields_by_name(job: jobs.Job) -> None:
    task = registry.task_for(job)
    parameters = inspect.signature(task.run).parameters
    assert set(parameters) == {f.name for f in dataclasses.fields(job)}
    kwargs = jobs.kwargs(job)
    assert kwargs == dataclasses.asdict(job)
    assert all(isinstance(v, str | int) for v in kwargs.values()), "ids only"
    inspect.signature(task.run).bind(**kwargs)


def test_tasks_keep_the_names_messages_already_queued_carry() -> None:
    assert [registry.task_for(job).name for job in EXAMPLES] == [
        "worker.tasks.fan_out_twit",
        "worker.tasks.backfill_stream",
        "worker.tasks.remove_followee_from_stream",
        "worker.tasks.remove_twit_from_streams",
        "worker.tasks.trim_stream",
        "worker.tasks.sweep_pending_fanouts",
        "worker.tasks.repost_to_streams",
        "worker.tasks.remove_repost_from_streams",
        "worker.tasks.delete_account",
        "worker.tasks.refresh_table_stats",
        "worker.tasks.withdraw_reactions",
        "worker.tasks.send_password_reset",
        "worker.tasks.send_password_resets_to",
        "worker.tasks.sweep_unattached_media",
    ]


@pytest.mark.parametrize(
    "task, kwargs",
    [  # as the code before typed jobs queued them, written out
        ("fan_out_twit", {"twit_id": "ab" * 28, "lease": "0123"}),
        ("fan_out_twit", {"twit_id": "ab" * 28, "start": "cd" * 16, "chunk": 1, "lease": "0"}),
        ("backfill_stream", {"follower": "alice", "followed": "bob"}),
        ("remove_followee_from_stream", {"follower": "alice", "followed": "bob"}),
        ("remove_twit_from_streams", {"author": "bob", "twit_id": "ab" * 28}),
        ("trim_stream", {"reader": "alice"}),
        ("sweep_pending_fanouts", {}),
    ],
)
def test_messages_of_the_previous_version_fit_the_tasks(
    task: str, kwargs: dict[str, object]
) -> None:
    inspect.signature(getattr(tasks, task).run).bind(**kwargs)


def test_beat_sends_the_sweep_job_task() -> None:
    task = settings.CELERY_BEAT_SCHEDULE["sweep-pending-fanouts"]["task"]
    assert task == registry.task_for(jobs.SweepPendingFanouts()).name


def test_beat_sends_the_unattached_media_sweep() -> None:
    entry = settings.CELERY_BEAT_SCHEDULE["sweep-unattached-media"]
    assert entry["task"] == registry.task_for(jobs.SweepUnattachedMedia()).name


def test_beat_sends_the_table_stats_job_for_every_table_that_is_due() -> None:
    entry = settings.CELERY_BEAT_SCHEDULE["refresh-table-stats"]
    assert entry["task"] == registry.task_for(jobs.RefreshTableStats()).name
    assert entry["schedule"] <= settings.TWITBASE_TABLE_STATS_EVERY_S
    job = jobs.RefreshTableStats(**entry["kwargs"])
    assert (job.table, job.due_only) == ("", 1)  # every table that is due


def test_the_dispatcher_is_registered_when_django_starts() -> None:
    previous = jobs.register(None)
    try:
        assert previous is registry.dispatch
        with pytest.raises(ImproperlyConfigured, match="INSTALLED_APPS"):
            jobs.dispatch(jobs.TrimStream("alice"))
    finally:
        jobs.register(previous)


def _broker_down(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, dict[str, object]]]:
    """Every task's publish fails as with the broker down; runs in the caller are recorded."""
    ran: list[tuple[str, dict[str, object]]] = []
    for job in EXAMPLES:
        task = registry.task_for(job)

        def refuse(*args: object, **kwargs: object) -> None:
            raise OperationalError("Error 111 connecting to 127.0.0.1:1. Connection refused.")

        def run(_name: str = task.name, **ids: object) -> None:
            ran.append((_name, ids))

        monkeypatch.setattr(task, "apply_async", refuse)
        monkeypatch.setattr(task, "run", run)
    return ran


# The chunk fields of a repost's or a removal's first chunk.
FIRST = {"start": "", "chunk": 0, "stop": "", "readers": "", "lease": ""}


def test_with_the_broker_down_small_jobs_run_here_and_fan_outs_wait_for_the_sweep(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ran = _broker_down(monkeypatch)
    for job in EXAMPLES:
        registry.dispatch(job)
    assert ran == [
        ("worker.tasks.backfill_stream", {"follower": "alice", "followed": "bob"}),
        ("worker.tasks.remove_followee_from_stream", {"follower": "alice", "followed": "bob"}),
        ("worker.tasks.remove_twit_from_streams", {"author": "bob", "twit_id": "ab" * 28, **FIRST}),
        ("worker.tasks.trim_stream", {"reader": "alice"}),
        # A repost's stream upkeep runs here: its pending entry would have
        # the sweep queue it again, but not before its lease expires.
        (
            "worker.tasks.repost_to_streams",
            {"twit_id": "ab" * 28, "reposter": "alice", "ms": 1_700_000_000_000, **FIRST},
        ),
        (
            "worker.tasks.remove_repost_from_streams",
            {"twit_id": "ab" * 28, "reposter": "alice", "ms": 1_700_000_000_000, **FIRST},
        ),
        # Nothing records a deletion as owed: it runs here rather than be lost.
        ("worker.tasks.delete_account", {"userid": "alice", "created": 1_700_000_000_000}),
        # Nor a block's taking back of reactions.
        ("worker.tasks.withdraw_reactions", {"userid": "bob", "author": "alice"}),
        # Nor an asked-for reset email.
        (
            "worker.tasks.send_password_reset",
            {"userid": "alice", "site": "https://twitbase.example"},
        ),
        (
            "worker.tasks.send_password_resets_to",
            {"email": "alice@example.com", "site": "https://twitbase.example"},
        ),
    ]


@pytest.mark.parametrize("module", ["feeds.services", "feeds.jobs", "feeds.services.fanout"])
def test_feeds_imports_alone_without_worker(module: str) -> None:
    """Imported first, in a fresh interpreter, without Django set up: no
    import cycle to trip on, and worker is never loaded."""
    code = f"import sys, {module}; assert not any(m.startswith('worker') for m in sys.modules)"
    subprocess.run([sys.executable, "-c", code], check=True)
