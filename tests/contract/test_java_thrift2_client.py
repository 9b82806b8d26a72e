"""HBase's own Java client API over Thrift2 gets the same answers from the
local server as from real HBase: ``java/ThriftTableClient.java`` is ordinary
``Table`` and ``Admin`` code on the hbase-thrift jar's ``ThriftConnection``
(puts with no timestamp, increments, deletes, ``mutateRow``, a scan or get
with each common filter, refusals), and prints one line per answer."""

from __future__ import annotations

import uuid

from tests.contract.javaclient import differences, run_client
from tests.helpers import ServerAddr

# What HBase 2.6.1's thrift2 server made the client print; both servers must
# make it print exactly this (PREFIX: the run's table prefix).
EXPECTED = r"""
tableExists = true
put stamped with the server's time = true
time range to an hour from now = f:a=1 f:b=xy
later put at an explicit timestamp = f:a=newer f:b=xy
versions = f:a=newer f:a=1
increment = 7
ValueFilter long = f:n=\x00\x00\x00\x00\x00\x00\x00\x07
column delete = (none)
delete(List) = (none)
mutateRow = f:b=2
PrefixFilter = r1{f:a=newer f:b=xy}, r2{f:a=2 g:c=x}
RowFilter = r2{f:a=2 g:c=x}
FamilyFilter = r2{g:c=x}
QualifierFilter = r1{f:b=xy}, r2{g:c=x}
ValueFilter substring = r1{f:b=xy}, r2{g:c=x}
ValueFilter regex = r1{f:a=1}, r2{f:a=2}, s1{f:a=3}
SingleColumnValueFilter = r2{f:a=2 g:c=x}
SingleColumnValueExcludeFilter = r2{g:c=x}
ColumnPrefixFilter = r1{f:b=xy}
MultipleColumnPrefixFilter = r1{f:b=xy}, r2{g:c=x}
ColumnRangeFilter = r1{f:b=xy}, r2{g:c=x}
ColumnPaginationFilter = r1{f:b=xy}, r2{g:c=x}
ColumnCountGetFilter = f:a=2
PageFilter = r1{f:a=newer f:b=xy}, r2{f:a=2 g:c=x}, s1{f:a=3}
KeyOnlyFilter = r1{f:a= f:b=}, r2{f:a= g:c=}, s1{f:a=}
FirstKeyOnlyFilter = r1{f:a=newer}, r2{f:a=2}, s1{f:a=3}
InclusiveStopFilter = r1{f:a=newer f:b=xy}, r2{f:a=2 g:c=x}
WhileMatchFilter = r1{f:a=newer f:b=xy}, r2{f:a=2 g:c=x}
SkipFilter = r1{f:a=newer f:b=xy}, s1{f:a=3}
FilterList MUST_PASS_ONE = r1{f:b=xy}, s1{f:a=3}
FilterList MUST_PASS_ALL = r1{f:a=newer f:b=xy}, r2{f:a=2}
Get with a filter = f:b=xy
put unknown family = IOException
mutateRow unknown family says servers with issues = false
get on a disabled table = IOException TIOError(message:PREFIXt is disabled., canRetry:false)
tableExists after deleteTable = false
""".splitlines()[1:]


def test_hbases_java_client_over_thrift2_gets_hbases_answers(
    java_classpath: str, server: ServerAddr
) -> None:
    prefix = "j" + uuid.uuid4().hex[:10] + "_"
    lines = run_client(
        java_classpath, "ThriftTableClient", server.host, str(server.thrift2_port), prefix
    )
    assert lines == EXPECTED, differences(EXPECTED, lines, server.kind)
