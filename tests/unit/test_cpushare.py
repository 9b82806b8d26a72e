"""bench.cpushare: a command's CPU, summed by the part each process plays."""

from __future__ import annotations

import sys
from pathlib import Path

from bench import cpushare


def test_each_process_is_counted_in_its_own_part() -> None:
    java = "/usr/bin/java -Dproc_{} -Xmx1g org.apache.hadoop.hbase.{}"
    assert cpushare.part_of(java.format("thrift2", "thrift2.ThriftServer")).endswith(
        "Thrift2 server"
    )
    assert cpushare.part_of(java.format("thrift", "thrift.ThriftServer")).endswith("Thrift1 server")
    assert cpushare.part_of(java.format("master", "master.HMaster")).startswith(
        "real HBase: HMaster"
    )
    assert cpushare.part_of("/usr/bin/java -classpath x org.apache.maven.Main") == "Maven and javac"
    assert cpushare.part_of("python -m localhbase --data d") == "local HBase servers"
    assert cpushare.part_of("sleep 60") == cpushare.OTHER


def test_a_child_that_burns_cpu_is_measured_and_its_exit_code_kept() -> None:
    burn = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.6: pass\n"
    code, _wall, busy, _, by_part = cpushare.measure(
        [sys.executable, "-c", burn + "raise SystemExit(3)"]
    )
    assert code == 3
    # At least the child's burn. No upper bound: the measure is the whole
    # machine's, and the test processes running beside this one (xdist,
    # another run) are "other Python" too.
    python = by_part["other Python (manage.py commands, helpers)"]
    assert python >= 0.5
    assert busy >= python - 0.1


def test_saved_runs_are_drawn_side_by_side(tmp_path: Path) -> None:
    for name, hbase in (("before", 230.8), ("after", 199.9)):
        (tmp_path / f"{name}.md").write_text(
            "machine: 1 CPU s busy, 0 idle\n\n| part | CPU s | of busy |\n|---|---:|---:|\n"
            f"| real HBase: HMaster | {hbase} | 19% |\n| Redis | 2.9 | 0% |\n"
        )
    svg = tmp_path / "chart.svg"
    cpushare.main(
        ["--svg", str(svg), "--table", str(tmp_path / "before.md"), str(tmp_path / "after.md")]
    )
    drawn = svg.read_text()
    assert "before" in drawn and "after" in drawn
    cpushare.main(
        [
            "--svg",
            str(svg),
            "--table",
            str(tmp_path / "before.md"),
            str(tmp_path / "after.md"),
            "--names",
            "at 76b0be7",
            "at 3e9fcef",
        ]
    )
    drawn = svg.read_text()
    assert "76b0be7" in drawn and "3e9fcef" in drawn and "before" not in drawn
