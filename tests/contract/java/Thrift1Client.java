// A Thrift1 client built on the classes HBase generated from its own IDL
// (org.apache.hadoop.hbase.thrift.generated, in the hbase-thrift jar). It makes
// a dozen calls and prints one line per answer; tests/contract/test_java_client.py
// runs it against both servers and compares the lines. Answers that differ
// between any two HBase clusters (cell timestamps, region and cluster ids, the
// region server's host and port) are printed as their shape, not their value.
//
// Usage: java Thrift1Client HOST PORT TABLE_PREFIX

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

import org.apache.hadoop.hbase.thrift.generated.AlreadyExists;
import org.apache.hadoop.hbase.thrift.generated.BatchMutation;
import org.apache.hadoop.hbase.thrift.generated.ColumnDescriptor;
import org.apache.hadoop.hbase.thrift.generated.Hbase;
import org.apache.hadoop.hbase.thrift.generated.IOError;
import org.apache.hadoop.hbase.thrift.generated.IllegalArgument;
import org.apache.hadoop.hbase.thrift.generated.Mutation;
import org.apache.hadoop.hbase.thrift.generated.TCell;
import org.apache.hadoop.hbase.thrift.generated.TRegionInfo;
import org.apache.hadoop.hbase.thrift.generated.TRowResult;
import org.apache.hadoop.hbase.thrift.generated.TScan;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TSocket;

public class Thrift1Client {
  static final Map<ByteBuffer, ByteBuffer> NO_ATTRS = Collections.emptyMap();

  static ByteBuffer b(String s) {
    return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
  }

  static String s(ByteBuffer buf) {
    ByteBuffer d = buf.duplicate();
    byte[] out = new byte[d.remaining()];
    d.get(out);
    return new String(out, StandardCharsets.UTF_8);
  }

  static String s(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }

  static void out(String what, Object answer) {
    System.out.println(what + " = " + answer);
  }

  static String firstLine(String message) {
    return message.split("\n", 2)[0];
  }

  static String rows(List<TRowResult> results) {
    List<String> out = new ArrayList<>();
    for (TRowResult r : results) {
      TreeMap<String, String> cells = new TreeMap<>();
      for (Map.Entry<ByteBuffer, TCell> e : r.getColumns().entrySet()) {
        TCell c = e.getValue();
        cells.put(s(e.getKey()), s(c.getValue()) + (c.getTimestamp() > 0 ? "@ts" : "@?"));
      }
      out.add(s(r.getRow()) + cells);
    }
    return out.toString();
  }

  public static void main(String[] args) throws Exception {
    String prefix = args[2];
    TSocket socket = new TSocket(new TConfiguration(), args[0], Integer.parseInt(args[1]), 60000);
    socket.open();
    Hbase.Client client = new Hbase.Client(new TBinaryProtocol(socket));
    ByteBuffer table = b(prefix + "t");

    ColumnDescriptor cf = new ColumnDescriptor();
    cf.setName(b("cf:"));
    cf.setMaxVersions(2);
    client.createTable(table, Arrays.asList(cf));
    out("createTable", "ok");
    try {
      client.createTable(table, Arrays.asList(cf));
      out("createTable again", "no error");
    } catch (AlreadyExists e) {
      out("createTable again", "AlreadyExists " + e.getMessage());
    }

    TreeMap<String, Boolean> enabled = new TreeMap<>();
    for (Map.Entry<ByteBuffer, Boolean> e : client.getTableNamesWithIsTableEnabled().entrySet()) {
      if (s(e.getKey()).startsWith(prefix)) {
        enabled.put(s(e.getKey()).substring(prefix.length()), e.getValue());
      }
    }
    out("getTableNamesWithIsTableEnabled", enabled);
    out("getThriftServerType", client.getThriftServerType());
    String clusterId = client.getClusterId();
    out("getClusterId is a UUID", UUID.fromString(clusterId).toString().equals(clusterId));
    out("getClusterId is stable", client.getClusterId().equals(clusterId));

    TreeMap<String, String> families = new TreeMap<>();
    for (ColumnDescriptor d : client.getColumnDescriptors(table).values()) {
      families.put(s(d.getName()), "maxVersions=" + d.getMaxVersions() + " ttl=" + d.getTimeToLive()
          + " compression=" + d.getCompression() + " bloom=" + d.getBloomFilterType()
          + " inMemory=" + d.isInMemory() + " blockCache=" + d.isBlockCacheEnabled());
    }
    out("getColumnDescriptors", families);

    List<TRegionInfo> regions = client.getTableRegions(table);
    out("getTableRegions count", regions.size());
    TRegionInfo region = regions.get(0);
    out("getTableRegions keys", "[" + s(region.getStartKey()) + ", " + s(region.getEndKey()) + ")");
    out("getTableRegions name starts with table", s(region.getName()).startsWith(prefix + "t,,"));
    out("getTableRegions id > 0", region.getId() > 0);

    client.mutateRow(table, b("r1"),
        Arrays.asList(new Mutation(false, b("cf:a"), b("1"), true),
            new Mutation(false, b("cf:b"), b("2"), true)), NO_ATTRS);
    out("mutateRow", "ok");
    out("getRow", rows(client.getRow(table, b("r1"), NO_ATTRS)));
    out("getRow missing", rows(client.getRow(table, b("nope"), NO_ATTRS)));

    client.mutateRows(table, Arrays.asList(
        new BatchMutation(b("r2"), Arrays.asList(new Mutation(false, b("cf:a"), b("x"), true))),
        new BatchMutation(b("r3"), Arrays.asList(new Mutation(false, b("cf:a"), b("y"), true)))),
        NO_ATTRS);
    TScan scan = new TScan();
    scan.setStartRow(b("r1"));
    scan.setStopRow(b("r3"));
    scan.setColumns(Arrays.asList(b("cf:a")));
    scan.setCacheBlocks(false);
    int scanner = client.scannerOpenWithScan(table, scan, NO_ATTRS);
    out("scannerGetList", rows(client.scannerGetList(scanner, 10)));
    out("scannerGetList at end", rows(client.scannerGetList(scanner, 10)));
    client.scannerClose(scanner);
    try {
      client.scannerGetList(scanner, 10);
      out("scannerGetList closed", "no error");
    } catch (IllegalArgument e) {
      out("scannerGetList closed", "IllegalArgument " + firstLine(e.getMessage()));
    }

    out("atomicIncrement", client.atomicIncrement(table, b("c"), b("cf:n"), 5));
    out("atomicIncrement again", client.atomicIncrement(table, b("c"), b("cf:n"), 7));

    Mutation put = new Mutation(false, b("cf:a"), b("changed"), true);
    out("checkAndPut match", client.checkAndPut(table, b("r1"), b("cf:a"), b("1"), put, NO_ATTRS));
    out("checkAndPut stale", client.checkAndPut(table, b("r1"), b("cf:a"), b("1"), put, NO_ATTRS));
    out("get after checkAndPut", s(client.get(table, b("r1"), b("cf:a"), NO_ATTRS).get(0).getValue()));

    try {
      client.getRow(b(prefix + "missing"), b("r1"), NO_ATTRS);
      out("getRow missing table", "no error");
    } catch (IOError e) {
      out("getRow missing table", "IOError canRetry=" + e.isCanRetry() + " " + firstLine(e.getMessage())
          .replace(prefix, "PREFIX"));
    }
    try {
      client.mutateRow(table, b("r1"),
          Arrays.asList(new Mutation(false, b("nope:a"), b("1"), true)), NO_ATTRS);
      out("mutateRow unknown family", "no error");
    } catch (IOError e) {
      out("mutateRow unknown family", "IOError canRetry=" + e.isCanRetry() + " "
          + firstLine(e.getMessage()).split(":", 2)[0]);
    }

    client.disableTable(table);
    out("isTableEnabled after disableTable", client.isTableEnabled(table));
    client.deleteTable(table);
    boolean listed = false;
    for (ByteBuffer name : client.getTableNames()) {
      listed |= s(name).equals(prefix + "t");
    }
    out("listed after deleteTable", listed);
    socket.close();
  }
}
