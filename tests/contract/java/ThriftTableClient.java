// HBase's own Java client API over Thrift2: ordinary Table and Admin code, with
// the connection HBase's hbase-thrift jar provides (ThriftConnection, chosen by
// hbase.client.connection.impl), as a Java user of HBase would run it against
// a Thrift2 server. It prints one line per answer;
// tests/contract/test_java_thrift2_client.py runs it against both servers and
// compares the lines. A put with no timestamp goes out at LATEST_TIMESTAMP, a
// filter as HBase's protobuf Filter (filterBytes): both are the server's to
// handle. Cell timestamps differ between clusters, so a line says what holds
// of them, not their value.
//
// Usage: java ThriftTableClient HOST THRIFT2_PORT TABLE_PREFIX

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.RowMutations;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.filter.BinaryComparator;
import org.apache.hadoop.hbase.filter.BinaryPrefixComparator;
import org.apache.hadoop.hbase.filter.ColumnCountGetFilter;
import org.apache.hadoop.hbase.filter.ColumnPaginationFilter;
import org.apache.hadoop.hbase.filter.ColumnPrefixFilter;
import org.apache.hadoop.hbase.filter.ColumnRangeFilter;
import org.apache.hadoop.hbase.filter.FamilyFilter;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;
import org.apache.hadoop.hbase.filter.InclusiveStopFilter;
import org.apache.hadoop.hbase.filter.KeyOnlyFilter;
import org.apache.hadoop.hbase.filter.LongComparator;
import org.apache.hadoop.hbase.filter.MultipleColumnPrefixFilter;
import org.apache.hadoop.hbase.filter.PageFilter;
import org.apache.hadoop.hbase.filter.PrefixFilter;
import org.apache.hadoop.hbase.filter.QualifierFilter;
import org.apache.hadoop.hbase.filter.RegexStringComparator;
import org.apache.hadoop.hbase.filter.RowFilter;
import org.apache.hadoop.hbase.filter.SingleColumnValueExcludeFilter;
import org.apache.hadoop.hbase.filter.SingleColumnValueFilter;
import org.apache.hadoop.hbase.filter.SkipFilter;
import org.apache.hadoop.hbase.filter.SubstringComparator;
import org.apache.hadoop.hbase.filter.ValueFilter;
import org.apache.hadoop.hbase.filter.WhileMatchFilter;
import org.apache.hadoop.hbase.util.Bytes;

public class ThriftTableClient {
  static final byte[] F = Bytes.toBytes("f");
  static final byte[] G = Bytes.toBytes("g");
  static final long HOUR_MS = 3_600_000L;

  static byte[] b(String s) {
    return Bytes.toBytes(s);
  }

  static void out(String what, Object answer) {
    System.out.println(what + " = " + answer);
  }

  static String cells(Result result) {
    List<String> parts = new ArrayList<>();
    for (Cell cell : result.rawCells()) {
      String value = Bytes.toStringBinary(CellUtil.cloneValue(cell));
      parts.add(
          Bytes.toString(CellUtil.cloneFamily(cell))
              + ":"
              + Bytes.toString(CellUtil.cloneQualifier(cell))
              + "="
              + value);
    }
    return parts.isEmpty() ? "(none)" : String.join(" ", parts);
  }

  static String scan(Table table, Scan scan) throws IOException {
    List<String> rows = new ArrayList<>();
    try (ResultScanner scanner = table.getScanner(scan)) {
      for (Result result : scanner) {
        rows.add(Bytes.toString(result.getRow()) + "{" + cells(result) + "}");
      }
    }
    return rows.isEmpty() ? "(none)" : String.join(", ", rows);
  }

  static String filtered(Table table, Filter filter) {
    try {
      return scan(table, new Scan().setFilter(filter));
    } catch (IOException e) {
      return failure(e);
    }
  }

  static String failure(Exception e) {
    String message = e.getMessage() == null ? "" : e.getMessage().split("\n", 2)[0];
    return e.getClass().getSimpleName() + " " + message;
  }

  static long stamp(Table table, byte[] row, byte[] family, byte[] qualifier) throws IOException {
    Cell cell = table.get(new Get(row).addColumn(family, qualifier)).getColumnLatestCell(family, qualifier);
    return cell == null ? -1 : cell.getTimestamp();
  }

  public static void main(String[] args) throws Exception {
    Configuration conf = HBaseConfiguration.create();
    conf.set(
        "hbase.client.connection.impl", "org.apache.hadoop.hbase.thrift2.client.ThriftConnection");
    conf.set("hbase.thrift.server.name", args[0]);
    conf.setInt("hbase.thrift.server.port", Integer.parseInt(args[1]));
    String prefix = args[2];
    TableName name = TableName.valueOf(prefix + "t");
    try (Connection connection = ConnectionFactory.createConnection(conf);
        Admin admin = connection.getAdmin()) {
      admin.createTable(
          TableDescriptorBuilder.newBuilder(name)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(F).setMaxVersions(3).build())
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(G))
              .build());
      out("tableExists", admin.tableExists(name));
      Table table = connection.getTable(name);

      // Puts with no timestamp: LATEST_TIMESTAMP on the wire, the server's time stored.
      long before = System.currentTimeMillis();
      table.put(new Put(b("r1")).addColumn(F, b("a"), b("1")).addColumn(F, b("b"), b("xy")));
      table.put(
          Arrays.asList(
              new Put(b("r2")).addColumn(F, b("a"), b("2")).addColumn(G, b("c"), b("x")),
              new Put(b("s1")).addColumn(F, b("a"), b("3"))));
      long after = System.currentTimeMillis();
      long ts = stamp(table, b("r1"), F, b("a"));
      out("put stamped with the server's time", ts >= before - 1000 && ts <= after + 1000);
      Get hour = new Get(b("r1")).setTimeRange(0, after + HOUR_MS);
      out("time range to an hour from now", cells(table.get(hour)));
      table.put(new Put(b("r1")).addColumn(F, b("a"), ts + 1, b("newer")));
      out("later put at an explicit timestamp", cells(table.get(new Get(b("r1")))));
      Get versions = new Get(b("r1")).addColumn(F, b("a")).readVersions(3);
      out("versions", cells(table.get(versions)));
      // r1's f:a keeps both versions: a filter sees the older one too.

      table.put(new Put(b("n")).addColumn(F, b("n"), Bytes.toBytes(5L)));
      Result inc = table.increment(new Increment(b("n")).addColumn(F, b("n"), 2));
      out("increment", Bytes.toLong(inc.getValue(F, b("n"))));
      // A LongComparator reads 8 bytes of the value: only a counter's here.
      Get counter =
          new Get(b("n"))
              .addColumn(F, b("n"))
              .setFilter(new ValueFilter(CompareOperator.EQUAL, new LongComparator(7L)));
      out("ValueFilter long", cells(table.get(counter)));
      Thread.sleep(5);
      table.delete(new Delete(b("n")).addColumns(F, b("n")));
      out("column delete", cells(table.get(new Get(b("n")))));

      table.put(new Put(b("d1")).addColumn(F, b("a"), b("1")));
      table.put(new Put(b("d2")).addColumn(F, b("a"), b("2")));
      Thread.sleep(5);
      table.delete(new ArrayList<>(Arrays.asList(new Delete(b("d1")), new Delete(b("d2")))));
      out("delete(List)", scan(table, new Scan().withStartRow(b("d")).withStopRow(b("e"))));

      table.put(new Put(b("m")).addColumn(F, b("a"), b("1")));
      Thread.sleep(5);
      RowMutations mutations = new RowMutations(b("m"));
      mutations.add(new Put(b("m")).addColumn(F, b("b"), b("2")));
      mutations.add(new Delete(b("m")).addColumns(F, b("a")));
      table.mutateRow(mutations);
      out("mutateRow", cells(table.get(new Get(b("m")))));
      table.delete(new Delete(b("m")));

      // Filters: sent as HBase's protobuf Filter (filterBytes).
      out("PrefixFilter", filtered(table, new PrefixFilter(b("r"))));
      out(
          "RowFilter",
          filtered(table, new RowFilter(CompareOperator.EQUAL, new BinaryComparator(b("r2")))));
      out(
          "FamilyFilter",
          filtered(table, new FamilyFilter(CompareOperator.EQUAL, new BinaryComparator(G))));
      out(
          "QualifierFilter",
          filtered(
              table, new QualifierFilter(CompareOperator.GREATER, new BinaryComparator(b("a")))));
      out(
          "ValueFilter substring",
          filtered(table, new ValueFilter(CompareOperator.EQUAL, new SubstringComparator("x"))));
      out(
          "ValueFilter regex",
          filtered(
              table, new ValueFilter(CompareOperator.EQUAL, new RegexStringComparator("^[0-9]$"))));
      SingleColumnValueFilter scvf =
          new SingleColumnValueFilter(F, b("a"), CompareOperator.EQUAL, b("2"));
      scvf.setFilterIfMissing(true);
      out("SingleColumnValueFilter", filtered(table, scvf));
      out(
          "SingleColumnValueExcludeFilter",
          filtered(
              table, new SingleColumnValueExcludeFilter(F, b("a"), CompareOperator.EQUAL, b("2"))));
      out("ColumnPrefixFilter", filtered(table, new ColumnPrefixFilter(b("b"))));
      out(
          "MultipleColumnPrefixFilter",
          filtered(table, new MultipleColumnPrefixFilter(new byte[][] {b("b"), b("c")})));
      out("ColumnRangeFilter", filtered(table, new ColumnRangeFilter(b("b"), true, b("c"), true)));
      out("ColumnPaginationFilter", filtered(table, new ColumnPaginationFilter(1, 1)));
      // A Get's filter, as its name says: in a scan over two families HBase
      // keeps r2's g:c where the local server keeps f:a (README).
      Get firstColumn = new Get(b("r2")).setFilter(new ColumnCountGetFilter(1));
      out("ColumnCountGetFilter", cells(table.get(firstColumn)));
      out("PageFilter", filtered(table, new PageFilter(1)));
      out("KeyOnlyFilter", filtered(table, new KeyOnlyFilter()));
      out("FirstKeyOnlyFilter", filtered(table, new FirstKeyOnlyFilter()));
      out("InclusiveStopFilter", filtered(table, new InclusiveStopFilter(b("r2"))));
      out(
          "WhileMatchFilter",
          filtered(
              table,
              new WhileMatchFilter(
                  new RowFilter(CompareOperator.LESS, new BinaryPrefixComparator(b("s"))))));
      out(
          "SkipFilter",
          filtered(
              table,
              new SkipFilter(
                  new ValueFilter(CompareOperator.NOT_EQUAL, new BinaryComparator(b("x"))))));
      out(
          "FilterList MUST_PASS_ONE",
          filtered(
              table,
              new FilterList(
                  FilterList.Operator.MUST_PASS_ONE,
                  new RowFilter(CompareOperator.EQUAL, new BinaryComparator(b("s1"))),
                  new ValueFilter(CompareOperator.EQUAL, new BinaryComparator(b("xy"))))));
      out(
          "FilterList MUST_PASS_ALL",
          filtered(
              table,
              new FilterList(
                  new PrefixFilter(b("r")), new FamilyFilter(CompareOperator.EQUAL, new BinaryComparator(F)))));
      Get filteredGet =
          new Get(b("r1"))
              .setFilter(new QualifierFilter(CompareOperator.EQUAL, new BinaryComparator(b("b"))));
      out("Get with a filter", cells(table.get(filteredGet)));

      // Refusals, in HBase's words.
      try {
        table.put(new Put(b("r1")).addColumn(b("nope"), b("q"), b("v")));
        out("put unknown family", "ok");
      } catch (IOException e) {
        out("put unknown family", e.getClass().getSimpleName());
      }
      RowMutations bad = new RowMutations(b("m"));
      bad.add(new Put(b("m")).addColumn(b("nope"), b("q"), b("v")));
      try {
        table.mutateRow(bad);
        out("mutateRow unknown family", "ok");
      } catch (IOException e) {
        String message = failure(e);
        out("mutateRow unknown family says servers with issues", message.contains("servers with issues"));
      }
      admin.disableTable(name);
      try {
        table.get(new Get(b("r1")));
        out("get on a disabled table", "ok");
      } catch (IOException e) {
        out("get on a disabled table", failure(e).replace(prefix, "PREFIX"));
      }
      admin.deleteTable(name);
      out("tableExists after deleteTable", admin.tableExists(name));
    }
  }
}
