"""The fan-out's decisions, apart from its reads and writes.

Pure functions of what a chunk read (the twit row's mark and progress, the
followers it found): whether it may run, where its followers come from, which
of them it writes to, where the next chunk begins and which chunks it queues.
fanout.start_chunk reads, asks these, and does what they say; tests hold them
to their answers without a server (tests/unit/test_fanplan.py).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from feeds.jobs import FanOutChunk
from storage import keys

# The chunks on record as done, from the twit row (rows.decode_progress):
# chunk -> (where it began, where the next begins), in hex; "": the end.
Progress = dict[int, tuple[str, str]]


class Admit(enum.Enum):
    """What a chunk does first, from the twit row as it read it."""

    GONE = "gone"  # the twit was deleted meanwhile: drop its index entry, stop
    FINISHED = "finished"  # the fan-out is over: stop
    HOLD = "hold"  # renew the job's lease; stop if it was taken over
    TAKE = "take"  # a job without a lease (a direct call): take the lease


def admit(twit_found: bool, mark_open: bool, lease: str) -> Admit:
    if not twit_found:
        return Admit.GONE
    if not mark_open:
        return Admit.FINISHED
    return Admit.HOLD if lease else Admit.TAKE


class Source(enum.Enum):
    """Where a chunk that is not done yet finds its followers."""

    CARRIED = "carried"  # in the job: its planner read them
    LISTED = "listed"  # in the author's packed list, at the place the job names
    BETWEEN = "between"  # followedBy, between the job's fixed bounds
    PLANNING = "planning"  # followedBy (or the packed list) read ahead: it plans


def source(job: FanOutChunk) -> Source:
    if job.readers:
        return Source.CARRIED
    if job.listed:
        return Source.LISTED
    if job.stop:
        return Source.BETWEEN
    return Source.PLANNING


def recorded_after(progress: Progress, job: FanOutChunk) -> str | None:
    """Where the next chunk begins ("": nowhere, this is the last) if ``job``'s
    chunk is on record as done with the same bounds; None if it is not."""
    done = progress.get(job.chunk)
    if done is None or done[0] != job.start or (job.stop and done[1] != job.stop):
        return None
    return done[1]


def next_unfinished(progress: Progress, chunk: int, start: str | None) -> tuple[int, str] | None:
    """The first chunk from ``chunk`` (beginning at ``start``; None: the end)
    that the recorded chain lacks, with its start; None if all are done.

    A chunk counts as done only if it began where its predecessor ended, so a
    chain whose boundaries moved (followers came or went) is redone from the
    first chunk that no longer fits.
    """
    while start is not None:
        done = progress.get(chunk)
        if done is None or done[0] != start:
            return chunk, start
        start = done[1] or None
        chunk += 1
    return None


@dataclass(frozen=True)
class Followers:
    """The followers a chunk read (md5s, run together): its own, or, for a
    planning chunk, all those it divides."""

    md5s: bytes
    complete: bool = True  # planning: whether they run to the author's last follower
    listed: bytes | None = None  # the version of the packed list holding them, if one does


@dataclass(frozen=True)
class Plan:
    """What a chunk does, once its lease is held."""

    readers: bytes  # the md5s of the followers it writes to, run together
    after: str  # the next chunk's start, in hex; "": this is the last
    # The highest chunk to record as queued under the lease
    # (pending.queue_chunk); None: nothing to queue.
    queue: int | None
    # Queued, before this chunk writes, if the lease records ``queue`` now.
    successors: tuple[FanOutChunk, ...]


def resume(job: FanOutChunk, progress: Progress, readers: bytes, after: str) -> Plan:
    """A chunk with fixed bounds (or on record already, with no ``readers``):
    it queues the first chunk after it that is not on record, if any."""
    todo = next_unfinished(progress, job.chunk + 1, after or None)
    if todo is None:
        return Plan(readers, after, None, ())
    chunk, start = todo
    return Plan(readers, after, chunk, (FanOutChunk(job.twit_id, job.lease, start, chunk),))


def plan_chunk(
    job: FanOutChunk, progress: Progress, prefix: bytes, size: int, found: Followers
) -> Plan:
    """The plan of a chunk that is not on record as done (see
    :func:`recorded_after`), from the followers it ``found``; ``prefix`` is
    the author's md5 (followedBy keys begin with it) and ``size`` the
    followers in a chunk.

    A planning chunk divides what it found into chunks of ``size``, writes
    to the first and plans the rest: each ends where the next begins and
    carries its followers (their place in the packed list when ``found``
    came from one); if ``found`` stops short of the author's last follower,
    the last planned chunk carries none and plans in turn. Chunks on record
    with the same bounds are not queued again.
    """
    if source(job) is not Source.PLANNING:
        return resume(job, progress, found.md5s, job.stop)
    span = size * keys.MD5_LEN
    groups = [found.md5s[i : i + span] for i in range(0, len(found.md5s), span)] or [b""]
    starts = [(prefix + group[: keys.MD5_LEN]).hex() for group in groups[1:]]
    if not starts:
        return Plan(groups[0], "", None, ())
    planned = []
    for i, group in enumerate(groups[1:]):
        chunk, start = job.chunk + 1 + i, starts[i]
        last = i + 1 == len(starts)
        if last and not found.complete:
            stop, carry, at = "", b"", 0
        else:
            stop, carry, at = ("" if last else starts[i + 1]), group, (i + 1) * size
        if progress.get(chunk) != (start, stop):
            planned.append(planned_chunk(job, start, chunk, stop, carry, at, found.listed))
    return Plan(groups[0], starts[0], job.chunk + len(starts), tuple(planned))


def planned_chunk(
    job: FanOutChunk,
    start: str,
    chunk: int,
    stop: str,
    readers: bytes,
    at: int,
    listed: bytes | None,
) -> FanOutChunk:
    """A chunk a planning chunk (``job``) queues: with its followers' place
    in the author's packed list (``listed``, the list's version; the
    followers from the ``at``-th), which it reads there, else with the
    followers themselves. A place and a count are a few bytes of the task's
    message, where 5,000 followers were 160 kB of hex, through Redis, the
    worker's parent process and JSON twice."""
    if listed is not None and readers:
        count = len(readers) // keys.MD5_LEN
        return FanOutChunk(
            job.twit_id, job.lease, start, chunk, stop, "", listed.decode(), at, count
        )
    return FanOutChunk(job.twit_id, job.lease, start, chunk, stop, readers.hex())
