"""One process of the concurrency test: random follow, unfollow, post and
delete over a few users, as fast as the server answers.

Run by tests/services/test_concurrency.py (and the other race tests, through
:func:`start`) as ``python -m tests.services.hammer SEED BUDGET USER...``,
several at once, each with the test's HBase address and table prefix in its
environment. BUDGET is a number of operations (``ops=300``), the same work
however loaded the machine, or of seconds (``s=600``) for a test that stops
the processes itself. They start together: each waits at a gate (a folder
named in HAMMER_GATE) until every one of them has set Django up. Every
service call is a real one; errors a user could see (a twit deleted
meanwhile) are part of the game and ignored.
Prints the number of operations it made.

With ``--replies TWIT_ID`` first, it replies to that one twit and deletes
replies of its users instead (two processes share each user, so deletes of
one reply race), for the reply count's exactness test. ``--likes TWIT_ID``
and ``--reposts TWIT_ID`` like/unlike or repost/un-repost that twit;
``--reactions AUTHOR`` does all four on the author's newest twits while
the test posts and deletes them. ``--blocks`` adds blocks and unblocks to
follows, posts, likes and reposts among its users. ``--messages`` sends
direct messages among its users; ``--messages-read`` also opens conversations.
``--lists OWNER LIST_ID`` adds and removes its users on that list.
``--edits TWIT_ID AUTHOR`` edits one twit (the exactness test of edits).
``--quotes TWIT_ID`` quotes that twit and deletes its users' quotes of it
(the quote count's test, and the race with the quoted twit's delete).
``--images AUTHOR MEDIA_ID...`` posts twits naming pairs of the same
uploads, racing for each image.
"""

from __future__ import annotations

import contextlib
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import django

ROOT = Path(__file__).resolve().parents[2]
# Every limit a hammer could reach, lifted: the processes test exactness.
UNLIMITED = {
    setting: "1000000"
    for setting in (
        "TWITBASE_POSTS_PER_MINUTE",
        "TWITBASE_FOLLOWS_PER_MINUTE",
        "TWITBASE_REACTIONS_PER_MINUTE",
        "TWITBASE_BLOCKS_PER_MINUTE",
        "TWITBASE_MESSAGES_PER_MINUTE",
        "TWITBASE_IMAGE_UPLOADS_PER_MINUTE",
        "TWITBASE_LIST_CHANGES_PER_MINUTE",
    )
}


class Budget:
    """How long a hammer works: ``ops=N`` operations, or ``s=N`` seconds
    from when it is created (after the gate opens)."""

    def __init__(self, spec: str) -> None:
        kind, _, amount = spec.partition("=")
        if kind not in ("ops", "s"):
            raise ValueError(f"a budget is ops=N or s=N, not {spec!r}")
        self.ops = int(amount) if kind == "ops" else None
        self.deadline = time.monotonic() + float(amount) if kind == "s" else 0.0

    def more(self, done: int) -> bool:
        if self.ops is not None:
            return done < self.ops
        return time.monotonic() < self.deadline


def _pass_gate(gate: str, seed: int) -> None:
    """Say this process is ready, then wait for the gate to open."""
    Path(gate, f"ready-{seed}").touch()
    deadline = time.monotonic() + 300
    while not Path(gate, "go").exists():
        if time.monotonic() > deadline:
            raise SystemExit("the gate never opened")
        time.sleep(0.01)


def start(processes: int, budget: str, *args: str, eager: bool) -> list[subprocess.Popen[str]]:
    """``processes`` hammers (seeds 0, 1, ...) on the test's tables, each
    ``python -m tests.services.hammer SEED BUDGET *args``, started together:
    returns once each has set up and the gate is open. With ``eager`` the
    jobs they queue run inline (the processes test counts); without, they
    go through the test's broker to a real worker."""
    from django.conf import settings

    gate = tempfile.mkdtemp(prefix="hammer-gate-")

    env = {
        **os.environ,
        **UNLIMITED,
        "DJANGO_SETTINGS_MODULE": "twitbase.settings",
        "TWITBASE_HBASE_HOST": settings.TWITBASE_HBASE_HOST,
        "TWITBASE_HBASE_PORT": str(settings.TWITBASE_HBASE_PORT),
        "TWITBASE_TABLE_PREFIX": settings.TWITBASE_TABLE_PREFIX,
        "HAMMER_GATE": gate,
    }
    if eager:
        env["CELERY_TASK_ALWAYS_EAGER"] = "1"
    else:
        env["CELERY_BROKER_URL"] = settings.CELERY_BROKER_URL
        env.pop("CELERY_TASK_ALWAYS_EAGER", None)
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.services.hammer", str(seed), budget, *args],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for seed in range(processes)
    ]
    deadline = time.monotonic() + 300
    while len(list(Path(gate).glob("ready-*"))) < processes:
        dead = [p for p in procs if p.poll() is not None]
        assert not dead, dead[0].communicate()[1]
        assert time.monotonic() < deadline, "the hammers did not start in 300 s"
        time.sleep(0.02)
    Path(gate, "go").touch()
    return procs


def finish(procs: list[subprocess.Popen[str]], timeout: float) -> int:
    """Wait for ``procs``; the operations they made in all (each must exit 0)."""
    ops = 0
    for proc in procs:
        out, err = proc.communicate(timeout=timeout)
        assert proc.returncode == 0, err
        ops += int(out.split()[-1])
    return ops


def replies(seed: int, budget: Budget, parent: str, users: list[str]) -> int:
    from feeds import services
    from feeds.errors import NotFound

    rng = random.Random(seed)
    ops = 0
    while budget.more(ops):
        a = rng.choice(users)
        if rng.random() < 0.6:
            services.post_twit(a, f"reply {seed} {ops}", reply_to=parent)
        else:
            mine = [t for t in services.replies(parent, limit=20).items if t.userid == a]
            if mine:
                with contextlib.suppress(NotFound):  # another process deleted it first
                    services.delete_twit(a, rng.choice(mine).id)
        ops += 1
    return ops


def likes(seed: int, budget: Budget, twit_id: str, users: list[str]) -> int:
    """Like and unlike one twit as random users (two processes share each user)."""
    from feeds import services

    rng = random.Random(seed)
    ops = 0
    while budget.more(ops):
        a = rng.choice(users)
        (services.like if rng.random() < 0.5 else services.unlike)(a, twit_id)
        ops += 1
    return ops


def reposts(seed: int, budget: Budget, twit_id: str, users: list[str]) -> int:
    """Repost and un-repost one twit as random users (two processes share
    each user, so the same pair races)."""
    from feeds import services

    rng = random.Random(seed)
    ops = 0
    while budget.more(ops):
        a = rng.choice(users)
        (services.repost if rng.random() < 0.5 else services.unrepost)(a, twit_id)
        ops += 1
    return ops


def reactions(seed: int, budget: Budget, author: str, users: list[str]) -> int:
    """Like, unlike, repost and un-repost the newest twits of ``author`` as
    random users while the test posts and deletes them: a reaction to a
    twit deleted meanwhile is refused (NotFound), which is part of the game."""
    from feeds import services
    from feeds.errors import NotFound

    acts = [services.like, services.unlike, services.repost, services.unrepost]
    rng = random.Random(seed)
    ops = 0
    while budget.more(ops):
        newest = services.timeline(author, limit=2).items
        if newest:
            with contextlib.suppress(NotFound):
                rng.choice(acts)(rng.choice(users), rng.choice(newest).id)
            ops += 1
    return ops


def blocks(seed: int, budget: Budget, users: list[str]) -> int:
    """Follow, unfollow, post, like, repost, block and unblock among
    ``users`` at random, so blocks race follows, reactions and fan-outs: a
    follow or like a block refuses (Forbidden) is part of the game."""
    from feeds import services
    from feeds.errors import Forbidden, NotFound
    from feeds.services import blocking

    rng = random.Random(seed)
    ops = 0
    acts = ["follow", "follow", "unfollow", "post", "like", "repost", "block", "unblock"]
    while budget.more(ops):
        a, b = rng.sample(users, 2)
        action = rng.choice(acts)
        with contextlib.suppress(Forbidden, NotFound):
            if action == "follow":
                services.follow(a, b)
            elif action == "unfollow":
                services.unfollow(a, b)
            elif action == "post":
                services.post_twit(a, f"hammer {seed} {ops}")
            elif action == "block":
                blocking.block(a, b)
            elif action == "unblock":
                blocking.unblock(a, b)
            else:
                newest = services.timeline(b, limit=2).items
                if newest:
                    act = services.like if action == "like" else services.repost
                    act(a, rng.choice(newest).id)
        ops += 1
    return ops


def images(seed: int, budget: Budget, author: str, media_ids: list[str]) -> int:
    """Post twits as ``author`` naming random pairs of the same few uploads,
    so posts race for each image: a post that finds one used is refused
    (InvalidInput), which is part of the game."""
    from feeds import services
    from feeds.errors import InvalidInput

    rng = random.Random(seed)
    ops = 0
    while budget.more(ops):
        with contextlib.suppress(InvalidInput):
            services.post_twit(author, f"images {seed} {ops}", images=rng.sample(media_ids, 2))
        ops += 1
    return ops


def message_plan(
    seed: int, ops: int, users: list[str], reads: bool
) -> list[tuple[str, str, str | None]]:
    """What the ``--messages`` hammer of ``seed`` does in ``ops`` operations:
    (from, to, text) for a send, (reader, other, None) for an opening of
    the conversation (only with ``reads``). Texts name the seed and the step,
    so each is unique: the test replays the plan to know every message sent."""
    rng = random.Random(seed)
    plan: list[tuple[str, str, str | None]] = []
    for step in range(ops):
        a, b = rng.sample(users, 2)
        opens = reads and rng.random() < 0.2
        plan.append((a, b, None if opens else f"m {seed} {step} {a}"))
    return plan


def messages(seed: int, budget: Budget, users: list[str], reads: bool) -> int:
    """Send direct messages among ``users`` and open conversations (which
    marks them read), as :func:`message_plan` says; an ``ops=N`` budget only."""
    from feeds.services import messages as dm

    assert budget.ops is not None, "the messages hammer runs a number of operations"
    for a, b, text in message_plan(seed, budget.ops, users, reads):
        if text is None:
            dm.conversation(a, b, limit=1)
        else:
            dm.send(a, b, text)
    return budget.ops


def list_members(seed: int, budget: Budget, owner: str, list_id: str, users: list[str]) -> int:
    """Add and remove random ``users`` on ``owner``'s list ``list_id`` (two
    processes share each user, so the same membership races)."""
    from feeds.services import lists

    rng = random.Random(seed)
    ops = 0
    while budget.more(ops):
        act = lists.add_member if rng.random() < 0.5 else lists.remove_member
        act(owner, list_id, rng.choice(users))
        ops += 1
    return ops


def quotes(seed: int, budget: Budget, quoted: str, users: list[str]) -> int:
    """Quote one twit and delete quotes of it as random users; the twit may
    be deleted meanwhile (the test does it), and then both are refused."""
    from feeds import services
    from feeds.errors import NotFound

    rng = random.Random(seed)
    ops = 0
    while budget.more(ops):
        a = rng.choice(users)
        with contextlib.suppress(NotFound):  # the quoted twit, or the quote, deleted
            if rng.random() < 0.65:
                services.post_twit(a, f"quote {seed} {ops}", quote_of=quoted)
            else:
                mine = [t for t in services.quotes(quoted, limit=20).items if t.userid == a]
                if mine:
                    services.delete_twit(a, rng.choice(mine).id)
        ops += 1
    return ops


def edits(seed: int, budget: Budget, twit_id: str, author: str) -> int:
    """Edit one twit as its author, each text naming this process and the
    attempt (a word and a tag of its own); prints each accepted text on a
    line of its own before the count of accepted edits. A refusal (the
    edits allowed used up, or the twit deleted meanwhile) is part of the game."""
    from feeds.errors import Conflict, NotFound
    from feeds.services import twits

    accepted = 0
    tries = 0
    while budget.more(tries):
        text = f"edit w{seed}x{tries} #t{seed}x{tries}"
        with contextlib.suppress(Conflict, NotFound):
            twits.edit_twit(author, twit_id, text)
            print(f"accepted {text}")
            accepted += 1
        tries += 1
    return accepted


# The modes other than the default (follows, posts and deletes among the
# users): the mode's flag, then what it does with the arguments after it.
MODES: dict[str, Callable[[int, Budget, list[str]], int]] = {
    "--replies": lambda seed, budget, a: replies(seed, budget, a[0], a[1:]),
    "--likes": lambda seed, budget, a: likes(seed, budget, a[0], a[1:]),
    "--reposts": lambda seed, budget, a: reposts(seed, budget, a[0], a[1:]),
    "--reactions": lambda seed, budget, a: reactions(seed, budget, a[0], a[1:]),
    "--lists": lambda seed, budget, a: list_members(seed, budget, a[0], a[1], a[2:]),
    "--edits": lambda seed, budget, a: edits(seed, budget, a[0], a[1]),
    "--quotes": lambda seed, budget, a: quotes(seed, budget, a[0], a[1:]),
    "--blocks": lambda seed, budget, a: blocks(seed, budget, a),
    "--messages": lambda seed, budget, a: messages(seed, budget, a, False),
    "--messages-read": lambda seed, budget, a: messages(seed, budget, a, True),
    "--images": lambda seed, budget, a: images(seed, budget, a[0], a[1:]),
}


def main(seed: int, spec: str, users: list[str]) -> int:
    from twitbase import startup

    # Started by the dozen in a test run: no collector passes over the imports.
    startup.pause()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "twitbase.settings")
    django.setup()
    if "HAMMER_GATE" in os.environ:
        _pass_gate(os.environ["HAMMER_GATE"], seed)
    budget = Budget(spec)
    from feeds import services
    from feeds.errors import NotFound

    mode = MODES.get(users[0])
    if mode is not None:
        return mode(seed, budget, users[1:])
    rng = random.Random(seed)
    ops = 0
    while budget.more(ops):
        a, b = rng.sample(users, 2)
        action = rng.choice(["follow", "follow", "unfollow", "unfollow", "post", "delete"])
        if action == "follow":
            services.follow(a, b)
        elif action == "unfollow":
            services.unfollow(a, b)
        elif action == "post":
            services.post_twit(a, f"hammer {seed} {ops}")
        else:
            newest = services.timeline(a, limit=3).items
            if newest:
                with contextlib.suppress(NotFound):  # another process deleted it first
                    services.delete_twit(a, rng.choice(newest).id)
        ops += 1
    return ops


if __name__ == "__main__":
    print(main(int(sys.argv[1]), sys.argv[2], sys.argv[3:]))
