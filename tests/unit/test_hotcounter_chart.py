"""bench.hotcounter --chart: a line per saved table and target."""

from __future__ import annotations

from pathlib import Path

from bench import hotcounter

BEFORE = """| target | increments so far | µs an increment | µs a get of the row |
|---|---:|---:|---:|
| local | 500 | 338 | 274 |
| local | 5,500 | 848 | 780 |
"""
AFTER = """| target | increments so far | µs an increment | µs a get of the row |
|---|---:|---:|---:|
| local | 500 | 215 | 208 |
| local | 5,500 | 256 | 183 |
| hbase | 500 | 3120 | 1436 |
| hbase | 5,500 | 783 | 823 |
"""


def test_each_table_and_target_is_a_line_in_the_key(tmp_path: Path) -> None:
    (tmp_path / "before.md").write_text(BEFORE)
    (tmp_path / "after.md").write_text(AFTER)
    svg = tmp_path / "chart.svg"
    hotcounter.main(
        [
            "--chart",
            str(tmp_path / "before.md"),
            str(tmp_path / "after.md"),
            "--names",
            "old",
            "new",
            "--svg",
            str(svg),
        ]
    )
    text = svg.read_text()
    for label in ("old", "new, local", "new, hbase"):
        assert f">{label}<" in text, label
    assert "old, local" not in text  # one target: the table's name alone
