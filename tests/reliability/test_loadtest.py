"""The locust load test (loadtest/locustfile.py) runs clean against a live server.

A short headless run with a few users, so the locustfile cannot rot: every
request it makes (sign up, log in, follow, post, read the stream and a
profile) must succeed. The real load figures are in docs/reliability.md.
"""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_locustfile_runs_without_a_failed_request(live_url: str, tmp_path: Path) -> None:
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "locust",
            "-f",
            str(ROOT / "loadtest" / "locustfile.py"),
            "--headless",
            "-u",
            "3",
            "-r",
            "3",
            # A bound only: the run ends when every user has run 4 tasks
            # after its first stream read (TWITBASE_LOADTEST_ROUNDS).
            "-t",
            "100s",
            "--host",
            live_url,
            "--csv",
            str(tmp_path / "run"),
            "--only-summary",
        ],
        cwd=ROOT,
        env={**os.environ, "TWITBASE_LOADTEST_ROUNDS": "4"},
        capture_output=True,
        text=True,
        timeout=150,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    with (tmp_path / "run_stats.csv").open() as f:
        rows = {row["Name"]: row for row in csv.DictReader(f)}
    assert int(rows["Aggregated"]["Failure Count"]) == 0
    for name in ("/api/users (sign up)", "/api/login", "/api/stream"):
        assert int(rows[name]["Request Count"]) >= 3, name  # each of the 3 users
