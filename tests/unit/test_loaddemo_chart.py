"""bench.loaddemo_chart reads loaddemo's last lines from a table of runs and
draws each version's median."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import loaddemo_chart

TABLE = """| version | result |
|---|---|
| old (the issue's) | 7,161,739 rows in 153.5s (46,651 rows/s); every demo user's password is 'x' |
| new | 7,161,739 rows in 36.0s (199,036 rows/s); every demo user's password is 'x' |
| new | 7,161,739 rows in 35.6s (201,049 rows/s); every demo user's password is 'x' |
| new | 7,161,739 rows in 37.0s (190,000 rows/s); every demo user's password is 'x' |
"""


def test_rates_are_read_by_version() -> None:
    assert loaddemo_chart.runs(TABLE) == {"old": [46651.0], "new": [199036.0, 201049.0, 190000.0]}


def test_the_chart_shows_each_versions_median(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = tmp_path / "runs.md"
    table.write_text(TABLE)
    svg = tmp_path / "chart.svg"
    loaddemo_chart.main([str(table), "--svg", str(svg), "--goal-of", "old"])
    assert "new: 199,036 rows/s (3 runs)" in capsys.readouterr().out
    drawn = svg.read_text()
    assert "199k" in drawn and "3x old" in drawn
