"""What a TwitBase process's start-up and exit cost, in CPU: the cost every
``manage.py`` command, worker, web process and test hammer pays once.

    python -m bench.startup [--runs 10] [--against REV]

Each case is run ``runs`` times, the cases interleaved; the table gives the
median CPU seconds (user and system, from the child's rusage) and wall
seconds of each. ``python -c pass`` is the raw limit: the interpreter
alone. With ``--against REV`` the same cases also run from a checkout of
REV (a git worktree made for the run, removed after), interleaved with
this tree's, so the two columns share the machine's pace. Progress goes to
stderr; the table to stdout.

A process's CPU is read from its rusage, which no benchmarking tool here
reports per case beside a git revision's, hence this module.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SETUP = (
    "import os; os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'twitbase.settings'); "
    "import django; django.setup()"
)

# (label, arguments after the interpreter), each run from a checkout's root.
CASES = (
    ("python -c pass (the interpreter alone: the limit)", ["-c", "pass"]),
    ("manage.py check (a command: Django set up, its checks, exit)", ["manage.py", "check"]),
    ("django.setup() from a program that does not pause the collector", ["-c", SETUP]),
    (
        "a test hammer's start (tests/services/hammer.py), then exit",
        [
            "-c",
            "try:\n from twitbase import startup; startup.pause()\n"
            "except ImportError:\n pass  # a version without it\n"
            + SETUP.replace("; ", "\n")
            + "\nfrom feeds import services",
        ],
    ),
)


def _run_once(tree: Path, args: list[str]) -> tuple[float, float]:
    """CPU and wall seconds of one run of the interpreter with ``args`` in ``tree``."""
    env = {**os.environ, "TWITBASE_LOG_LEVEL": "WARNING"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, *args], cwd=tree, env=env, check=True, stdout=subprocess.DEVNULL
    )
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def measure(trees: dict[str, Path], runs: int) -> dict[tuple[str, str], list[tuple[float, float]]]:
    """Each case in each tree, ``runs`` rounds, interleaved: {(tree, case): [(cpu, wall)]}."""
    found: dict[tuple[str, str], list[tuple[float, float]]] = {}
    total = runs * len(trees) * len(CASES)
    done = 0
    for _ in range(runs):
        for label, args in CASES:
            for name, tree in trees.items():
                found.setdefault((name, label), []).append(_run_once(tree, args))
                done += 1
                print(f"\rruns {done}/{total}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return found


def format_table(
    trees: dict[str, Path], found: dict[tuple[str, str], list[tuple[float, float]]]
) -> str:
    names = list(trees)
    head = "| process | " + " | ".join(f"{n}: CPU s | {n}: wall s" for n in names) + " |"
    lines = [head, "|---|" + "---:|---:|" * len(names)]
    for label, _ in CASES:
        cells = []
        for name in names:
            got = found[(name, label)]
            cpu = statistics.median(c for c, _ in got)
            wall = statistics.median(w for _, w in got)
            cells += [f"{cpu:.3f}", f"{wall:.3f}"]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--against", metavar="REV", help="also run the cases from this revision")
    o = parser.parse_args(argv)
    trees = {"this tree": ROOT}
    with tempfile.TemporaryDirectory() as tmp:
        if o.against:
            old = Path(tmp) / "old"
            subprocess.run(
                ["git", "worktree", "add", "--detach", "-q", str(old), o.against],
                cwd=ROOT,
                check=True,
            )
            trees = {o.against: old, **trees}
        # Each tree's modules compiled first, as `make test` compiles them:
        # where PYTHONDONTWRITEBYTECODE is set, an uncompiled tree would
        # compile each module it imports in every run.
        for tree in trees.values():
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "compileall",
                    "-q",
                    "-j",
                    "0",
                    "twitbase",
                    "feeds",
                    "storage",
                    "worker",
                    "hbasethrift",
                    "devtools",
                    "manage.py",
                ],
                cwd=tree,
                check=True,
                stdout=subprocess.DEVNULL,
            )
        try:
            found = measure(trees, o.runs)
        finally:
            if o.against:
                subprocess.run(["git", "worktree", "remove", "--force", str(old)], cwd=ROOT)
    print(f"{o.runs} runs of each, interleaved; medians.\n")
    print(format_table(trees, found))


if __name__ == "__main__":
    main()
