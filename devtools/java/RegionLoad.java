// HBase's own per-region metrics for some tables, as JSON: what each
// RegionServer last reported to the master (ClusterMetrics -> ServerMetrics
// -> RegionMetrics), so a test or benchmark can see where writes went without
// counting them itself. devtools/regions.py compiles and runs it. One run
// reads every table asked for: a JVM and its connection cost seconds of CPU.
//
// Usage: java RegionLoad ZK_HOST ZK_PORT TABLE [TABLE...]
// Prints: {"TABLE": {"table_regions": N, "regions": [{"server": "host:port",
//          "region": "...", "start": "hex", "writes": N, "reads": N,
//          "storefile_mb": N, "memstore_mb": N}, ...]}, ...}

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.RegionMetrics;
import org.apache.hadoop.hbase.ServerMetrics;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.Size;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.util.Bytes;

public class RegionLoad {
  static String quote(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  public static void main(String[] args) throws Exception {
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.zookeeper.quorum", args[0]);
    conf.set("hbase.zookeeper.property.clientPort", args[1]);
    conf.setInt("hbase.client.retries.number", 3);
    List<String> tables = new ArrayList<>();
    try (Connection conn = ConnectionFactory.createConnection(conf);
        Admin admin = conn.getAdmin()) {
      ClusterMetrics cluster = admin.getClusterMetrics();
      for (int i = 2; i < args.length; i++) {
        tables.add(quote(args[i]) + ": " + table(admin, cluster, TableName.valueOf(args[i])));
      }
    }
    System.out.println("{" + String.join(", ", tables) + "}");
  }

  static String table(Admin admin, ClusterMetrics cluster, TableName table) throws Exception {
    List<RegionInfo> regions = admin.getRegions(table);
    List<String> out = new ArrayList<>();
    for (Map.Entry<ServerName, ServerMetrics> e : cluster.getLiveServerMetrics().entrySet()) {
      String server = e.getKey().getHostname() + ":" + e.getKey().getPort();
      for (RegionMetrics m : e.getValue().getRegionMetrics().values()) {
        RegionInfo info = null;
        for (RegionInfo r : regions) {
          if (Bytes.equals(r.getRegionName(), m.getRegionName())) {
            info = r;
          }
        }
        if (info == null) {
          continue; // another table's region
        }
        out.add("{\"server\": " + quote(server)
            + ", \"region\": " + quote(info.getEncodedName())
            + ", \"start\": " + quote(Bytes.toHex(info.getStartKey()))
            + ", \"writes\": " + m.getWriteRequestCount()
            + ", \"reads\": " + m.getReadRequestCount()
            + ", \"storefile_mb\": " + m.getStoreFileSize().get(Size.Unit.MEGABYTE)
            + ", \"memstore_mb\": " + m.getMemStoreSize().get(Size.Unit.MEGABYTE) + "}");
      }
    }
    return "{\"table_regions\": " + regions.size() + ", \"regions\": ["
        + String.join(", ", out) + "]}";
  }
}
