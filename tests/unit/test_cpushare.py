"""bench.cpushare: a command's CPU, summed by the part each process plays."""

from __future__ import annotations

import sys

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
    code, wall, busy, _, by_part = cpushare.measure(
        [sys.executable, "-c", burn + "raise SystemExit(3)"]
    )
    assert code == 3
    python = by_part["other Python (manage.py commands, helpers)"]
    assert 0.5 <= python <= wall + 0.5
    assert busy >= python - 0.1
