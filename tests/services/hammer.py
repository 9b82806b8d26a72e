"""One process of the concurrency test: random follow, unfollow, post and
delete over a few users, as fast as the server answers.

Run by tests/services/test_concurrency.py as ``python -m tests.services.hammer
SEED SECONDS USER...``, several at once, each with the test's HBase address and
table prefix in its environment. Every service call is a real one; errors a
user could see (a twit deleted meanwhile) are part of the game and ignored.
Prints the number of operations it made.
"""

from __future__ import annotations

import contextlib
import os
import random
import sys
import time

import django


def main(seed: int, seconds: float, users: list[str]) -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "twitbase.settings")
    django.setup()
    from feeds import services
    from feeds.errors import NotFound

    rng = random.Random(seed)
    deadline = time.monotonic() + seconds
    ops = 0
    while time.monotonic() < deadline:
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
    print(main(int(sys.argv[1]), float(sys.argv[2]), sys.argv[3:]))
