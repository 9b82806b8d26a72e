"""A chart of ``benchstorage --targets raw,local`` runs of two versions, from
the tables it printed:

    python -m bench.storage_chart --before bench/results/storagelong-rows-issue-b2d250a-*.md \\
        --after bench/results/storagelong-rows-after-*.md --svg docs/benchmarks-storage-rows.svg

draws the local server's rate of each operation, with 1 and 4 clients, as a
share of raw in-process RocksDB measured in the same run; each bar is the
median of the runs given.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from .charts import bar_chart, table_cells
from .storage import OPS


def parse(text: str) -> dict[tuple[str, int], float]:
    """(op, clients) -> the local server's % of raw, from one printed table."""
    out = {}
    for cells in table_cells(text):
        if len(cells) >= 9 and cells[0] == "local":
            out[cells[2], int(cells[1])] = float(cells[7].rstrip("%"))
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", nargs="+", required=True, help="tables of the earlier version")
    parser.add_argument("--after", nargs="+", required=True, help="tables of this version")
    parser.add_argument("--svg", required=True, help="the SVG file to write")
    o = parser.parse_args(argv)
    keys = [(op, clients) for op in OPS for clients in (1, 4)]
    series = {}
    for name, files in (("before", o.before), ("after", o.after)):
        runs = [parse(Path(f).read_text()) for f in files]
        series[name] = [statistics.median(run[key] for run in runs) for key in keys]
    bar_chart(
        o.svg,
        f"Local server, % of raw RocksDB (median of {len(o.before)} and {len(o.after)} runs)",
        [f"{op}\n{clients} client{'s' if clients > 1 else ''}" for op, clients in keys],
        series,
        "% of raw",
    )


if __name__ == "__main__":
    main()
