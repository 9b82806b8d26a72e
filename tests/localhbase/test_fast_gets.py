"""Gets answered by the compiled path (server._FastCalls: the request read
by ``_wire.parse_get``, the reply written by ``_wire.encode_rows``) are
byte for byte what thriftpy2 and the handler answer; a get the path cannot
answer (no such table or family) is left to them, and any bytes at all
leave it standing."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from thriftpy2.protocol import TCyBinaryProtocolFactory
from thriftpy2.thrift import TClient
from thriftpy2.transport import TCyMemoryBuffer

from localhbase import server as srv
from localhbase.loop import Wait, write_reply
from localhbase.store import FamilyDescriptor, Mutation, Store

pytestmark = pytest.mark.skipif(not srv.COMPILED, reason="localhbase._wire not built")

ROWS = [b"r%d" % i for i in range(6)] + [b"\x00", b"r\x00s", b"missing"]
COLUMNS = [b"a", b"a:q", b"a:\x00", b"b:x", b"b", b"zz:q", b"a:missing"]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    """Rows with puts, deletes and versions in two families."""
    s = Store(tmp_path_factory.mktemp("gets") / "db")
    s.create_table(b"t", [FamilyDescriptor(b"a", max_versions=3), FamilyDescriptor(b"b")])
    rng = random.Random(14)
    for ts in range(1, 6):
        batch = []
        for row in ROWS[:-1]:
            mutations = [
                Mutation(rng.choice([b"a:q", b"a:\x00", b"b:x", b"b:y"]), b"v%d" % ts)
                for _ in range(rng.randint(1, 3))
            ]
            if rng.random() < 0.2:
                mutations.append(Mutation(b"a:q", isDelete=True))
            batch.append((row, mutations))
        s.mutate_rows(b"t", batch, ts)
    yield s
    s.close()


def call(api: str, seqid: int = 9, **args: Any) -> bytes:
    buf = TCyMemoryBuffer()
    client = TClient(srv.T.Hbase, TCyBinaryProtocolFactory().get_protocol(buf))
    client._seqid = seqid
    client._send(api, **args)
    return bytes(buf.getvalue())


def processed(store: Store, data: bytes) -> bytes:
    processor = srv._Processor(srv.T.Hbase, srv._SafeHandler(srv.Handler(store)))
    api, seqid, result, run = processor.process_in(
        TCyBinaryProtocolFactory().get_protocol(TCyMemoryBuffer(data))
    )
    reply = write_reply(processor, api, seqid, result, run, srv.encode_reply)
    assert reply is not None
    return reply


def compiled(store: Store, data: bytes) -> tuple[int, bytes] | Wait | None:
    return srv._FastCalls(store, srv.Handler(store))(bytearray(data))


GETS = st.one_of(
    st.tuples(st.just("getRow"), st.sampled_from(ROWS), st.none()),
    st.tuples(
        st.just("getRowWithColumns"),
        st.sampled_from(ROWS),
        st.none() | st.lists(st.sampled_from(COLUMNS), max_size=3),
    ),
    st.tuples(st.just("getRows"), st.lists(st.sampled_from(ROWS), max_size=5), st.none()),
    st.tuples(
        st.just("getRowsWithColumns"),
        st.lists(st.sampled_from(ROWS), max_size=5),
        st.none() | st.lists(st.sampled_from(COLUMNS), max_size=3),
    ),
)


def request(api: str, rows: Any, columns: list[bytes] | None, table: bytes = b"t") -> bytes:
    args: dict[str, Any] = {"tableName": table, "attributes": {b"k": b"v"}}
    args["rows" if api.startswith("getRows") else "row"] = rows
    if api.endswith("WithColumns"):
        args["columns"] = columns
    return call(api, **args)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(get=GETS, table=st.sampled_from([b"t", b"t", b"t", b"nope"]))
def test_a_get_is_answered_as_thriftpy2_and_the_handler_answer_it(
    store: Store, get: tuple[str, Any, list[bytes] | None], table: bytes
) -> None:
    data = request(*get, table=table)
    answer = compiled(store, data + b"next")
    expected = processed(store, data)
    if answer is None:
        # Left to the processor: only a get that fails (its reply an error).
        assert table == b"nope" or any(c.startswith(b"zz") for c in get[2] or [])
        return
    assert isinstance(answer, tuple)
    assert answer == (len(data), expected)


def test_a_get_in_pieces_waits_for_its_end(store: Store) -> None:
    data = request("getRowsWithColumns", ROWS, [b"a", b"b:x"])
    path = srv._FastCalls(store, srv.Handler(store))
    for n in range(len(data)):
        assert isinstance(path(bytearray(data[:n])), Wait), f"{n} of {len(data)} bytes"
    assert path(bytearray(data)) == (len(data), processed(store, data))


def test_random_bytes_after_a_gets_header_never_break_it(store: Store) -> None:
    rng = random.Random(5)
    for api in ("getRow", "getRows", "getRowWithColumns", "getRowsWithColumns"):
        head = request(api, [b"r1"] if api.startswith("getRows") else b"r1", None)[:12]
        for _ in range(1500):
            tail = bytes(rng.randrange(256) for _ in range(rng.randrange(60)))
            answer = compiled(store, head + tail)
            if isinstance(answer, tuple):
                assert answer[1] == processed(store, (head + tail)[: answer[0]])
