"""A chart of ``benchschema --home`` runs of two versions, from the tables it printed:

    python -m bench.homepage_chart --before before-*.md --after after-*.md \\
        --svg home.svg --title "Home page on HBase"

draws the p50 of each read (the home page of 20 and of 100, and the raw
scans of the same stream rows), each bar the median of the runs given.
With ``--stream``, it draws the stream read alone and its raw scan for
20, 50 and 100 rows instead (the issue's goal is for 50); with
``--merged``, the stream read of 50 with a large account merged and the
raw scan measured beside it (the goal's second half: at most 2x).
With ``--runs`` instead of ``--before``/``--after``, it draws the reads
of one version side by side, for pages of 20 and of 100: the page with
its lookups side by side and in turn, the stream read alone, the raw scan::

    python -m bench.homepage_chart --runs bench/results/homepage-followed-after-local-*.md \
        --svg home-local.svg --title "Home page, local server"
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from .charts import bar_chart, table_cells

READS = (
    ("page of 20", "home page, first 20"),
    ("raw scan, 20 rows", "raw scan of the same 20 stream rows"),
    ("page of 100", "home page, 100"),
    ("raw scan, 100 rows", "raw scan of the same 100 stream rows"),
)

# The stream read alone against its raw scan (--stream).
STREAM_READS = tuple(
    pair
    for n, first in ((20, "first 20"), (50, "50"), (100, "100"))
    for pair in (
        (f"stream read, {n}", f"stream read alone, {first} "),
        (f"raw scan, {n}", f"raw scan of the same {n} stream rows"),
    )
)

# The stream read with a large account merged, and its raw scan (--merged).
MERGED_READS = (
    ("merged stream read, 50", "stream read alone, 50, a large account merged"),
    ("raw scan, 50", "raw scan again, the same 50 stream rows"),
)

# One version's reads (--runs): series -> the label's start for 20 and 100 rows.
ONE_RUN = {
    "page, lookups side by side": ("home page, first 20", "home page, 100"),
    "page, lookups in turn": ("home page in turn, first 20", "home page in turn, 100"),
    "stream read alone": ("stream read alone, first 20", "stream read alone, 100"),
    "raw scan": ("raw scan of the same 20", "raw scan of the same 100"),
}


def parse(text: str) -> dict[str, float]:
    """read -> p50 ms, from one printed home-page table."""
    out = {}
    for cells in table_cells(text):
        # Five columns, or six since the CPU column was added (2026-11-29).
        if len(cells) in (5, 6) and cells[0].startswith(("home page", "raw scan", "stream read")):
            out[cells[0]] = float(cells[3])
    return out


def _median(runs: list[dict[str, float]], prefix: str) -> float | None:
    found = [v for run in runs for k, v in run.items() if k.startswith(prefix)]
    return statistics.median(found) if found else None


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", nargs="+", help="tables of the earlier version")
    parser.add_argument("--after", nargs="+", help="tables of this version")
    parser.add_argument("--runs", nargs="+", help="tables of one version: its reads side by side")
    parser.add_argument(
        "--stream", action="store_true", help="the stream read alone and its raw scan"
    )
    parser.add_argument(
        "--merged", action="store_true", help="the stream read with a large account merged"
    )
    parser.add_argument("--svg", required=True, help="the SVG file to write")
    parser.add_argument("--title", default="Home page")
    o = parser.parse_args(argv)
    if o.runs:
        one = [parse(Path(f).read_text()) for f in o.runs]
        bar_chart(
            o.svg,
            f"{o.title}: p50 ms (median of {len(one)} runs)",
            ["20 rows", "100 rows"],
            {name: [_median(one, key) for key in keys] for name, keys in ONE_RUN.items()},
            "ms",
        )
        return
    if not (o.before and o.after):
        parser.error("give --before and --after, or --runs")
    reads = MERGED_READS if o.merged else STREAM_READS if o.stream else READS
    runs = {
        "before": [parse(Path(f).read_text()) for f in o.before],
        "after": [parse(Path(f).read_text()) for f in o.after],
    }
    bar_chart(
        o.svg,
        f"{o.title}: p50 ms (median of {len(o.before)} and {len(o.after)} runs)",
        [label for label, _ in reads],
        {name: [_median(r, key) for _, key in reads] for name, r in runs.items()},
        "ms",
    )


if __name__ == "__main__":
    main()
