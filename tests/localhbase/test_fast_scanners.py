"""Scanner calls answered by the compiled path (server._FastCalls: the
request read by ``_wire.parse_scanner_call``, run by the handler, the reply
written as thriftpy2 writes it) are byte for byte what thriftpy2 and the
handler answer, failures included; a call in pieces waits for its end, and
any bytes at all leave the path standing."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from thriftpy2.protocol import TCyBinaryProtocolFactory
from thriftpy2.transport import TCyMemoryBuffer

from localhbase import server as srv
from localhbase.loop import Wait, write_reply
from localhbase.store import FamilyDescriptor, Mutation, Store
from tests.localhbase.test_fast_gets import call

pytestmark = pytest.mark.skipif(not srv.COMPILED, reason="localhbase._wire not built")

ROWS = [b"r%d" % i for i in range(8)] + [b"\x00", b"r\x00s"]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    s = Store(tmp_path_factory.mktemp("scans") / "db")
    s.create_table(b"t", [FamilyDescriptor(b"a", max_versions=3), FamilyDescriptor(b"b")])
    rng = random.Random(3)
    for ts in range(1, 5):
        batch = [
            (row, [Mutation(rng.choice([b"a:q", b"a:r", b"b:x"]), b"v%d" % ts) for _ in range(2)])
            for row in ROWS
        ]
        s.mutate_rows(b"t", batch, ts)
    yield s
    s.close()


class Thriftpy2:
    """A connection's calls decoded and answered by thriftpy2, as the loop does."""

    def __init__(self, store: Store) -> None:
        self.processor = srv._Processor(srv.T.Hbase, srv._SafeHandler(srv.Handler(store)))

    def __call__(self, data: bytes) -> bytes:
        api, seqid, result, run = self.processor.process_in(
            TCyBinaryProtocolFactory().get_protocol(TCyMemoryBuffer(data))
        )
        reply = write_reply(self.processor, api, seqid, result, run, srv.encode_reply)
        assert reply is not None
        return reply


def fast(path: srv._FastCalls, data: bytes) -> bytes:
    """The compiled path's answer to ``data`` with a next call's bytes behind it."""
    answer = path(bytearray(data + b"\x80\x01\x00\x01next"))
    assert isinstance(answer, tuple), f"not taken: {answer!r}"
    assert answer[0] == len(data)
    return answer[1]


def open_call(table: bytes, scan: dict[str, Any], seqid: int = 7) -> bytes:
    return call(
        "scannerOpenWithScan",
        seqid,
        tableName=table,
        scan=srv.T.TScan(**scan),
        attributes={b"k": b"v"},
    )


SCANS = st.fixed_dictionaries(
    {},
    optional={
        "startRow": st.sampled_from([b"", b"r2", b"r\x00", b"zz"]),
        "stopRow": st.sampled_from([b"", b"r5", b"r\x00t"]),
        "timestamp": st.sampled_from([2, 3, 2**62]),
        "columns": st.lists(st.sampled_from([b"a", b"a:q", b"b:x", b"b", b"zz:q"]), max_size=2),
        "caching": st.integers(0, 100),
        "filterString": st.sampled_from(
            [b"KeyOnlyFilter()", b"PrefixFilter('r1')", b"FirstKeyOnlyFilter()", b"NoSuch(", b""]
        ),
        "batchSize": st.integers(-1, 3),
        "sortColumns": st.booleans(),
        "reversed": st.booleans(),
        "cacheBlocks": st.booleans(),
    },
)


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    scan=SCANS,
    table=st.sampled_from([b"t", b"t", b"t", b"nope"]),
    fetches=st.lists(
        st.tuples(st.sampled_from(["scannerGetList", "scannerGet"]), st.integers(-1, 6)), max_size=4
    ),
    close_twice=st.booleans(),
)
def test_a_scan_is_answered_as_thriftpy2_and_the_handler_answer_it(
    store: Store,
    scan: dict[str, Any],
    table: bytes,
    fetches: list[tuple[str, int]],
    close_twice: bool,
) -> None:
    general = Thriftpy2(store)
    path = srv._FastCalls(store, srv.Handler(store))
    opened = open_call(table, scan)
    reply = fast(path, opened)
    assert reply == general(opened)
    # The id, as the reply gives it (an error's reply has none: ask for 1).
    scanner = 1
    calls = [
        call(api, 9, id=scanner, nbRows=n) if api == "scannerGetList" else call(api, 9, id=scanner)
        for api, n in fetches
    ]
    calls += [call("scannerClose", 10, id=scanner)] * (2 if close_twice else 1)
    calls.append(call("scannerGetList", 11, id=scanner, nbRows=5))  # closed: refused
    for data in calls:
        assert fast(path, data) == general(data)


def test_a_scan_answered_so_reads_what_happybase_reads(store: Store) -> None:
    """The replies decode: the rows of a scan, through the compiled path."""
    path = srv._FastCalls(store, srv.Handler(store))
    general = Thriftpy2(store)
    opened = open_call(b"t", {"startRow": b"r1", "stopRow": b"r4", "columns": [b"a:q"]})
    assert fast(path, opened) == general(opened)
    rows = fast(path, call("scannerGetList", 8, id=1, nbRows=10))
    assert rows == general(call("scannerGetList", 8, id=1, nbRows=10))
    assert b"r1" in rows and b"r3" in rows and b"r4" not in rows and b"b:x" not in rows


def test_a_scanner_call_in_pieces_waits_for_its_end(store: Store) -> None:
    path = srv._FastCalls(store, srv.Handler(store))
    for data in (
        open_call(
            b"t",
            {
                "startRow": b"r1",
                "columns": [b"a"],
                "filterString": b"KeyOnlyFilter()",
                "timestamp": 3,
                "batchSize": 2,
                "sortColumns": True,
            },
        ),
        call("scannerGetList", 3, id=1, nbRows=4),
        call("scannerGet", 4, id=1),
        call("scannerClose", 5, id=1),
    ):
        for n in range(len(data)):
            assert isinstance(path(bytearray(data[:n])), Wait), f"{n} of {len(data)} bytes"
        assert isinstance(path(bytearray(data)), tuple)


def test_random_bytes_after_a_scanner_calls_header_never_break_it(store: Store) -> None:
    rng = random.Random(8)
    general = Thriftpy2(store)
    path = srv._FastCalls(store, srv.Handler(store))
    for data in (
        open_call(b"t", {"startRow": b"r1"}),
        call("scannerGetList", 3, id=1, nbRows=4),
        call("scannerClose", 5, id=2),
    ):
        head = data[:24]
        for _ in range(1500):
            tail = bytes(rng.randrange(256) for _ in range(rng.randrange(60)))
            answer = path(bytearray(head + tail))
            if isinstance(answer, tuple):
                # Taken: a whole call, answered as thriftpy2 answers it.
                used = (head + tail)[: answer[0]]
                assert answer[1] == general(used)
