"""The compiled bulk put path (localhbase/_wire.pyx, server._FastCalls)
writes what the handler writes, puts and deletes, and answers what the
processor answers.

Every test sends the same bytes a Thrift client sends both ways: through
the compiled path into one store, and through thriftpy2's decoder and the
handler into another; then compares the two stores' every key and value,
and the two replies byte for byte. The compiled path must take no call it
cannot write whole (those it hands on), and must survive any bytes.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from thriftpy2.protocol import TCyBinaryProtocolFactory
from thriftpy2.protocol.binary import TBinaryProtocolFactory
from thriftpy2.thrift import TClient
from thriftpy2.transport import TCyMemoryBuffer
from thriftpy2.transport.memory import TMemoryBuffer

import localhbase.store
from localhbase import server as srv
from localhbase.loop import Wait, write_reply
from localhbase.store import FamilyDescriptor, Store

NOW = 1_764_000_000_000


pytestmark = pytest.mark.skipif(not srv.COMPILED, reason="localhbase._wire not built")


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """mutateRows stamps cells "now": the same now on both sides."""
    monkeypatch.setattr(localhbase.store, "now_ms", lambda: NOW)


def call(api: str, seqid: int = 7, pure: bool = False, **args: Any) -> bytes:
    """The bytes a Thrift1 client sends, by thriftpy2's pure-Python protocol
    or by its Cython one (happybase's), which should write the same."""
    buf = TMemoryBuffer() if pure else TCyMemoryBuffer()
    factory = TBinaryProtocolFactory() if pure else TCyBinaryProtocolFactory()
    client = TClient(srv.T.Hbase, factory.get_protocol(buf))
    client._seqid = seqid
    client._send(api, **args)
    return bytes(buf.getvalue())


def new_store(path: Path) -> Store:
    store = Store(path)
    store.create_table(b"t", [FamilyDescriptor(b"a", max_versions=3), FamilyDescriptor(b"b\x00c")])
    store.create_table(b"off", [FamilyDescriptor(b"a")])
    store.set_enabled(b"off", False)
    return store


class Pair:
    """The same table on two stores: one written by the compiled path, one
    by the processor and handler."""

    def __init__(self, root: Path) -> None:
        self.fast = new_store(root / "fast")
        self.slow = new_store(root / "slow")
        self.processor = srv._Processor(srv.T.Hbase, srv._SafeHandler(srv.Handler(self.slow)))

    def close(self) -> None:
        self.fast.close()
        self.slow.close()

    def compiled(self, data: bytes) -> tuple[int, bytes] | Wait | None:
        return srv._FastCalls(self.fast, srv.Handler(self.fast))(bytearray(data))

    def processed(self, data: bytes) -> bytes:
        """The processor's reply, as the loop makes it."""
        api, seqid, result, run = self.processor.process_in(
            TCyBinaryProtocolFactory().get_protocol(TCyMemoryBuffer(data))
        )
        answer = write_reply(self.processor, api, seqid, result, run)
        assert answer is not None
        return answer


def cells(store: Store) -> list[tuple[bytes, bytes]]:
    """Every key and value of the store's data (not its catalogue)."""
    from localhbase import encoding as enc

    return [(k, v) for k, v in store._db.items() if k.startswith(enc.DATA)]


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[Pair]:
    p = Pair(tmp_path)
    yield p
    p.close()


# Rows and columns with what escaping and parsing must get right: NUL bytes,
# 0x00 0xFF, 0xFF, colons in the qualifier, a column that is all family.
ROWS = st.binary(min_size=1, max_size=12) | st.sampled_from(
    [b"\x00", b"\x00\xff", b"r\x00\x01", b"\xff\xff", b"row"]
)
COLUMNS = st.sampled_from([b"a:q", b"a:", b"a", b"a:q:r", b"a:\x00", b"b\x00c:x", b"a:\xff\x00y"])
VALUES = st.none() | st.binary(max_size=40)


def batch(rows: list[tuple[bytes, list[tuple[Any, ...]]]]) -> list[Any]:
    """BatchMutations of (column, value) puts, or (column, value, isDelete)."""
    return [
        srv.T.BatchMutation(
            row=row,
            mutations=[
                srv.T.Mutation(column=m[0], value=m[1], isDelete=len(m) > 2 and m[2])
                for m in mutations
            ],
        )
        for row, mutations in rows
    ]


# Puts, and deletes of a column (a:q), of a family (a) or of a column
# with an empty qualifier (a:), a value sent with them or not.
BATCHES = st.lists(
    st.tuples(ROWS, st.lists(st.tuples(COLUMNS, VALUES, st.booleans()), max_size=4)),
    min_size=1,
    max_size=8,
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(rows=BATCHES, with_ts=st.booleans(), pure=st.booleans())
def test_a_batch_of_puts_and_deletes_is_written_as_the_handler_writes_it(
    pair: Pair, rows: list[Any], with_ts: bool, pure: bool
) -> None:
    args: dict[str, Any] = {
        "tableName": b"t",
        "rowBatches": batch(rows),
        "attributes": {b"k": b"v"},
    }
    if with_ts:
        args["timestamp"] = random.Random(len(rows)).choice([0, 5, NOW - 1, 2**62])
    data = call("mutateRowsTs" if with_ts else "mutateRows", pure=pure, **args)
    answer = pair.compiled(data + b"next")
    assert isinstance(answer, tuple), "a call of puts and deletes is the compiled path's"
    used, reply = answer
    assert used == len(data)
    assert reply == pair.processed(data)
    assert cells(pair.fast) == cells(pair.slow)


@pytest.mark.parametrize(
    ("what", "api", "args"),
    [
        (
            "a delete of a family the table lacks",
            "mutateRows",
            {"rowBatches": batch([(b"r", [(b"a:q", b"v"), (b"z", None, True)])])},
        ),
        (
            "a family the table lacks",
            "mutateRows",
            {"rowBatches": batch([(b"r", [(b"z:q", b"v")])])},
        ),
        (
            "a family of another row lacking",
            "mutateRows",
            {
                "rowBatches": batch(
                    [(b"r", [(b"a:q", b"v")]), (b"s", [(b"a:q", b"v"), (b"zz", b"v")])]
                )
            },
        ),
        ("an empty row", "mutateRows", {"rowBatches": batch([(b"", [(b"a:q", b"v")])])}),
        (
            "a negative timestamp",
            "mutateRowsTs",
            {"rowBatches": batch([(b"r", [(b"a:q", b"v")])]), "timestamp": -5},
        ),
        (
            "no such table",
            "mutateRows",
            {"tableName": b"nope", "rowBatches": batch([(b"r", [(b"a:q", b"v")])])},
        ),
        (
            "a disabled table",
            "mutateRows",
            {"tableName": b"off", "rowBatches": batch([(b"r", [(b"a:q", b"v")])])},
        ),
        ("another call", "getRowTs", {"row": b"r", "timestamp": 5}),
        (
            "a column missing",
            "mutateRows",
            {"rowBatches": [srv.T.BatchMutation(row=b"r", mutations=[srv.T.Mutation(value=b"v")])]},
        ),
    ],
)
def test_a_call_it_does_not_write_whole_goes_to_the_handler(
    pair: Pair, what: str, api: str, args: dict[str, Any]
) -> None:
    args = {"tableName": b"t", "attributes": {}, **args}
    data = call(api, **args)
    assert pair.compiled(data) is None, what
    assert cells(pair.fast) == [], what
    pair.processed(data)  # the handler answers it, as the loop then asks it to


def test_a_call_in_pieces_waits_for_its_end_then_is_written_once(pair: Pair) -> None:
    rows = [(b"row%03d" % i, [(b"a:q", b"v" * (i % 7)), (b"b\x00c:x", None)]) for i in range(60)]
    data = call("mutateRowsTs", tableName=b"t", rowBatches=batch(rows), timestamp=9, attributes={})
    # One connection's path, fed every length of the call in turn: it keeps
    # its place between them, as it does while a call comes in pieces.
    path = srv._FastCalls(pair.fast, srv.Handler(pair.fast))
    for n in range(len(data)):
        assert isinstance(path(bytearray(data[:n])), Wait), f"{n} of {len(data)} bytes"
    answer = path(bytearray(data))
    assert isinstance(answer, tuple) and answer[0] == len(data)
    assert answer[1] == pair.processed(data)
    assert cells(pair.fast) == cells(pair.slow)
    # Answered, it starts afresh on the next call.
    again = call("mutateRows", tableName=b"t", rowBatches=batch(rows[:2]), attributes={})
    answer = path(bytearray(again))
    assert isinstance(answer, tuple) and answer[0] == len(again)


@settings(
    max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_damaged_bytes_are_written_only_as_the_handler_would_write_them(
    pair: Pair, data: st.DataObject
) -> None:
    """Bytes of a call changed at random: the compiled path may wait, hand
    them on or write them; where it writes, the processor decodes the same
    call and the handler writes the same cells."""
    rows = [
        (b"r%d" % i, [(b"a:q", b"value"), (b"a:p", None), (b"a:q", None, True), (b"a", None, True)])
        for i in range(3)
    ]
    good = bytearray(
        call("mutateRowsTs", tableName=b"t", rowBatches=batch(rows), timestamp=9, attributes={})
    )
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(good) - 1))
        good[at] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(good)))
    damaged = bytes(good[:cut])
    same_as_the_handler(pair, damaged)


def test_random_bytes_never_break_it(pair: Pair) -> None:
    rng = random.Random(14)
    header = call("mutateRows", tableName=b"t", rowBatches=[], attributes={})[:18]
    for _ in range(3000):
        tail = bytes(rng.randrange(256) for _ in range(rng.randrange(200)))
        same_as_the_handler(pair, header + tail)
        same_as_the_handler(pair, tail)


def test_attributes_that_are_not_strings_leave_the_call_to_the_handler(pair: Pair) -> None:
    """A map of another type where the attributes go (field 3): not a call
    the compiled path takes, which it says without an error (it once raised
    SystemError, its "not this call" taken for "an exception was raised")."""
    whole = call("mutateRows", tableName=b"t", rowBatches=[], attributes={})
    # Field 3, a map of i32 to i32 with nothing in it, then the struct's end.
    damaged = whole[: whole.index(b"\x0d\x00\x03")] + b"\x0d\x00\x03\x08\x08\x00\x00\x00\x00\x00"
    assert pair.compiled(damaged) is None
    same_as_the_handler(pair, damaged)


def same_as_the_handler(pair: Pair, data: bytes) -> None:
    """Whatever the compiled path does with ``data``, it is what the
    processor and handler do, or nothing."""
    before = cells(pair.fast)
    answer = pair.compiled(data)
    if isinstance(answer, tuple):
        used, reply = answer
        assert reply == pair.processed(data[:used])
        assert cells(pair.fast) == cells(pair.slow)
    else:
        assert cells(pair.fast) == before


def test_the_server_writes_happybase_batches_by_the_compiled_path(tmp_path: Path) -> None:
    import happybase

    from devtools.localhbase_process import LocalHBaseProcess

    with LocalHBaseProcess(tmp_path / "data") as server:
        conn = happybase.Connection(server.host, server.port)
        conn.create_table("t", {"cf": {}})
        table = conn.table("t")
        with table.batch() as b:
            for i in range(3000):
                b.put(b"row%05d" % i, {b"cf:v": b"%d" % i, b"cf:\x00": b""})
        assert table.row(b"row02999") == {b"cf:v": b"2999", b"cf:\x00": b""}
        assert sum(1 for _ in table.scan()) == 3000
        conn.close()
        assert "bulk puts, gets and replies of rows: compiled paths" in server.log.read_text()
