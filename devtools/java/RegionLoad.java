// HBase's own per-region metrics for one table, as JSON: what each
// RegionServer last reported to the master (ClusterMetrics -> ServerMetrics
// -> RegionMetrics), so a test or benchmark can see where writes went without
// counting them itself. devtools/regions.py compiles and runs it.
//
// Usage: java RegionLoad ZK_HOST ZK_PORT TABLE
// Prints: {"regions": [{"server": "host:port", "region": "...", "start": "hex",
//          "writes": N, "reads": N, "storefile_mb": N, "memstore_mb": N}, ...]}

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
    TableName table = TableName.valueOf(args[2]);
    List<String> out = new ArrayList<>();
    try (Connection conn = ConnectionFactory.createConnection(conf);
        Admin admin = conn.getAdmin()) {
      List<RegionInfo> regions = admin.getRegions(table);
      ClusterMetrics cluster = admin.getClusterMetrics();
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
      System.out.println("{\"table_regions\": " + regions.size() + ", \"regions\": ["
          + String.join(", ", out) + "]}");
    }
  }
}
