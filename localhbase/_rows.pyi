# The compiled module's interface (localhbase/_rows.pyx).
from collections.abc import Callable, Iterator

from rocksdict import Rdict, RdictIter

from .store import Cell, FamilyDescriptor, ReadSpec

class RowReader:
    def __init__(
        self,
        families: dict[bytes, FamilyDescriptor],
        spec: ReadSpec,
        now: int,
        it: RdictIter,
        seek_columns: bool = False,
    ) -> None: ...
    def collect(self, pre: bytes) -> list[Cell]: ...

def scan_forward(
    db: Rdict,
    families: dict[bytes, FamilyDescriptor],
    table_pre: bytes,
    seek: bytes,
    stop: bytes,
    spec: ReadSpec,
    first_puts: frozenset[bytes],
    clock: Callable[[], int],
) -> Iterator[tuple[bytes, list[Cell]]]: ...
