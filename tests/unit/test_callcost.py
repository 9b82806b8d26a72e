"""bench.callcost: a process's Thrift calls counted by name as they leave it,
and its writes to the server as round trips."""

from __future__ import annotations

import happybase

from bench import callcost
from storage import ops


def test_each_call_is_counted_by_name_and_a_pipeline_as_one_round_trip(
    local_conn: happybase.Connection,
) -> None:
    local_conn.create_table("t", {"f": {}})
    table = local_conn.table("t")
    with callcost._counting_sends() as (calls, writes):
        table.put(b"r", {b"f:a": b"1"})
        table.row(b"r")
        pipe = ops.Pipeline(local_conn)
        name = table.name.decode()
        pipe.row(name, b"r", columns=[b"f:a"])
        pipe.counter_inc(name, b"r", b"f:n", 1)
        pipe.put(name, b"s", {b"f:a": b"2"}, timestamp=1)
        pipe.send()
    assert writes[0] == 3, (writes, calls)
    # happybase sends a put as a mutateRows of one row.
    assert dict(calls) == {
        "mutateRows": 1,
        "getRowWithColumns": 2,
        "atomicIncrement": 1,
        "mutateRowTs": 1,
    }
    table.put(b"t", {b"f:a": b"3"})
    assert sum(calls.values()) == 5, "counted after the block"
