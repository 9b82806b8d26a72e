"""A reply of rows written by the compiled encoder (``_wire.encode_rows``) is
byte for byte what thriftpy2 writes for the same rows as TRowResults; and
where the encoder is not built, the rows reach thriftpy2 as TRowResults."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from thriftpy2.protocol import TCyBinaryProtocolFactory
from thriftpy2.transport import TCyMemoryBuffer

from localhbase import server as srv

compiled = pytest.mark.skipif(not srv.COMPILED, reason="localhbase._wire not built")

CELLS = st.lists(
    st.tuples(
        st.sampled_from([b"a", b"cf", b"b\x00c", b""]),
        st.binary(max_size=10),
        st.integers(0, 2**63 - 1),
        st.binary(max_size=50),
    ),
    max_size=5,
    # Distinct columns, as a read gives: one version of each.
    unique_by=lambda cell: (cell[0], cell[1]),
)
ROWS = st.lists(st.tuples(st.binary(max_size=20), CELLS), max_size=6)


def thriftpy2_reply(api: str, seqid: int, rows: list[Any], sort_columns: bool) -> bytes:
    """What the processor writes for the rows made TRowResults."""
    processor = srv._Processor(srv.T.Hbase, None)
    result = getattr(srv.T.Hbase, f"{api}_result")()
    result.success = srv.Rows(rows, sort_columns).results()
    out = TCyMemoryBuffer()
    processor.send_result(TCyBinaryProtocolFactory().get_protocol(out), api, result, seqid)
    return bytes(out.getvalue())


@compiled
@given(
    rows=ROWS,
    sort_columns=st.booleans(),
    api=st.sampled_from(["scannerGetList", "getRowsWithColumns", "getRow"]),
    seqid=st.integers(-(2**31), 2**31 - 1),
)
def test_the_compiled_reply_is_thriftpy2s_reply(
    rows: list[Any], sort_columns: bool, api: str, seqid: int
) -> None:
    result = getattr(srv.T.Hbase, f"{api}_result")(success=srv.Rows(rows, sort_columns))
    assert srv.encode_reply(api, seqid, result) == thriftpy2_reply(api, seqid, rows, sort_columns)


def test_without_the_encoder_the_rows_reach_thriftpy2_as_trowresults(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(srv, "_wire", None)
    rows = [(b"r", [(b"cf", b"q", 5, b"v")])]
    result = srv.T.Hbase.getRow_result(success=srv.Rows(rows))
    assert srv.encode_reply("getRow", 1, result) is None
    assert result.success == [
        srv.T.TRowResult(row=b"r", columns={b"cf:q": srv.T.TCell(value=b"v", timestamp=5)})
    ]


def test_a_reply_that_is_not_rows_is_left_to_thriftpy2() -> None:
    result = srv.T.Hbase.get_result(success=[srv.T.TCell(value=b"v", timestamp=5)])
    assert srv.encode_reply("get", 1, result) is None
