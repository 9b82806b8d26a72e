# The compiled module's interface (storage/_bulk.pyx).
def mutate_rows_alike(
    seqid: int,
    table: bytes,
    row_keys: list[bytes],
    cells: list[tuple[bytes, bytes]],
    timestamp: int | None,
) -> bytes: ...
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
