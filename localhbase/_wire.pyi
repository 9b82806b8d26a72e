# The compiled module's interface (localhbase/_wire.pyx).
from collections.abc import Callable, Sequence

INCOMPLETE: int
GENERAL: int
READY: int

class RowsScanner:
    end: int
    seqid: int
    name: bytes
    table: bytes
    timestamp: int | None
    rows_at: int
    def reset(self) -> None: ...
    def scan(self, buf: bytes | bytearray | memoryview) -> int: ...

def put_rows(
    buf: bytes | bytearray | memoryview,
    rows_at: int,
    table_prefix: bytes,
    families: tuple[bytes, ...],
    put_tail: bytes,
    put: Callable[[bytes, bytes], object],
) -> int: ...
def encode_rows(
    name: bytes,
    seqid: int,
    rows: list[tuple[bytes, Sequence[tuple[bytes, bytes, int, bytes]]]],
    sort_columns: bool,
) -> bytes: ...
def parse_get(
    buf: bytes | bytearray | memoryview,
) -> int | tuple[int, int, bytes, bytes, list[bytes], list[bytes] | None]: ...

SCAN_OPEN: int
SCAN_FETCH: int
SCAN_CLOSE: int

def parse_scanner_call(
    buf: bytes | bytearray | memoryview,
) -> int | tuple[int, int, bytes, int, tuple[object, ...]]: ...
