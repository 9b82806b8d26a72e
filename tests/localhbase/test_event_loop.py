"""The local server answers every connection from one thread (localhbase/loop.py):
a request that arrives in pieces, requests sent without waiting for replies,
and a slow admin call beside other clients' reads."""

from __future__ import annotations

import itertools
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import happybase
import pytest
from thriftpy2.protocol import TCyBinaryProtocolFactory
from thriftpy2.thrift import TClient
from thriftpy2.transport import TCyMemoryBuffer

from devtools.localhbase_process import LocalHBaseProcess
from localhbase.server import T


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalHBaseProcess]:
    with LocalHBaseProcess(tmp_path_factory.mktemp("loop") / "data") as proc:
        yield proc


def request(api: str, seqid: int = 0, **args: Any) -> bytes:
    """The bytes a Thrift1 client sends for one call."""
    buf = TCyMemoryBuffer()
    client = TClient(T.Hbase, TCyBinaryProtocolFactory().get_protocol(buf))
    client._seqid = seqid
    client._send(api, **args)
    return bytes(buf.getvalue())


def new_table(server: LocalHBaseProcess, prefix: str, values: dict[bytes, bytes]) -> Any:
    """Table ``{prefix}_t`` made with family ``cf``, each row of ``values``
    holding its value in ``cf:v``."""
    conn = happybase.Connection(server.host, server.port, table_prefix=prefix)
    conn.create_table("t", {"cf": {}})
    table = conn.table("t")
    for row, value in values.items():
        table.put(row, {b"cf:v": value})
    return table


def put_rows_request(table: bytes, count: int) -> bytes:
    """A mutateRows of ``count`` rows (``r0000``...), a 100-byte cf:v each."""
    rows = [
        T.BatchMutation(row=b"r%04d" % i, mutations=[T.Mutation(column=b"cf:v", value=b"x" * 100)])
        for i in range(count)
    ]
    return request("mutateRows", tableName=table, rowBatches=rows, attributes={})


def replies(sock: socket.socket, api: str, count: int) -> list[Any]:
    """Read ``count`` replies to ``api`` from ``sock``: each call's result."""
    received = b""
    out: list[Any] = []
    sock.settimeout(10)
    while len(out) < count:
        chunk = sock.recv(65536)
        assert chunk, "the server closed the connection"
        received += chunk
        buf = TCyMemoryBuffer(received)
        proto = TCyBinaryProtocolFactory().get_protocol(buf)
        out = []
        try:
            for _ in range(count):
                name, _, seqid = proto.read_message_begin()
                result = getattr(T.Hbase, api + "_result")()
                result.read(proto)
                proto.read_message_end()
                out.append((name, seqid, getattr(result, "success", None)))
        except Exception:
            continue  # a reply cut short: read more
    return out


def test_a_request_arriving_in_pieces_is_answered_once_whole(
    server: LocalHBaseProcess,
) -> None:
    table = new_table(server, "pieces", {})
    data = put_rows_request(b"pieces_t", 2000)
    assert len(data) > 200_000
    with socket.create_connection((server.host, server.port)) as sock:
        # Cut inside the first row, inside a value and one byte short.
        for start, end in [(0, 30), (30, 5_000), (5_000, len(data) - 1), (len(data) - 1, None)]:
            sock.sendall(data[start:end])
            time.sleep(0.05)
        assert replies(sock, "mutateRows", 1) == [("mutateRows", 0, None)]
    assert sum(1 for _ in table.scan()) == 2000
    assert table.row(b"r1999") == {b"cf:v": b"x" * 100}


def test_requests_sent_without_waiting_are_answered_in_order(
    server: LocalHBaseProcess,
) -> None:
    new_table(server, "pipelined", {b"a": b"1", b"b": b"2"})
    both = b"".join(
        request("get", seqid=n, tableName=b"pipelined_t", row=row, column=b"cf:v", attributes={})
        for n, row in enumerate([b"a", b"b", b"a"], 1)
    )
    with socket.create_connection((server.host, server.port)) as sock:
        sock.sendall(both)
        got = replies(sock, "get", 3)
    assert [(seqid, [c.value for c in cells]) for _, seqid, cells in got] == [
        (1, [b"1"]),
        (2, [b"2"]),
        (3, [b"1"]),
    ]


def test_reads_go_on_while_another_client_compacts_a_large_table(
    server: LocalHBaseProcess,
) -> None:
    conn = happybase.Connection(server.host, server.port, table_prefix="slow")
    conn.create_table("big", {"cf": {}})
    conn.create_table("small", {"cf": {}})
    conn.table("small").put(b"row", {b"cf:v": b"here"})
    big = conn.table("big")
    for start in range(0, 300_000, 5_000):
        with big.batch() as batch:
            for i in range(start, start + 5_000):
                batch.put(b"%08d" % i, {b"cf:v": b"v" * 50})
    took: list[float] = []

    def compact() -> None:
        other = happybase.Connection(server.host, server.port, table_prefix="slow", timeout=60_000)
        began = time.monotonic()
        other.compact_table("big", major=True)
        took.extend([began, time.monotonic()])

    compacting = threading.Thread(target=compact)
    reader = happybase.Connection(server.host, server.port, table_prefix="slow").table("small")
    answered: list[float] = []
    compacting.start()
    while compacting.is_alive():
        assert reader.row(b"row") == {b"cf:v": b"here"}
        answered.append(time.monotonic())
    compacting.join()
    began, ended = took
    # The compaction reads every row of the table in the server: long enough
    # that a server doing nothing else meanwhile would answer no read in it.
    assert ended - began > 0.2
    middle = [t for t in answered if began + 0.1 < t < ended - 0.05]
    assert len(middle) > 10


def test_a_client_trickling_a_bulk_request_holds_the_others_up_briefly(
    server: LocalHBaseProcess,
) -> None:
    reader = new_table(server, "trickle", {b"row": b"here"})
    data = put_rows_request(b"trickle_t", 500)
    head, tail = data[:40_000], data[40_000:]
    stop = threading.Event()

    def trickle() -> None:
        with socket.create_connection((server.host, server.port)) as sock:
            sock.sendall(head)
            for i in range(len(tail)):
                if stop.is_set():
                    return
                sock.sendall(tail[i : i + 1])
                time.sleep(0.02)

    trickler = threading.Thread(target=trickle)
    trickler.start()
    try:
        time.sleep(0.1)
        answered = [time.monotonic()]
        while answered[-1] - answered[0] < 1.5:
            assert reader.row(b"row") == {b"cf:v": b"here"}
            answered.append(time.monotonic())
    finally:
        stop.set()
        trickler.join()
    # The loop waits for the rest of a bulk request 50 ms at most, however
    # the bytes trickle in.
    assert max(b - a for a, b in itertools.pairwise(answered)) < 0.5
