"""Charts of ``benchfanout`` runs of two versions, from the tables it printed:

    python -m bench.fanout_chart --target hbase --before bench/results/fanout-night-hbase-*.md \\
        --after bench/results/fanout-pair-hbase-*.md --svg docs/benchmarks-fanout-ceiling-hbase

writes PREFIX-throughput.svg (raw puts and fan-out, rows/s; a raw measure
the tables lack has no bar) and
PREFIX-latency.svg (post-to-visible p50 and p99, with the 500 ms goal). Each
bar is the median of the runs given.
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Callable
from pathlib import Path

from .charts import bar_chart, table_cells

THROUGHPUT = (
    ("raw batched puts", "raw batched puts, 1 process"),
    ("raw at volume", "raw batched puts, a fan-out's volume, 1 process"),
    ("2 raw writers", "raw batched puts, a fan-out's volume, 2 processes"),
    ("fan-out, 1 worker", "fan-out, 1 worker process(es)"),
    ("fan-out, 2 workers", "fan-out, 2 worker process(es)"),
    ("fan-out, 4 workers", "fan-out, 4 worker process(es)"),
)
LATENCY = (("p50", ", p50"), ("p99", ", p99"))


def parse(text: str, target: str = "local") -> dict[str, float]:
    """measure -> value, from one printed table (one target's rows)."""
    out = {}
    for cells in table_cells(text):
        if len(cells) >= 3 and cells[0] == target:
            out[cells[1]] = float(cells[2].replace(",", ""))
    return out


def _median(runs: list[dict[str, float]], match: Callable[[str], bool]) -> float | None:
    """The median over ``runs`` of the measure ``match`` picks."""
    found = [v for run in runs for k, v in run.items() if match(k)]
    return statistics.median(found) if found else None


def _latency(suffix: str) -> Callable[[str], bool]:
    """Post-to-visible at that percentile, whatever the follower count."""
    return lambda k: k.startswith("post-to-visible") and k.endswith(suffix)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", nargs="+", required=True, help="tables of the earlier version")
    parser.add_argument("--after", nargs="+", required=True, help="tables of this version")
    parser.add_argument("--svg", required=True, help="prefix of the two SVG files")
    parser.add_argument("--title", default="Fan-out on the local server, 10,000 followers")
    parser.add_argument("--target", default="local", help="the tables' rows to chart: local, hbase")
    parser.add_argument(
        "--names", nargs=2, default=("before", "after"), help="the two versions' names in the key"
    )
    o = parser.parse_args(argv)
    runs = {
        o.names[0]: [parse(Path(f).read_text(), o.target) for f in o.before],
        o.names[1]: [parse(Path(f).read_text(), o.target) for f in o.after],
    }
    bar_chart(
        f"{o.svg}-throughput.svg",
        f"{o.title}: rows/s (median of {len(o.before)} and {len(o.after)} runs)",
        [label for label, _ in THROUGHPUT],
        {name: [_median(r, key.__eq__) for _, key in THROUGHPUT] for name, r in runs.items()},
        "rows/s",
    )
    bar_chart(
        f"{o.svg}-latency.svg",
        f"{o.title}: post-to-visible, ms (dashed: the 500 ms goal)",
        [label for label, _ in LATENCY],
        {name: [_median(r, _latency(key)) for _, key in LATENCY] for name, r in runs.items()},
        "ms",
        line=("goal: p99 at most 500 ms", 500.0),
    )


if __name__ == "__main__":
    main()
