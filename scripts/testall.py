#!/usr/bin/env python
"""The whole test run: lint, types, Apache HBase fetched, then every test.

`make test` runs this; so does CI (.ci/run). With CI=true the real-HBase
tests fail rather than skip when HBase cannot start. Extra arguments go to
pytest (`make test ARGS="-k contract"`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def step(title: str, cmd: list[str]) -> None:
    print(f"\n==> {title}: {' '.join(cmd)}", flush=True)
    t0 = time.monotonic()
    result = subprocess.run(cmd, cwd=ROOT, check=False)
    if result.returncode != 0:
        print(f"==> {title} FAILED (exit {result.returncode})", flush=True)
        sys.exit(result.returncode)
    print(f"==> {title} ok in {time.monotonic() - t0:.0f}s", flush=True)


def main() -> None:
    step("lint", [str(BIN / "ruff"), "check", "."])
    step("format", [str(BIN / "ruff"), "format", "--check", "."])
    step("types", [str(BIN / "mypy"), "."])
    if shutil.which("java") and shutil.which("mvn"):
        step("fetch Apache HBase", [sys.executable, "-m", "storage.realhbase", "fetch"])
    elif os.environ.get("CI", "").lower() == "true":
        print("==> CI needs Java and Maven for the real-HBase tests", flush=True)
        sys.exit(1)
    else:
        print("==> no java/mvn: the real-HBase half of the suite will skip", flush=True)
    step("tests", [sys.executable, "-m", "pytest", *sys.argv[1:]])


if __name__ == "__main__":
    main()
