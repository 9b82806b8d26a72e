"""A Java client built on the classes HBase generated from its own Thrift1 IDL
(``org.apache.hadoop.hbase.thrift.generated.Hbase.Client``, in the hbase-thrift
jar) gets the same answers from the local server as from real HBase.

``java/Thrift1Client.java`` is compiled here with javac against the jars Maven
fetched into ``hbase/target/lib``. It prints one line per answer; answers that
differ between any two HBase clusters (cell timestamps, region and cluster
ids, the region server's host and port) are printed as their shape only."""

from __future__ import annotations

import shutil
import subprocess
import uuid
from pathlib import Path

import pytest

from tests.helpers import REQUIRE_REAL_HBASE, ServerAddr

SOURCE = Path(__file__).with_name("java") / "Thrift1Client.java"

# What HBase 2.6.1 printed; both servers must print exactly this. PREFIX is
# the run's table prefix; "@ts" a cell timestamp above zero.
EXPECTED = """\
createTable = ok
createTable again = AlreadyExists table name already in use
getTableNamesWithIsTableEnabled = {t=true}
getThriftServerType = ONE
getClusterId is a UUID = true
getClusterId is stable = true
getColumnDescriptors = {cf:=maxVersions=2 ttl=2147483647 compression=NONE bloom=NONE \
inMemory=false blockCache=false}
getTableRegions count = 1
getTableRegions keys = [, )
getTableRegions name starts with table = true
getTableRegions id > 0 = true
mutateRow = ok
getRow = [r1{cf:a=1@ts, cf:b=2@ts}]
getRow missing = []
scannerGetList = [r1{cf:a=1@ts}, r2{cf:a=x@ts}]
scannerGetList at end = []
scannerGetList closed = IllegalArgument scanner ID is invalid
atomicIncrement = 5
atomicIncrement again = 12
checkAndPut match = true
checkAndPut stale = false
get after checkAndPut = changed
getRow missing table = IOError canRetry=false org.apache.hadoop.hbase.TableNotFoundException: \
PREFIXmissing
mutateRow unknown family = IOError canRetry=false \
org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException
isTableEnabled after disableTable = false
listed after deleteTable = false
""".splitlines()


@pytest.fixture(scope="module")
def classpath(tmp_path_factory: pytest.TempPathFactory) -> str:
    from devtools.realhbase import LIB_DIR

    if shutil.which("javac") is None or not list(LIB_DIR.glob("hbase-thrift-*.jar")):
        reason = "javac or the hbase-thrift jar is missing (python -m devtools.realhbase fetch)"
        if REQUIRE_REAL_HBASE:
            pytest.fail(reason + " (CI requires real HBase)")
        pytest.skip(reason)
    out = tmp_path_factory.mktemp("javaclient")
    subprocess.run(
        ["javac", "-d", str(out), "-cp", f"{LIB_DIR}/*", str(SOURCE)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    return f"{out}:{LIB_DIR}/*"


def _run(classpath: str, server: ServerAddr) -> list[str]:
    prefix = "j" + uuid.uuid4().hex[:10] + "_"
    done = subprocess.run(
        [
            "java",
            "-Xmx64m",
            "-cp",
            classpath,
            "Thrift1Client",
            server.host,
            str(server.port),
            prefix,
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.splitlines()


def test_java_client_gets_hbases_answers(classpath: str, server: ServerAddr) -> None:
    lines = _run(classpath, server)
    assert lines == EXPECTED, (
        "\n".join(
            f"line {i}: HBase printed {a!r}, {server.kind} printed {b!r}"
            for i, (a, b) in enumerate(zip(EXPECTED, lines, strict=False))
            if a != b
        )
        or f"{len(lines)} lines, HBase printed {len(EXPECTED)}"
    )
