"""The fan-out's decisions (feeds/services/fanplan.py), without a server:
what a chunk does, given what it read."""

from __future__ import annotations

from feeds.jobs import FanOutChunk
from feeds.services import fanplan
from feeds.services.fanplan import Admit, Followers, Plan, Source
from storage import keys

TWIT = "ab" * 28
AUTHOR = keys.user_hash("alice")


def md5s(*names: str) -> bytes:
    return b"".join(keys.user_hash(n) for n in names)


def start_of(name: str) -> str:
    """A chunk's start: the followedBy key of its first follower, in hex."""
    return (AUTHOR + keys.user_hash(name)).hex()


FANS = [f"fan{i}" for i in range(5)]


def test_a_chunk_stops_when_the_twit_is_gone_or_its_fan_out_is_over() -> None:
    assert fanplan.admit(False, True, "lease") is Admit.GONE
    assert fanplan.admit(False, False, "") is Admit.GONE
    assert fanplan.admit(True, False, "lease") is Admit.FINISHED


def test_a_chunk_holds_its_lease_or_takes_one_when_it_carries_none() -> None:
    assert fanplan.admit(True, True, "lease") is Admit.HOLD
    assert fanplan.admit(True, True, "") is Admit.TAKE


def test_a_chunk_reads_its_followers_from_what_its_job_carries() -> None:
    assert fanplan.source(FanOutChunk(TWIT, "l", "aa", 1, "bb", readers="cc")) is Source.CARRIED
    assert fanplan.source(FanOutChunk(TWIT, "l", "aa", 1, "bb", listed="7")) is Source.LISTED
    assert fanplan.source(FanOutChunk(TWIT, "l", "aa", 1, "bb")) is Source.BETWEEN
    assert fanplan.source(FanOutChunk(TWIT, "l", "aa", 1)) is Source.PLANNING


def test_a_chunk_on_record_with_the_same_bounds_is_done() -> None:
    progress = {0: ("", "s1"), 1: ("s1", "")}
    assert fanplan.recorded_after(progress, FanOutChunk(TWIT, "l")) == "s1"
    assert fanplan.recorded_after(progress, FanOutChunk(TWIT, "l", "s1", 1)) == ""
    assert fanplan.recorded_after(progress, FanOutChunk(TWIT, "l", "s1", 1, stop="")) == ""
    # Its bounds moved (followers came or went): not done.
    assert fanplan.recorded_after(progress, FanOutChunk(TWIT, "l", "s0", 1)) is None
    assert fanplan.recorded_after(progress, FanOutChunk(TWIT, "l", "", 0, stop="s2")) is None
    assert fanplan.recorded_after(progress, FanOutChunk(TWIT, "l", "s2", 2)) is None


def test_the_first_chunk_missing_from_the_chain_is_next() -> None:
    progress = {0: ("", "s1"), 1: ("s1", "s2"), 3: ("s3", "")}
    assert fanplan.next_unfinished(progress, 0, "") == (2, "s2")
    assert fanplan.next_unfinished(progress, 3, "s3") is None
    assert fanplan.next_unfinished(progress, 3, "other") == (3, "other")
    assert fanplan.next_unfinished({}, 1, None) is None


def test_a_planning_chunk_divides_its_followers_and_carries_each_chunks() -> None:
    job = FanOutChunk(TWIT, "lease")
    plan = fanplan.plan_chunk(job, {}, AUTHOR, 2, Followers(md5s(*FANS)))
    s2, s4 = start_of("fan2"), start_of("fan4")
    assert plan == Plan(
        readers=md5s("fan0", "fan1"),
        after=s2,
        queue=2,
        successors=(
            FanOutChunk(TWIT, "lease", s2, 1, s4, md5s("fan2", "fan3").hex()),
            FanOutChunk(TWIT, "lease", s4, 2, "", md5s("fan4").hex()),
        ),
    )


def test_chunks_planned_from_a_packed_list_carry_their_place_in_it() -> None:
    job = FanOutChunk(TWIT, "lease")
    plan = fanplan.plan_chunk(job, {}, AUTHOR, 2, Followers(md5s(*FANS), True, b"v7"))
    s2, s4 = start_of("fan2"), start_of("fan4")
    assert plan.successors == (
        FanOutChunk(TWIT, "lease", s2, 1, s4, "", "v7", 2, 2),
        FanOutChunk(TWIT, "lease", s4, 2, "", "", "v7", 4, 1),
    )


def test_followers_read_short_of_the_end_leave_the_last_chunk_to_plan_the_rest() -> None:
    job = FanOutChunk(TWIT, "lease")
    plan = fanplan.plan_chunk(job, {}, AUTHOR, 2, Followers(md5s(*FANS), complete=False))
    s2, s4 = start_of("fan2"), start_of("fan4")
    assert plan.successors[-1] == FanOutChunk(TWIT, "lease", s4, 2)
    assert plan.successors[0].stop == s4 and plan.queue == 2
    assert fanplan.source(plan.successors[-1]) is Source.PLANNING
    assert plan.after == s2


def test_chunks_on_record_are_not_planned_again_but_still_claimed() -> None:
    s2, s4 = start_of("fan2"), start_of("fan4")
    progress = {1: (s2, s4)}
    plan = fanplan.plan_chunk(FanOutChunk(TWIT, "l"), progress, AUTHOR, 2, Followers(md5s(*FANS)))
    assert [j.chunk for j in plan.successors] == [2]
    assert plan.queue == 2


def test_a_planning_chunk_with_one_chunk_of_followers_is_the_last() -> None:
    plan = fanplan.plan_chunk(FanOutChunk(TWIT, "l"), {}, AUTHOR, 2, Followers(md5s("fan0")))
    assert plan == Plan(md5s("fan0"), "", None, ())
    assert fanplan.plan_chunk(FanOutChunk(TWIT, "l"), {}, AUTHOR, 2, Followers(b"")) == Plan(
        b"", "", None, ()
    )


def test_a_chunk_with_fixed_bounds_queues_the_first_missing_chunk_after_it() -> None:
    s2, s4 = start_of("fan2"), start_of("fan4")
    job = FanOutChunk(TWIT, "l", s2, 1, s4)
    found = Followers(md5s("fan2", "fan3"))
    plan = fanplan.plan_chunk(job, {}, AUTHOR, 2, found)
    assert plan == Plan(found.md5s, s4, 2, (FanOutChunk(TWIT, "l", s4, 2),))
    done = fanplan.plan_chunk(job, {2: (s4, "")}, AUTHOR, 2, found)
    assert done == Plan(found.md5s, s4, None, ())


def test_a_chunk_on_record_writes_nothing_and_resumes_the_chain() -> None:
    s2, s4 = start_of("fan2"), start_of("fan4")
    progress = {0: ("", s2), 1: (s2, s4)}
    plan = fanplan.resume(FanOutChunk(TWIT, "l"), progress, b"", s2)
    assert plan == Plan(b"", s2, 2, (FanOutChunk(TWIT, "l", s4, 2),))
