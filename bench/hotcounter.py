"""A hot counter: does an increment, or a get of its row, cost more the more
often the counter has been incremented?

    python -m bench.hotcounter [--targets local,hbase] [--increments 30000] [--every 5000]
    python -m bench.hotcounter --chart before.md after.md --names before after --svg FILE

One client (happybase) increments three counters of one row in turn, on a
fresh server, and every ``every`` increments times 500 more and 500 gets of
the row. TwitBase's counters are such rows: a twit's likes, a user's
followers, the fan-out metrics every chunk adds to. HBase seeks past a
column's older versions, so its cost should stay flat; the local server's
must too. Progress goes to stderr; the table to stdout.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import happybase

from .callcost import fresh_server
from .charts import line_chart, table_cells

COLUMNS = (b"cf:a", b"cf:b", b"cf:c")
ROW = b"counters"
TIMED = 500


def _per_call_us(call: Callable[[int], object], n: int) -> float:
    t0 = time.perf_counter()
    for i in range(n):
        call(i)
    return (time.perf_counter() - t0) / n * 1e6


def run(target: str, increments: int, every: int) -> list[tuple[str, int, float, float]]:
    """(target, increments so far, µs an increment, µs a get of the row)."""
    out = []
    with (
        tempfile.TemporaryDirectory(prefix="hotcounter-") as tmp,
        fresh_server(target, Path(tmp)) as port,
    ):
        conn = happybase.Connection("127.0.0.1", port)
        conn.create_table("hot", {"cf": {"max_versions": 1}})
        table = conn.table("hot")
        done = 0
        while True:
            inc = _per_call_us(lambda i: table.counter_inc(ROW, COLUMNS[i % 3]), TIMED)
            get = _per_call_us(lambda i: table.row(ROW), TIMED)
            done += TIMED
            out.append((target, done, inc, get))
            print(
                f"{target}: {done:,} increments: {inc:.0f} µs each, a get {get:.0f} µs",
                file=sys.stderr,
                flush=True,
            )
            if done >= increments:
                break
            for i in range(every - TIMED):
                table.counter_inc(ROW, COLUMNS[i % 3])
            done += every - TIMED
        conn.close()
    return out


def chart(tables: list[str], names: list[str], svg: str) -> None:
    """The increments' cost against the count, from saved tables: a line per
    table and target, named ``names[i]`` (and the target, if it has more)."""
    series = {}
    for table, name in zip(tables, names, strict=True):
        found: dict[str, tuple[list[float], list[float]]] = {}
        for cells in table_cells(Path(table).read_text()):
            if len(cells) == 4 and cells[1].replace(",", "").isdigit():
                xs, ys = found.setdefault(cells[0], ([], []))
                xs.append(float(cells[1].replace(",", "")))
                ys.append(float(cells[2].replace(",", "")))
        for target, xy in found.items():
            series[name if len(found) == 1 else f"{name}, {target}"] = xy
    line_chart(
        svg,
        "A hot counter: an increment's cost as the counter is incremented",
        series,
        "increments of the row so far",
        "µs an increment (mean of 500)",
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", default="local,hbase")
    parser.add_argument("--increments", type=int, default=30_000)
    parser.add_argument("--every", type=int, default=5_000)
    parser.add_argument("--chart", nargs="+", help="draw these saved tables instead of running")
    parser.add_argument("--names", nargs="+", help="the tables' names in the chart's key")
    parser.add_argument("--svg", help="the chart's file")
    args = parser.parse_args(argv)
    if args.chart:
        if not args.svg or not args.names or len(args.names) != len(args.chart):
            parser.error("--chart needs --svg and a name for each table")
        chart(args.chart, args.names, args.svg)
        return
    if args.every <= TIMED:
        parser.error(f"--every must be more than the {TIMED} timed increments")
    rows = [r for t in args.targets.split(",") for r in run(t, args.increments, args.every)]
    print("| target | increments so far | µs an increment | µs a get of the row |")
    print("|---|---:|---:|---:|")
    for target, done, inc, get in rows:
        print(f"| {target} | {done:,} | {inc:.0f} | {get:.0f} |")
    for target in dict.fromkeys(r[0] for r in rows):
        mine = [r for r in rows if r[0] == target]
        print(
            f"\n{target}: the last increment {mine[-1][2] / mine[0][2]:.2f}x the first, "
            f"the last get {mine[-1][3] / mine[0][3]:.2f}x the first "
            f"(median increment {statistics.median(r[2] for r in mine):.0f} µs)"
        )


if __name__ == "__main__":
    main()
