"""Stream-Framework's side of the home page bench: a child process, run with
the Python of an environment of its own (bench.streamframework makes it),
that holds one reader's feed in Stream-Framework's ``RedisFeed`` and times
its reads of it.

Stream-Framework 1.4.0 needs redis-py 2.10, which cannot sit beside the
project's redis-py (Celery's broker), so this file imports nothing of
TwitBase and runs in that environment only. It speaks JSON lines on
stdin/stdout:

    {"load": [[actor, object, epoch_seconds, text], ...]}  -> {"loaded": n}
    {"read": 50}  -> {"items": 50, "ms": 1.9, "cpu_ms": 1.7}

A read is ``feed[:n]`` as Stream-Framework's docs read a feed: the
timeline's sorted set, then the activities' hash (pipelined), deserialized
into ``Activity`` objects. It is timed here, in the process that makes it,
so the pipe to the bench is not counted against it.
"""

from __future__ import annotations

import datetime
import json
import sys
import time
from typing import Any


def main(port: int) -> None:
    from stream_framework import settings

    settings.STREAM_REDIS_CONFIG = {
        "default": {"host": "127.0.0.1", "port": port, "db": 0, "password": None}
    }
    from stream_framework.activity import Activity
    from stream_framework.feeds.redis import RedisFeed
    from stream_framework.verbs.base import Add

    class HomeFeed(RedisFeed):  # type: ignore[misc]
        key_format = "home:%(user_id)s"
        max_length = 10_000  # as many as the bench loads: none trimmed

    feed = HomeFeed(1)
    for line in sys.stdin:
        asked: dict[str, Any] = json.loads(line)
        if "load" in asked:
            activities = [
                Activity(
                    actor=actor,
                    verb=Add,
                    object=obj,
                    target=None,
                    # Whole seconds: the serializer keeps no more, and an
                    # activity's id is made of its time.
                    time=datetime.datetime.fromtimestamp(int(seconds)),
                    extra_context={"text": text},
                )
                for actor, obj, seconds, text in asked["load"]
            ]
            HomeFeed.insert_activities(activities)
            feed.add_many(activities)
            answer: dict[str, Any] = {"loaded": len(activities)}
        else:
            c0, t0 = time.process_time(), time.perf_counter()
            got = feed[: asked["read"]]
            answer = {
                "items": len(got),
                "ms": (time.perf_counter() - t0) * 1000,
                "cpu_ms": (time.process_time() - c0) * 1000,
            }
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]))
