"""A chart of ``benchschema --home`` runs of two versions, from the tables it printed:

    python -m bench.homepage_chart --before docs/bench-data/homepage-lookups-before-hbase-*.md \\
        --after docs/bench-data/homepage-lookups-after-hbase-*.md \\
        --svg docs/benchmarks-homepage-hbase.svg --title "Home page on HBase"

draws the p50 of each read (the home page of 20 and of 100, and the raw
scans of the same stream rows), each bar the median of the runs given.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from .charts import bar_chart

READS = (
    ("page of 20", "home page, first 20"),
    ("raw scan, 20 rows", "raw scan of the same 20 stream rows"),
    ("page of 100", "home page, 100"),
    ("raw scan, 100 rows", "raw scan of the same 100 stream rows"),
)


def parse(text: str) -> dict[str, float]:
    """read -> p50 ms, from one printed home-page table."""
    out = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0].startswith(("home page", "raw scan")):
            out[cells[0]] = float(cells[3])
    return out


def _median(runs: list[dict[str, float]], prefix: str) -> float | None:
    found = [v for run in runs for k, v in run.items() if k.startswith(prefix)]
    return statistics.median(found) if found else None


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", nargs="+", required=True, help="tables of the earlier version")
    parser.add_argument("--after", nargs="+", required=True, help="tables of this version")
    parser.add_argument("--svg", required=True, help="the SVG file to write")
    parser.add_argument("--title", default="Home page")
    o = parser.parse_args(argv)
    runs = {
        "before": [parse(Path(f).read_text()) for f in o.before],
        "after": [parse(Path(f).read_text()) for f in o.after],
    }
    bar_chart(
        o.svg,
        f"{o.title}: p50 ms (median of {len(o.before)} and {len(o.after)} runs)",
        [label for label, _ in READS],
        {name: [_median(r, key) for _, key in READS] for name, r in runs.items()},
        "ms",
    )


if __name__ == "__main__":
    main()
