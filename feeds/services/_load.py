"""What an owner gives the bulk loader (services/bulk.py): its rows, each as
(table, row key, cells, cell timestamp or None for the server's clock),
built by the owner's own mapping and written by the loader, which names no
table itself."""

from __future__ import annotations

LoadRow = tuple[str, bytes, dict[bytes, bytes], int | None]
