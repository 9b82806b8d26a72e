"""bench.capacity's own measures: each part's CPU, sampled with its
children, and the report's table, CPU line and chart from a run's files."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
import time
from pathlib import Path

from bench import capacity

# Told to go (a line on its stdin), a parent starts a child; each burns
# 0.6 CPU s, then the parent says "burnt" once both have, and both stay,
# idle, until the parent's stdin closes: so the meter reads them after the
# burn however late a loaded machine lets it run.
BURN = "import sys, time\nt = time.process_time()\nwhile time.process_time() - t < 0.6: pass\n"
CHILD = BURN + "print('burnt', flush=True)\nsys.stdin.read()\n"
PARENT = (
    "import subprocess\n"
    "sys.stdin.readline()\n"
    f"child = subprocess.Popen([sys.executable, '-c', {CHILD!r}], stdin=-1, stdout=-1, text=True)\n"
    + BURN.split("\n", 1)[1]
    + "child.stdout.readline()\nprint('burnt', flush=True)\nsys.stdin.read()\n"
    "child.stdin.close()\nchild.wait()\n"
)


def test_a_parts_cpu_counts_its_children_and_a_part_with_none_reads_zero() -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", "import sys, time\n" + PARENT],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert parent.stdin is not None and parent.stdout is not None
    try:
        started = time.monotonic()
        meter = capacity._CpuShares({"tree": [parent.pid], "empty": [], "gone": [2**22 + 7]})
        parent.stdin.write("go\n")
        parent.stdin.flush()
        assert parent.stdout.readline() == "burnt\n"
        share = meter.sample()
        used = share["tree_cpu"] / 100 * (time.monotonic() - started)  # CPU seconds
        parent.stdin.close()
        parent.wait(timeout=60)
        last = meter.sample()
    finally:
        parent.kill()
        parent.wait()
    # Parent and child burn 0.6 CPU s each; the child's start is counted too.
    assert 1.1 <= used <= 1.6, used
    assert share["empty_cpu"] == 0.0 and share["gone_cpu"] == 0.0
    assert last["tree_cpu"] >= 0.0  # the processes gone: nothing, never less


def _write_run(out: Path, minutes: int, with_cpu: bool) -> None:
    out.mkdir()
    with (out / "windows.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["t_s", "name", "count", "errors", "p50_ms", "p99_ms"])
        for t in range(10, minutes * 60 + 1, 10):
            w.writerow([t, "home page", 1500, 0, "20.0", "50.0"])
            w.writerow([t, "post-to-visible", 10, 0, "90.0", "110.0"])
    samples = [
        {
            "t_s": t,
            "web_mb": 240,
            "worker_mb": 410,
            "server_mb": 130,
            "redis_mb": 10,
            "disk_bytes": 56 * 1000,
            "rows": 1000,
            "queue": 0,
            **(
                {f"{p}_cpu": 100.0 if p == "web" else 20.0 for p in capacity.CPU_PARTS}
                if with_cpu
                else {}
            ),
        }
        for t in range(10, minutes * 60 + 1, 10)
    ]
    with (out / "samples.csv").open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(samples[0]))
        writer.writeheader()
        writer.writerows(samples)
    (out / "rows.json").write_text(json.dumps({"before": 1, "after": 2, "estimated": 2}))


def test_the_report_gives_pages_a_second_each_parts_cpu_and_the_page_loaded(
    tmp_path: Path,
) -> None:
    _write_run(tmp_path / "run", minutes=2, with_cpu=True)
    text = capacity.report(tmp_path / "run", "local", 10.0, page="/favicon.ico")
    assert "the readers loaded /favicon.ico, not their home page" in text
    assert "| 0-2 | 150.0 | 20.0 | 50.0 | 90/110 |" in text
    assert "web 100, worker 20, server 20, redis 20, locust 20, machine 20" in text
    # 100% of a core is 1000 ms a second, over 150 pages: 6.67 ms each.
    assert "CPU ms a page at 150.0 pages/s (all of it: 10.0 ms at the goal's rate)" in text
    assert "web 6.67, worker 1.33" in text
    assert "CPU, % of a core" in (tmp_path / "run" / "capacity-local.svg").read_text()


def test_the_budget_a_page_is_held_to_comes_from_the_run_machines_cores(
    tmp_path: Path,
) -> None:
    _write_run(tmp_path / "run", minutes=2, with_cpu=True)
    (tmp_path / "run" / "machine.json").write_text(json.dumps({"cores": 4}))
    text = capacity.report(tmp_path / "run", "local", 10.0)
    # Four cores give 4,000 ms a second; at the goal's 200 pages, 20 ms each.
    assert "CPU in % of one core (the machine's 4: 400)" in text
    assert "(all of it: 20.0 ms at the goal's rate)" in text
    # What each part took a page does not depend on the cores.
    assert "web 6.67, worker 1.33" in text


def test_a_run_saved_before_cpu_was_sampled_still_reports(tmp_path: Path) -> None:
    _write_run(tmp_path / "old", minutes=2, with_cpu=False)
    text = capacity.report(tmp_path / "old", "local", 10.0)
    assert "| 0-2 | 150.0 |" in text
    assert "CPU in %" not in text and "not their home page" not in text
    assert "CPU, % of a core" not in (tmp_path / "old" / "capacity-local.svg").read_text()
