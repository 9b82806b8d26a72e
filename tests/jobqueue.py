"""Test helper: catch the jobs the services hand to the background."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from feeds import jobs


@contextmanager
def jobs_recorded() -> Iterator[list[dict[str, str | int]]]:
    """While inside, jobs are recorded (as their tasks' keyword arguments),
    not queued nor run: as if each was lost on the way to the broker."""
    recorded: list[dict[str, str | int]] = []
    previous = jobs.register(lambda job: recorded.append(jobs.kwargs(job)))
    try:
        yield recorded
    finally:
        jobs.register(previous)
