"""bench.fanout's raw writers: what the fan-out's ratio is measured against."""

from __future__ import annotations

from bench import fanout
from storage import keys, ops, rows
from storage.connection import connection, table_name
from tests.helpers import ServerAddr


def test_two_raw_processes_write_every_twits_row_to_every_stream(
    local_twitbase: ServerAddr,
) -> None:
    fans = [f"fan{i}" for i in range(7)]
    cells = rows.encode_stream(rows.TwitRow("star", "Star", "x" * 120, 0))
    posts = 5  # odd: one process writes three twits, the other two

    rate = fanout._raw_pair_rate(fans, cells, posts, rep=2)

    assert rate > 0
    with connection() as conn:
        found = ops.row_keys_with_prefixes(
            conn, table_name("streams"), [keys.user_hash(f) for f in fans], 100
        )
    assert [len(stream) for stream in found] == [posts] * len(fans)
