# The compiled module's interface (storage/_bulk.pyx).
def mutate_rows_alike(
    seqid: int,
    table: bytes,
    row_keys: list[bytes],
    cells: list[tuple[bytes, bytes]],
    timestamp: int | None,
) -> bytes: ...
def mutate_tailed_rows_alike(
    seqid: int,
    table: bytes,
    heads: bytes,
    width: int,
    tail: bytes,
    cells: list[tuple[bytes, bytes]],
    timestamp: int | None,
) -> bytes: ...
def spread_pick(heads: bytes, width: int, salt: int, modulus: int) -> list[bytes]: ...
def mutate_rows(
    seqid: int,
    table: bytes,
    rows: list[tuple[bytes, dict[bytes, bytes]]],
    timestamp: int | None,
) -> bytes: ...
def delete_rows_alike(
    seqid: int,
    table: bytes,
    row_keys: list[bytes],
    columns: list[bytes],
    timestamp: int | None,
) -> bytes: ...
def scanner_get_list(seqid: int, scanner: int, rows: int) -> bytes: ...
def read_row_keys(trans: object) -> list[bytes] | int | None: ...
def read_rows(trans: object) -> list[tuple[bytes, dict[bytes, bytes]]] | int | None: ...
def finish_result(trans: object) -> None: ...
