"""A Java client built on the classes HBase generated from its own Thrift1 IDL
(``org.apache.hadoop.hbase.thrift.generated.Hbase.Client``, in the hbase-thrift
jar) gets the same answers from the local server as from real HBase.

``java/Thrift1Client.java`` (compiled by ``tests/contract/javaclient.py``)
prints one line per answer; answers that differ between any two HBase
clusters (cell timestamps, region and cluster ids, the region server's host
and port) are printed as their shape only."""

from __future__ import annotations

import uuid

from tests.contract.javaclient import differences, run_client
from tests.helpers import ServerAddr

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


def test_java_client_gets_hbases_answers(java_classpath: str, server: ServerAddr) -> None:
    prefix = "j" + uuid.uuid4().hex[:10] + "_"
    lines = run_client(java_classpath, "Thrift1Client", server.host, str(server.port), prefix)
    assert lines == EXPECTED, differences(EXPECTED, lines, server.kind)
