"""The console's table figures are kept by Celery beat and a real worker,
not by page views (console.refresh_stats)."""

from __future__ import annotations

from pathlib import Path

from pytest_django.fixtures import Settings

from devtools.processes import RedisProcess
from feeds.services import console, tablestats
from storage.schema import SCHEMA
from tests.helpers import ServerAddr, register
from tests.waiting import eventually
from tests.worker.helpers import worker_stack


def test_beat_has_the_worker_count_every_table_and_count_again(
    server: ServerAddr, redis_broker: RedisProcess, settings: Settings, tmp_path: Path
) -> None:
    with worker_stack(
        server, redis_broker, settings, tmp_path, beat=True, TWITBASE_TABLE_STATS_EVERY_S="1"
    ):
        register("alice")
        first_round_s = eventually(
            lambda: set(tablestats.counts()) == set(SCHEMA),
            timeout=60,
            what="every table counted by the beat-sent job",
        )
        register("bob")
        # Counted again at a later tick: the new user shows without a page
        # asking. A later round counts every table again, and on a loaded
        # machine a round of real HBase's pre-split tables took some 50 s in
        # CI (28 s idle), so the wait is three rounds as long as the first.
        eventually(
            lambda: tablestats.counts()["users"].rows == 2,
            timeout=max(60, 3 * first_round_s),
            what="users counted again after bob registered",
            detail=lambda: (
                f"(first round {first_round_s:.0f} s; users: {tablestats.counts()['users']})"
            ),
        )
        spread = console.kept_key_spreads(["users"])[0]
        assert spread.at is not None and spread.actual.total == 2
