#!/usr/bin/env python
"""The whole test run: Apache HBase fetched, then every test, with lint,
format, types and import contracts checked beside them.

`make test` runs this; so does CI (.ci/run). With CI=true the real-HBase
tests fail rather than skip when HBase cannot start. Extra arguments go to
pytest, after the ``-n 3 --dist worksteal`` that runs the suite in three
processes (`make test ARGS="-k contract"`; `ARGS="-n 0"` runs it in one).
The run fails when the tests or any check fail; a check's failure is
printed as soon as it happens.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


# The suite waits more than it computes (servers starting, fan-outs in real
# workers, processes killed and restarted), so it runs in three processes
# (pytest-xdist) on two cores, each with servers of its own. Measured on
# 2026-11-26 at df8ea55 (1,583 passed, python -m bench.cpushare -- python -m
# pytest -n N): 477 s with 2 (267 idle CPU s), 404 s with 3 (108 idle), 387 s
# with 4 (53 idle); 3 keeps a core's worth of slack for tests that time
# their waits. Work stealing (a process that runs out takes tests queued for
# another) ended the same run of 3 sooner: 374 s against 398 s and 404 s.
WORKERS = 3

# The browser test (tests/web) drives Debian's chromium through its chromedriver.
BROWSER = (Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver"))


def step(title: str, cmd: list[str], env: dict[str, str] | None = None, hint: str = "") -> None:
    print(f"\n==> {title}: {' '.join(cmd)}", flush=True)
    t0 = time.monotonic()
    try:
        result = subprocess.run(cmd, cwd=ROOT, env=env, check=False)
    except FileNotFoundError:
        print(f"==> {title} FAILED: {cmd[0]} not found" + (f"; {hint}" if hint else ""), flush=True)
        sys.exit(1)
    if result.returncode != 0:
        print(
            f"==> {title} FAILED (exit {result.returncode})" + (f"; {hint}" if hint else ""),
            flush=True,
        )
        sys.exit(result.returncode)
    print(f"==> {title} ok in {time.monotonic() - t0:.0f}s", flush=True)


def install_browser() -> None:
    """Install Debian's chromium and chromedriver when either is missing."""
    missing = [str(p) for p in BROWSER if not p.exists()]
    if not missing:
        return
    print(f"==> {', '.join(missing)} missing: the browser test needs them", flush=True)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    hint = "Install them as root: apt-get install chromium chromium-driver"
    step("apt-get update", ["apt-get", "update"], env, hint)
    step(
        "install chromium",
        ["apt-get", "install", "-y", "--no-install-recommends", "chromium", "chromium-driver"],
        env,
        hint,
    )


def install_redis() -> None:
    """The worker tests start a real redis-server (Debian's package)."""
    if shutil.which("redis-server") or Path("/usr/bin/redis-server").exists():
        return
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    hint = "Install it as root: apt-get install redis-server"
    step("apt-get update", ["apt-get", "update"], env, hint)
    step(
        "install redis-server",
        ["apt-get", "install", "-y", "--no-install-recommends", "redis-server"],
        env,
        hint,
    )


# The checks run one after another beside the tests, on a thread of this
# process: mypy alone takes 9.5 s of CPU from a fresh clone, which the
# tests' waits (servers starting, fan-outs in workers) leave room for.
CHECKS = (
    ("lint", ["ruff", "check", "."]),
    ("format", ["ruff", "format", "--check", "."]),
    ("types", ["mypy", "."]),
    ("import contracts", ["lint-imports"]),
)

# Our own modules, compiled to bytecode before the run: where
# PYTHONDONTWRITEBYTECODE is set, as on these machines, every process the
# tests start (hammers, workers, servers, commands) would compile each of
# them it imports again.
PACKAGES = (
    "twitbase",
    "feeds",
    "storage",
    "worker",
    "hbasethrift",
    "localhbase",
    "devtools",
    "bench",
    "tests",
)


class Checks(threading.Thread):
    """:data:`CHECKS` in turn; each one's output kept, and printed at once
    when it fails."""

    def __init__(self) -> None:
        super().__init__(name="checks", daemon=True)
        self.results: list[tuple[str, int, float, str]] = []

    def run(self) -> None:
        for title, (tool, *args) in CHECKS:
            t0 = time.monotonic()
            try:
                done = subprocess.run(
                    [str(BIN / tool), *args],
                    cwd=ROOT,
                    capture_output=True,
                    text=True,
                    check=False,
                )
                code, output = done.returncode, done.stdout + done.stderr
            except FileNotFoundError:
                code, output = 127, f"{BIN / tool} not found"
            self.results.append((title, code, time.monotonic() - t0, output))
            if code != 0:
                print(f"\n==> {title} FAILED (exit {code}):\n{output}", flush=True)

    def report(self) -> int:
        """Wait for the checks; print how each went; the first failure's code, or 0."""
        self.join()
        failed = 0
        for title, code, seconds, _ in self.results:
            outcome = "ok" if code == 0 else f"FAILED (exit {code}), shown above"
            print(f"==> {title}: {outcome} in {seconds:.0f}s", flush=True)
            failed = failed or code
        return failed


def main() -> None:
    if shutil.which("java") and shutil.which("mvn"):
        step("fetch Apache HBase", [sys.executable, "-m", "devtools.realhbase", "fetch"])
    elif os.environ.get("CI", "").lower() == "true":
        print("==> CI needs Java and Maven for the real-HBase tests", flush=True)
        sys.exit(1)
    else:
        print("==> no java/mvn: the real-HBase half of the suite will skip", flush=True)
    install_browser()
    install_redis()
    step(
        "bytecode",
        [sys.executable, "-m", "compileall", "-q", "-j", "0", *PACKAGES, "manage.py"],
    )
    checks = Checks()
    checks.start()
    # The slowest tests printed at the end, and every test's time kept in
    # test-artifacts/junit.xml: what the run's length is made of (issue 39).
    timings = ["--durations=30", "--junitxml=test-artifacts/junit.xml"]
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-n",
        str(WORKERS),
        "--dist",
        "worksteal",
        *timings,
        *sys.argv[1:],
    ]
    print(f"\n==> tests: {' '.join(cmd)}", flush=True)
    print(f"==> checks beside them: {', '.join(title for title, _ in CHECKS)}", flush=True)
    t0 = time.monotonic()
    tests = subprocess.run(cmd, cwd=ROOT, check=False).returncode
    print(
        f"==> tests {'ok' if tests == 0 else f'FAILED (exit {tests})'} in "
        f"{time.monotonic() - t0:.0f}s",
        flush=True,
    )
    failed = checks.report()
    if tests or failed:
        sys.exit(tests or failed)


if __name__ == "__main__":
    main()
