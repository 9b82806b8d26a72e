"""Where a command's CPU goes: CPU seconds by part, machine-wide, while it runs.

    python -m bench.cpushare --svg docs/benchmarks-ci-cpu.svg -- make test
    python -m bench.cpushare --svg docs/benchmarks-ci-cpu.svg --table saved.md   # redraw
    python -m bench.cpushare --svg both.svg --table a.md b.md --names before after   # side by side

runs the command, reads every process's CPU time (psutil) once a second
until it exits, and prints a table of CPU seconds by part: the real HBase's
JVMs, the local HBase servers, the Celery workers, Chromium, the test
processes... (a process's part is the first of ``PARTS`` its command line
matches). A process that lives less than a second may be missed, so the
parts add up to less than the machine's busy time, which is printed too.
Processes already running when it starts count only what they use after.

psutil reads the processes; what no tool does is sum them by what they are
for TwitBase's test run, hence this module.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import textwrap
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import psutil

from .charts import bar_chart, table_cells

# (part, a substring of its command line), first match wins.
PARTS = (
    ("real HBase: HMaster, RegionServers, ZooKeeper", "proc_master"),
    ("real HBase: Thrift2 server", "proc_thrift2"),
    ("real HBase: Thrift1 server", "proc_thrift"),
    ("Maven and javac", "java"),
    ("Chromium and chromedriver", "chrom"),
    ("Celery workers", "celery"),
    ("local HBase servers", "localhbase"),
    ("Redis", "redis-server"),
    ("web servers (runserver)", "runserver"),
    ("pytest's test processes", "import sys;exec(eval("),
    ("pytest", "pytest"),
    ("mypy, ruff, import-linter", "mypy"),
    ("mypy, ruff, import-linter", "ruff"),
    ("mypy, ruff, import-linter", "lint-imports"),
    ("other Python (manage.py commands, helpers)", "python"),
)
OTHER = "other processes"


def part_of(cmdline: str) -> str:
    return next((part for part, mark in PARTS if mark in cmdline), OTHER)


def _busy_idle() -> tuple[float, float]:
    t = psutil.cpu_times()
    idle = t.idle + getattr(t, "iowait", 0.0)
    return sum(t) - idle, idle


class PartsMeter:
    """CPU seconds by part since the meter was made, as often as it is
    read. ``part_of(pid, cmdline)`` names a process's part when the meter
    first sees it (None: no part's); a process running when the meter was
    made counts only what it uses after, and one gone since the last
    reading keeps what it had used by then. :func:`measure` reads one for
    a command's run, bench.capacity one for each window of a load."""

    def __init__(self, part_of: Callable[[int, str], str | None]) -> None:
        self._part_of = part_of
        self._before = {key: cpu for key, _, cpu in _processes()}
        self._used: dict[tuple[int, float], tuple[str | None, float]] = {}  # (pid, start) ->
        self._busy, self._idle = _busy_idle()

    def read(self) -> dict[str, float]:
        for key, cmdline, cpu in _processes():
            part = self._used[key][0] if key in self._used else self._part_of(key[0], cmdline)
            self._used[key] = (part, cpu - self._before.get(key, 0.0))
        by_part: defaultdict[str, float] = defaultdict(float)
        for part, seconds in self._used.values():
            if part is not None:
                by_part[part] += seconds
        return by_part

    def machine(self) -> tuple[float, float]:
        """The whole machine's busy and idle CPU seconds since it was made."""
        busy, idle = _busy_idle()
        return busy - self._busy, idle - self._idle


def measure(command: list[str]) -> tuple[int, float, float, float, dict[str, float]]:
    """Run ``command``; its exit code, wall seconds, the machine's busy and
    idle CPU seconds, and CPU seconds by part."""
    meter = PartsMeter(lambda _, cmdline: part_of(cmdline))
    started = time.monotonic()
    child = subprocess.Popen(command)
    while True:
        by_part = meter.read()
        if child.poll() is not None:
            break
        time.sleep(1)
    busy, idle = meter.machine()
    return child.returncode, time.monotonic() - started, busy, idle, by_part


def _processes() -> list[tuple[tuple[int, float], str, float]]:
    """Every process now: (pid, start time), command line, CPU seconds."""
    found = []
    for proc in psutil.process_iter(["cmdline", "create_time", "cpu_times"]):
        times = proc.info["cpu_times"]
        if times is None:
            continue  # gone, or not ours to read
        key = (proc.pid, proc.info["create_time"])
        found.append((key, " ".join(proc.info["cmdline"] or []), times.user + times.system))
    return found


def parse_table(text: str) -> dict[str, float]:
    """part -> CPU s, from a table this module printed."""
    out = {}
    for cells in table_cells(text):
        if len(cells) == 3 and cells[1].replace(".", "", 1).isdigit():
            out[cells[0]] = float(cells[1])
    return out


def draw(path: Path, title: str, runs: dict[str, dict[str, float]]) -> None:
    """The eight largest parts (of the first run) as bars, a bar per run."""
    first = next(iter(runs.values()))
    parts = sorted(first, key=first.__getitem__, reverse=True)[:8]
    bar_chart(
        path,
        title,
        [textwrap.fill(p, 16) for p in parts],
        {name: [by_part.get(p, 0.0) for p in parts] for name, by_part in runs.items()},
        "CPU seconds",
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--svg", help="also draw the parts as a bar chart here")
    parser.add_argument("--title", default="Where the CPU of a run goes")
    parser.add_argument(
        "--table",
        nargs="+",
        help="draw from tables printed before, a bar per table (named by its file); run nothing",
    )
    parser.add_argument("--names", nargs="+", help="the tables' names in the legend, in order")
    parser.add_argument("command", nargs="*", help="the command to run (after --)")
    args = parser.parse_args(argv)
    if args.table:
        if args.svg:
            names = args.names or [Path(t).stem for t in args.table]
            if len(names) != len(args.table):
                parser.error("give one name per table")
            runs = {
                n: parse_table(Path(t).read_text()) for n, t in zip(names, args.table, strict=True)
            }
            if len(runs) == 1:
                runs = {"CPU seconds": next(iter(runs.values()))}
            draw(Path(args.svg), args.title, runs)
        return
    if not args.command:
        parser.error("give a command to run (after --), or --table")
    code, wall, busy, idle, by_part = measure(args.command)
    print(f"\n{' '.join(args.command)}: exit {code}, {wall:.0f} s wall")
    print(f"machine: {busy:.0f} CPU s busy, {idle:.0f} idle\n")
    print("| part | CPU s | of busy |\n|---|---:|---:|")
    for part in sorted(by_part, key=by_part.__getitem__, reverse=True):
        print(f"| {part} | {by_part[part]:.1f} | {100 * by_part[part] / busy:.0f}% |")
    if args.svg:
        draw(Path(args.svg), args.title, {"CPU seconds": by_part})
    sys.exit(code)


if __name__ == "__main__":
    main()
