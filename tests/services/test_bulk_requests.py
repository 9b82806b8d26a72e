"""Batches of puts and deletes sent as one request (storage.ops.put_rows,
put_rows_alike, delete_rows): the compiled encoder (storage/_bulk.pyx)
writes the bytes happybase's objects make, and both servers store what
either way sends. A scan's row keys (storage.ops.row_keys_with_prefix)
and rows (storage.ops.scan), read from the reply by compiled code, are
thriftpy2's and happybase's, errors included."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import happybase
import pytest
from Hbase_thrift import (
    BatchMutation,
    Hbase,
    IllegalArgument,
    IOError,
    Mutation,
    TCell,
    TColumn,
    TRowResult,
)
from hypothesis import given
from hypothesis import strategies as st
from thriftpy2.protocol import TCyBinaryProtocolFactory
from thriftpy2.thrift import TApplicationException, TClient, TMessageType
from thriftpy2.transport import TCyBufferedTransport, TCyMemoryBuffer
from thriftpy2.transport.memory import TMemoryBuffer
from thriftpy2.transport.socket import TSocket

from storage import ops
from tests.helpers import socket_turns

compiled = pytest.mark.skipif(not ops.COMPILED, reason="storage._bulk not built")

COLUMNS = st.sampled_from([b"cf:a", b"cf:", b"cf:\x00b", b"cf:q:r", b"other:x"])
CELLS = st.dictionaries(COLUMNS, st.binary(max_size=30), max_size=4)
KEYS = st.lists(st.binary(min_size=1, max_size=20), max_size=8, unique=True)
TIMESTAMPS = st.none() | st.integers(0, 2**63 - 1)


def happybase_request(
    table: bytes, batches: list[Any], timestamp: int | None, seqid: int = 0
) -> bytes:
    """What happybase's client sends for these BatchMutations."""
    buf = TCyMemoryBuffer()
    client = TClient(Hbase, TCyBinaryProtocolFactory().get_protocol(buf))
    client._seqid = seqid
    if timestamp is None:
        client._send("mutateRows", tableName=table, rowBatches=batches, attributes={})
    else:
        client._send(
            "mutateRowsTs", tableName=table, rowBatches=batches, timestamp=timestamp, attributes={}
        )
    return bytes(buf.getvalue())


def batch(row: bytes, cells: dict[bytes, bytes]) -> Any:
    return BatchMutation(
        row, [Mutation(isDelete=False, column=c, value=v) for c, v in cells.items()]
    )


@compiled
@given(keys=KEYS, cells=st.lists(CELLS, min_size=8, max_size=8), timestamp=TIMESTAMPS)
def test_the_compiled_request_is_happybases(
    keys: list[bytes], cells: list[dict[bytes, bytes]], timestamp: int | None
) -> None:
    from storage import _bulk

    rows = list(zip(keys, cells, strict=False))
    expected = happybase_request(b"t_x", [batch(r, c) for r, c in rows], timestamp, seqid=3)
    assert _bulk.mutate_rows(3, b"t_x", rows, timestamp) == expected


@compiled
@given(keys=KEYS, cells=CELLS, timestamp=st.integers(0, 2**63 - 1))
def test_the_compiled_request_for_rows_alike_is_happybases(
    keys: list[bytes], cells: dict[bytes, bytes], timestamp: int
) -> None:
    from storage import _bulk

    expected = happybase_request(b"t", [batch(r, cells) for r in keys], timestamp)
    assert _bulk.mutate_rows_alike(0, b"t", keys, list(cells.items()), timestamp) == expected


@compiled
@given(
    width=st.integers(1, 20),
    count=st.integers(0, 8),
    tail=st.binary(max_size=30),
    cells=CELLS,
    timestamp=st.integers(0, 2**63 - 1),
    data=st.data(),
)
def test_the_compiled_request_for_tailed_rows_is_happybases(
    width: int,
    count: int,
    tail: bytes,
    cells: dict[bytes, bytes],
    timestamp: int,
    data: st.DataObject,
) -> None:
    """A fan-out chunk's rows, each a reader's md5 and the twit's tail, put
    from the md5s run together: the bytes happybase sends for those rows."""
    from storage import _bulk

    heads = data.draw(st.binary(min_size=width * count, max_size=width * count))
    rows = [heads[i : i + width] + tail for i in range(0, len(heads), width)]
    expected = happybase_request(b"t", [batch(r, cells) for r in rows], timestamp, seqid=5)
    request = _bulk.mutate_tailed_rows_alike(
        5, b"t", heads, width, tail, list(cells.items()), timestamp
    )
    assert request == expected


@compiled
def test_heads_that_are_not_whole_are_refused() -> None:
    from storage import _bulk

    with pytest.raises(ValueError, match="not whole"):
        _bulk.mutate_tailed_rows_alike(0, b"t", b"x" * 17, 16, b"tail", [], 1)
    with pytest.raises(ValueError, match="not whole"):
        _bulk.mutate_tailed_rows_alike(0, b"t", b"x", 0, b"tail", [], 1)


@compiled
@given(
    heads=st.lists(st.binary(min_size=6, max_size=6), max_size=40).map(b"".join),
    salt=st.integers(0, 2**32 - 1),
    modulus=st.integers(1, 2**32),
)
def test_the_compiled_spread_pick_picks_what_python_picks(
    heads: bytes, salt: int, modulus: int
) -> None:
    """Which readers a chunk trims, compiled and in Python: the same, up to
    four bytes of 0xff plus the largest salt (no overflow)."""
    compiled_pick = ops.spread_pick(heads, 6, salt, modulus)
    saved = ops._bulk
    try:
        ops._bulk = None
        assert ops.spread_pick(heads, 6, salt, modulus) == compiled_pick
    finally:
        ops._bulk = saved


def test_spread_pick_reads_the_first_four_bytes_big_endian(way: str) -> None:
    heads = bytes.fromhex("00000007000000000006ffffffffffff0000")
    # 0xffffffff + 1 is 2**32, a multiple of 8 and of 2**32 (no overflow).
    assert ops.spread_pick(heads, 6, 1, 8) == [heads[:6], heads[12:]]
    assert ops.spread_pick(heads, 6, 2, 8) == [heads[6:12]]
    assert ops.spread_pick(heads, 6, 1, 2**32) == [heads[12:]]


@compiled
@given(keys=KEYS, families=st.lists(st.sampled_from([b"cf", b"s", b"cf:q", b""]), max_size=3))
def test_the_compiled_delete_is_happybases(keys: list[bytes], families: list[bytes]) -> None:
    """What ``Batch.delete(row)`` sends for each row, once it has listed the
    table's families (given here)."""
    from storage import _bulk

    deletes = [Mutation(isDelete=True, column=f, writeToWAL=True) for f in families]
    expected = happybase_request(b"t", [BatchMutation(r, deletes) for r in keys], None, seqid=9)
    assert _bulk.delete_rows_alike(9, b"t", keys, families, None) == expected


@compiled
@given(scanner=st.integers(-(2**31), 2**31 - 1), rows=st.integers(-(2**31), 2**31 - 1))
def test_the_compiled_scanner_get_list_is_thriftpy2s(scanner: int, rows: int) -> None:
    from storage import _bulk

    buf = TCyMemoryBuffer()
    client = TClient(Hbase, TCyBinaryProtocolFactory().get_protocol(buf))
    client._send("scannerGetList", id=scanner, nbRows=rows)
    assert _bulk.scanner_get_list(0, scanner, rows) == bytes(buf.getvalue())


def reply(result: Any = None, error: TApplicationException | None = None) -> bytes:
    """A server's reply to scannerGetList: a result, or a failed call."""
    buf = TCyMemoryBuffer()
    proto = TCyBinaryProtocolFactory().get_protocol(buf)
    if error is not None:
        proto.write_message_begin("scannerGetList", TMessageType.EXCEPTION, 0)
        error.write(proto)
    else:
        proto.write_message_begin("scannerGetList", TMessageType.REPLY, 0)
        result.write(proto)
    proto.write_message_end()
    buf.flush()
    return bytes(buf.getvalue())


def reading(data: bytes) -> Any:
    """A client whose compiled transport reads ``data``, as happybase's does."""
    return TClient(
        Hbase,
        TCyBinaryProtocolFactory().get_protocol(TCyBufferedTransport(TMemoryBuffer(data))),
    )


CELL = st.builds(TCell, value=st.binary(max_size=10), timestamp=st.integers(0, 2**63 - 1))
ROW_RESULTS = st.lists(
    st.builds(
        TRowResult,
        row=st.binary(max_size=30),
        columns=st.none() | st.dictionaries(st.binary(max_size=8), CELL, max_size=3),
        sortedColumns=st.none()
        | st.lists(st.builds(TColumn, columnName=st.binary(max_size=8), cell=CELL), max_size=2),
    ),
    max_size=20,
)
AFTER = reply(Hbase.scannerGetList_result(success=[TRowResult(row=b"next", columns={})]))


@compiled
@given(rows=ROW_RESULTS)
def test_the_compiled_reader_keeps_each_rows_key(rows: list[Any]) -> None:
    """Whatever a row carries (columns, sorted columns, none), its key; and
    it reads one reply exactly: the next one is thriftpy2's to read."""
    client = reading(reply(Hbase.scannerGetList_result(success=rows)) + AFTER)
    assert ops.read_keys_reply(client) == [r.row for r in rows]
    assert [r.row for r in client._recv("scannerGetList")] == [b"next"]


@compiled
@given(rows=ROW_RESULTS)
def test_the_compiled_reader_keeps_each_row_as_happybase_does(rows: list[Any]) -> None:
    """Each row as happybase's scan yields it (key, {column: value}), from
    its columns, whatever else it carries; and one reply read exactly."""
    client = reading(reply(Hbase.scannerGetList_result(success=rows)) + AFTER)
    expected = [(r.row, {c: cell.value for c, cell in (r.columns or {}).items()}) for r in rows]
    assert ops.read_rows_reply(client) == expected
    assert [r.row for r in client._recv("scannerGetList")] == [b"next"]


@compiled
@pytest.mark.parametrize("read", [ops.read_keys_reply, ops.read_rows_reply])
@pytest.mark.parametrize(
    "error",
    [
        IOError(message="org.apache.hadoop.hbase.UnknownScannerException: 7"),
        IllegalArgument(message="no such scanner"),
        TApplicationException(TApplicationException.INTERNAL_ERROR, "the server failed"),
    ],
)
def test_the_compiled_readers_raise_what_thriftpy2_raises(
    error: Exception, read: Callable[[Any], Any]
) -> None:
    if isinstance(error, TApplicationException):
        data = reply(error=error)
    else:
        field = "io" if isinstance(error, IOError) else "ia"
        data = reply(Hbase.scannerGetList_result(**{field: error}))
    with pytest.raises(type(error)) as thriftpy2s:
        reading(data)._recv("scannerGetList")
    client = reading(data + AFTER)
    with pytest.raises(type(error)) as ours:
        read(client)
    assert vars(ours.value) == vars(thriftpy2s.value)
    assert [r.row for r in client._recv("scannerGetList")] == [b"next"]


@pytest.fixture(params=["compiled", "happybase's objects"])
def way(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param != "compiled":
        monkeypatch.setattr(ops, "_bulk", None)
    elif not ops.COMPILED:
        pytest.skip("storage._bulk not built")
    return str(request.param)


def test_both_servers_store_the_rows_either_way_sends(conn: happybase.Connection, way: str) -> None:
    conn.create_table("t", {"cf": {"max_versions": 3}})
    table = conn.table("t")
    name = conn._table_name("t").decode()
    ops.put_rows(conn, name, [(b"r1", {b"cf:a": b"1", b"cf:\x00": b""}), (b"r2", {b"cf:b": b"2"})])
    ops.put_rows(conn, name, [(b"r3", {b"cf:a": b"old"})], timestamp=5)
    ops.put_rows_alike(conn, name, [b"r3", b"r4"], {b"cf:a": b"new", b"cf:z": b"z"}, 7)
    assert table.row(b"r1") == {b"cf:a": b"1", b"cf:\x00": b""}
    assert table.row(b"r2") == {b"cf:b": b"2"}
    assert table.cells(b"r3", b"cf:a", include_timestamp=True) == [(b"new", 7), (b"old", 5)]
    assert table.row(b"r4", include_timestamp=True) == {b"cf:a": (b"new", 7), b"cf:z": (b"z", 7)}
    ops.put_tailed_rows_alike(conn, name, b"h1h2", 2, b"-t", {b"cf:a": b"tailed"}, 9)
    assert table.row(b"h1-t", include_timestamp=True) == {b"cf:a": (b"tailed", 9)}
    assert table.row(b"h2-t", include_timestamp=True) == {b"cf:a": (b"tailed", 9)}
    with pytest.raises(ValueError, match="not whole"):
        ops.put_tailed_rows_alike(conn, name, b"h1h", 2, b"-t", {b"cf:a": b"x"}, 9)
    assert table.row(b"h1-t") == {b"cf:a": b"tailed"}


def test_both_servers_delete_the_rows_either_way_sends(
    conn: happybase.Connection, way: str
) -> None:
    conn.create_table("t", {"cf": {"max_versions": 3}, "other": {}})
    table = conn.table("t")
    name = conn._table_name("t").decode()
    ops.put_rows(
        conn, name, [(r, {b"cf:a": b"1", b"other:b": b"2"}) for r in (b"r1", b"r2", b"r3")]
    )
    ops.delete_rows(conn, name, [b"r1", b"r3", b"never"], [b"cf", b"other"])
    assert [row for row, _ in table.scan()] == [b"r2"]
    # A delete masks what is as old or older, not what comes after it.
    later = int(time.time() * 1000) + 60_000
    ops.put_rows(conn, name, [(b"r1", {b"cf:a": b"again"})], timestamp=later)
    assert table.row(b"r1") == {b"cf:a": b"again"}
    # A family the table lacks: refused, as happybase's batch would be.
    with pytest.raises(IOError, match="NoSuchColumnFamilyException"):
        ops.delete_rows(conn, name, [b"r2"], [b"nope"])
    assert table.row(b"r2") == {b"cf:a": b"1", b"other:b": b"2"}


def test_both_servers_give_a_prefixs_row_keys_either_way(
    conn: happybase.Connection, way: str
) -> None:
    conn.create_table("t", {"s": {}})
    name = conn._table_name("t").decode()
    keys = [b"ab\x00%03d" % i for i in range(25)]
    ops.put_rows(conn, name, [(k, {b"s:v": b"x" * 5}) for k in [*keys, b"ac", b"aa\xff"]])
    # Fetches of 10, 10 and 5: the short one is the last.
    assert ops.row_keys_with_prefix(conn, name, b"ab", 10) == keys
    assert ops.row_keys_with_prefix(conn, name, b"ab", 100) == keys
    assert ops.row_keys_with_prefix(conn, name, b"zz", 100) == []
    # Between two keys, up to a limit, a fetch at a time.
    for fetch in (1, 7, 10, 100):
        assert ops.row_keys_between(conn, name, keys[3], keys[20], fetch) == keys[3:20]
        assert ops.row_keys_between(conn, name, keys[3], None, fetch) == [*keys[3:], b"ac"]
        for limit in (0, 1, 9, 10, 11, 22, 23, 50):
            between = ops.row_keys_between(conn, name, keys[3], None, fetch, limit)
            assert between == [*keys[3:], b"ac"][:limit]
    # Together: a prefix longer than a fetch is read on alone, to its end.
    together = ops.row_keys_with_prefixes(conn, name, [b"ab", b"zz", b"ac", b"ab\x00"], 10)
    assert together == [keys, [], [b"ac"], keys]
    assert ops.row_keys_with_prefixes(conn, name, [b"ab", b"a"], 100) == [
        keys,
        [b"aa\xff", *keys, b"ac"],
    ]
    assert ops.row_keys_with_prefixes(conn, name, [], 10) == []
    with pytest.raises(IOError, match="TableNotFoundException"):
        ops.row_keys_with_prefixes(conn, name + "_gone", [b"ab", b"ac"], 10)
    assert ops.row_keys_with_prefixes(conn, name, [b"ac"], 10) == [[b"ac"]]  # in step


def test_a_pipelines_calls_each_see_the_last_and_an_error_waits_for_every_reply(
    conn: happybase.Connection, way: str
) -> None:
    conn.create_table("t", {"cf": {"max_versions": 3}, "n": {}})
    table = conn.table("t")
    name = conn._table_name("t").decode()
    table.put(b"gone", {b"cf:a": b"1"})
    pipe = ops.Pipeline(conn)
    pipe.put(name, b"r", {b"cf:a": b"1", b"cf:b": b"2"}, timestamp=5)
    pipe.put(name, b"r", {b"cf:a": b"new"})
    pipe.counter_inc(name, b"c", b"n:count", 7)
    pipe.counter_inc(name, b"c", b"n:count")
    pipe.delete_rows(name, [b"gone", b"never"], [b"cf"])
    pipe.row(name, b"r", columns=[b"cf"])
    pipe.row(name, b"never")
    assert pipe.send() == [None, None, 7, 8, None, {b"cf:a": b"new", b"cf:b": b"2"}, {}]
    assert table.row(b"gone") == {}
    assert table.cells(b"r", b"cf:a", include_timestamp=True)[1] == (b"1", 5)
    # A refused call in the middle: the calls after it are answered and
    # done, the error raises once all are read, and the connection goes on.
    pipe.put(name, b"r", {b"nope:a": b"x"})
    pipe.put(name, b"after", {b"cf:a": b"done"})
    pipe.row(name, b"after")
    with pytest.raises(IOError, match="NoSuchColumnFamilyException"):
        pipe.send()
    assert table.row(b"after") == {b"cf:a": b"done"}
    assert ops.Pipeline(conn).send() == []
    # Dropped half-made: nothing of it is sent, and the connection goes on.
    with pytest.raises(ZeroDivisionError), ops.pipelined(conn) as dropped:
        dropped.put(name, b"never", {b"cf:a": b"x"})
        dropped.counter_inc(name, b"c", b"n:count", 1 // 0)
    assert table.row(b"never") == {}
    assert table.row(b"after") == {b"cf:a": b"done"}
    with ops.pipelined(conn) as sent:
        sent.counter_inc(name, b"c", b"n:count")
    assert table.counter_get(b"c", b"n:count") == 9


def test_a_refused_batch_raises_as_happybases_does_and_the_connection_goes_on(
    conn: happybase.Connection, way: str
) -> None:
    conn.create_table("t", {"cf": {}})
    name = conn._table_name("t").decode()
    with pytest.raises(IOError, match="NoSuchColumnFamilyException"):
        ops.put_rows(conn, name, [(b"r", {b"nope:a": b"1"})])
    ops.put_rows(conn, name, [(b"r", {b"cf:a": b"1"})])
    assert conn.table("t").row(b"r") == {b"cf:a": b"1"}


def test_both_servers_scan_the_rows_happybase_scans_either_way(
    conn: happybase.Connection, way: str
) -> None:
    conn.create_table("t", {"s": {}, "o": {}})
    table = conn.table("t")
    name = conn._table_name("t").decode()
    keys = [b"ab\x00%03d" % i for i in range(25)]
    ops.put_rows(
        conn,
        name,
        [(k, {b"s:v": k[-1:] * 5, b"o:w": b""}) for k in [*keys, b"ac", b"aa\xff"]],
    )
    for start, stop in [(b"ab", b"ac"), (keys[7], keys[20]), (b"a", b"b"), (b"zz", b"zzz")]:
        for count in (1, 10, 25, 26, 100):
            for columns in (None, [b"s:v"], [b"o"]):
                happybases = list(
                    table.scan(row_start=start, row_stop=stop, columns=columns, limit=count)
                )
                assert ops.scan_rows(table, start, stop, count, columns) == happybases
    # Every reply read: the connection's next call gets its own.
    assert table.row(keys[3]) == {b"s:v": b"3" * 5, b"o:w": b""}


def test_a_failed_scan_leaves_the_connection_in_step(conn: happybase.Connection, way: str) -> None:
    """A scan the server refuses (a family the table lacks) raises as
    happybase's does, and the calls after it get their own replies."""
    conn.create_table("t", {"s": {}})
    table = conn.table("t")
    table.put(b"r", {b"s:v": b"1"})
    with pytest.raises(IOError) as happybases:
        list(table.scan(row_start=b"", row_stop=b"z", columns=[b"nope:x"], limit=5))
    with pytest.raises(IOError) as ours:
        ops.scan_rows(table, b"", b"z", 5, [b"nope:x"])
    assert type(ours.value) is type(happybases.value)
    assert ops.scan_rows(table, b"", b"z", 5) == [(b"r", {b"s:v": b"1"})]
    assert table.row(b"r") == {b"s:v": b"1"}


def test_a_scan_asks_for_its_rows_and_closes_in_one_write(
    conn: happybase.Connection, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two round trips: the scanner's open, then its rows and its close
    sent together (happybase: open, rows, close; and one more fetch when
    the rows run out before the count)."""
    conn.create_table("t", {"s": {}})
    table = conn.table("t")
    name = conn._table_name("t").decode()
    ops.put_rows(conn, name, [(b"r%03d" % i, {b"s:v": b"x"}) for i in range(25)])
    writes = []
    write = TSocket.write

    def counted(sock: TSocket, buf: bytes) -> None:
        writes.append(buf)
        write(sock, buf)

    monkeypatch.setattr(TSocket, "write", counted)
    for count in (10, 30):
        writes.clear()
        assert len(ops.scan_rows(table, b"r", b"s", count)) == min(count, 25)
        assert len(writes) == (2 if ops.COMPILED else 3)


def test_both_servers_scan_several_ranges_at_once_as_happybase_scans_each(
    conn: happybase.Connection, way: str
) -> None:
    conn.create_table("t", {"s": {}, "o": {}})
    conn.create_table("u", {"s": {}})
    t, u = conn.table("t"), conn.table("u")
    keys = [b"ab\x00%03d" % i for i in range(25)]
    ops.put_rows(
        conn, conn._table_name("t").decode(), [(k, {b"s:v": k, b"o:w": b""}) for k in keys]
    )
    ops.put_rows(conn, conn._table_name("u").decode(), [(k, {b"s:x": b"u"}) for k in keys[:5]])
    scans: list[ops.Scan] = [
        (t, b"ab", b"ac", 10, None),
        (u, b"ab", b"ac", 10, None),
        (t, keys[20], None, 100, [b"o"]),
        (u, b"zz", None, 5, None),
    ]
    expected = [
        list(table.scan(row_start=start, row_stop=stop, columns=columns, limit=count))
        for table, start, stop, count, columns in scans
    ]
    assert ops.scan_rows_many(conn, scans) == expected
    assert ops.scan_rows_many(conn, []) == []


def test_a_refused_scan_among_several_raises_and_the_connection_goes_on(
    conn: happybase.Connection, way: str
) -> None:
    conn.create_table("t", {"s": {}})
    t = conn.table("t")
    t.put(b"r", {b"s:v": b"1"})
    for refused in ((conn.table("missing"), b"", None, 5, None), (t, b"", None, 5, [b"no:x"])):
        with pytest.raises(IOError):
            ops.scan_rows_many(conn, [(t, b"", None, 5, None), refused, (t, b"", None, 5, None)])
        assert ops.scan_rows(t, b"", None, 5) == [(b"r", {b"s:v": b"1"})]
        assert t.row(b"r") == {b"s:v": b"1"}


def test_several_scans_wait_for_replies_twice_in_all(conn: happybase.Connection) -> None:
    """Every scanner's open is sent before a reply is read, then every
    scanner's rows and close: the socket is written, read, written, read."""
    conn.create_table("t", {"s": {}})
    t = conn.table("t")
    ops.put_rows(
        conn, conn._table_name("t").decode(), [(b"r%d" % i, {b"s:v": b"x"}) for i in range(9)]
    )
    got, turns = socket_turns(lambda: ops.scan_rows_many(conn, [(t, b"r", b"s", 3, None)] * 3))
    assert [len(rows) for rows in got] == [3, 3, 3]
    assert turns == ["write", "read", "write", "read"]


def test_pipelined_multi_gets_are_happybases_rows_in_one_round_trip(
    conn: happybase.Connection, way: str
) -> None:
    """Pipeline.rows, several of them among other calls, answers what
    ``Table.rows`` answers (read compiled, or through happybase's objects),
    each in its Reply, all in one write and one wait for replies; a
    refused one raises once every reply is read, and the connection goes on."""
    conn.create_table("t", {"s": {}, "o": {}})
    conn.create_table("u", {"s": {}})
    t, u = conn.table("t"), conn.table("u")
    t_name, u_name = conn._table_name("t").decode(), conn._table_name("u").decode()
    ops.put_rows(conn, t_name, [(b"r%d" % i, {b"s:v": b"%d" % i, b"o:w": b"x"}) for i in range(6)])
    ops.put_rows(conn, u_name, [(b"a", {b"s:v": b"only"})])
    asked = [b"r4", b"nope", b"r1", b"r5"]
    pipe = ops.Pipeline(conn)
    every = pipe.rows(t_name, asked)
    some = pipe.rows(t_name, asked, [b"s:v"])
    family = pipe.rows(t_name, asked, [b"o"])
    pipe.counter_inc(u_name, b"c", b"s:n", 3)
    other = pipe.rows(u_name, [b"a", b"b"], [b"s:v"])
    none = pipe.rows(u_name, [b"zz"])
    with pytest.raises(RuntimeError, match="not been sent"):
        every.value  # noqa: B018  reading before the send is what is tested
    results, turns = socket_turns(pipe.send)
    assert turns == ["write", "read"]
    assert every.value == t.rows(asked)
    assert (
        some.value
        == t.rows(asked, columns=[b"s:v"])
        == [
            (b"r4", {b"s:v": b"4"}),
            (b"r1", {b"s:v": b"1"}),
            (b"r5", {b"s:v": b"5"}),
        ]
    )
    assert family.value == t.rows(asked, columns=[b"o"])
    assert other.value == [(b"a", {b"s:v": b"only"})]
    assert none.value == []
    # A one-row multi-get's row, as Table.row answers it: {} when absent.
    assert none.row == {} == u.row(b"zz")
    assert results == [every.value, some.value, family.value, 3, other.value, []]
    # A multi-get the server refuses (a family the table lacks), between
    # two that it answers: each of those is answered, then the error raises.
    before = pipe.rows(t_name, [b"r2"])
    pipe.rows(t_name, [b"r2"], [b"nope:x"])
    after = pipe.rows(u_name, [b"a"])
    with pytest.raises(IOError):
        pipe.send()
    assert before.value == [(b"r2", {b"s:v": b"2", b"o:w": b"x"})]
    assert after.value == [(b"a", {b"s:v": b"only"})]
    assert before.row == t.row(b"r2") == {b"s:v": b"2", b"o:w": b"x"}
    assert after.row == u.row(b"a")
    assert t.row(b"r3") == {b"s:v": b"3", b"o:w": b"x"}  # in step
