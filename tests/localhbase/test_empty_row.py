"""atomicIncrement of an empty row: refused as HBase refuses it, at once.

HBase 2.6's region server refuses the Increment with a plain IOException
("Row length is 0"), which the Thrift server's client retries until it
gives up: on the test HBase, 13 s later, an IOError beginning
"org.apache.hadoop.hbase.client.RetriesExhaustedException: Failed after
attempts=16" that says a retry may help (measured against devtools.realhbase
on 2026-11-27; too slow for the contract suite, which holds the other
empty-row refusals to HBase's). The local server gives the same answer
without the wait, and writes nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import happybase
import pytest
from Hbase_thrift import IOError as HBaseIOError

import localhbase


@pytest.fixture
def local_conn(tmp_path: Path) -> Iterator[happybase.Connection]:
    """A server of this test's own, in this process."""
    with localhbase.LocalHBase(tmp_path / "data", thrift2_port=None) as hbase:
        conn = happybase.Connection(hbase.host, hbase.port)
        try:
            yield conn
        finally:
            conn.close()


def test_an_empty_rows_atomic_increment_is_refused_and_writes_nothing(
    local_conn: happybase.Connection,
) -> None:
    local_conn.create_table("t", {"cf": {}})
    with pytest.raises(HBaseIOError) as err:
        local_conn.table("t").counter_inc(b"", b"cf:n")
    message = err.value.message.decode()  # happybase's IDL says binary
    assert message.splitlines()[0] == (
        "org.apache.hadoop.hbase.client.RetriesExhaustedException: "
        "Failed after attempts=16, exceptions:"
    )
    assert "Row length is 0" in message
    assert list(local_conn.table("t").scan()) == []
