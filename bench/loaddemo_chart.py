"""A chart of ``loaddemo`` runs by version, from the tables of runs kept in
bench/results:

    python -m bench.loaddemo_chart bench/results/loaddemo-2026-11-26*.md \\
        --svg docs/benchmarks-loaddemo.svg

Each table row is ``| version | result |``, the result being the last line
``loaddemo`` printed ("7,161,739 rows in 35.6s (201,049 rows/s); ...").
A bar is the median of a version's runs, in the order the versions first
appear (or ``--order``); the dashed line is 3x ``--goal-of``'s (the issue's
goal).
"""

from __future__ import annotations

import argparse
import re
import statistics
from pathlib import Path

from .charts import bar_chart, table_cells

RATE = re.compile(r"\(([\d,]+) rows/s\)")


def runs(text: str) -> dict[str, list[float]]:
    """Rows/s by version, from one table of runs."""
    out: dict[str, list[float]] = {}
    for cells in table_cells(text):
        found = RATE.search(cells[-1]) if len(cells) >= 2 else None
        if found:
            version = cells[0].split(" (")[0]
            out.setdefault(version, []).append(float(found.group(1).replace(",", "")))
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tables", nargs="+", help="tables of runs (markdown)")
    parser.add_argument("--svg", required=True, help="the SVG file to write")
    parser.add_argument("--goal-of", help="the version whose rate times 3 is the goal line")
    parser.add_argument("--order", nargs="+", help="the versions to draw, in this order")
    o = parser.parse_args(argv)
    by_version: dict[str, list[float]] = {}
    for path in o.tables:
        for version, rates in runs(Path(path).read_text()).items():
            by_version.setdefault(version, []).extend(rates)
    versions = o.order or list(by_version)
    medians = [statistics.median(by_version[v]) for v in versions]
    goal = None
    if o.goal_of:
        goal = ("3x " + o.goal_of, 3 * statistics.median(by_version[o.goal_of]))
    bar_chart(
        o.svg,
        "loaddemo --users 100000 --twits 100000 on the local server, rows/s (median of runs)",
        versions,
        {"rows/s": medians},
        "rows/s",
        line=goal,
    )
    for version, rate in zip(versions, medians, strict=True):
        print(f"{version}: {rate:,.0f} rows/s ({len(by_version[version])} runs)")


if __name__ == "__main__":
    main()
