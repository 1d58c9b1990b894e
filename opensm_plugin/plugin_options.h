// plugin_options.h: the OpenSM plugin's options, from OpenSM's
// `event_plugin_options` string and, optionally, a file that string names.
//
//   event_plugin_options dump_dir=/var/lib/ibssa keep=8 log_level=info
//   event_plugin_options config=/etc/rdma/ibssa_osm.conf
//
// The string is "key=value" words separated by blanks or commas; `config=`
// names a file of "key value" / "key = value" / "key=value" lines ('#'
// starts a comment). File values come first, the string's own words
// override them. Unlike the daemons' options, anything unknown or malformed
// is an error: the plugin then refuses to load (OpenSM runs on without it)
// rather than run with a setting the administrator did not ask for.
//
// A plain value; parse on any thread.
#ifndef IBACM_SSA_OPENSM_PLUGIN_PLUGIN_OPTIONS_H
#define IBACM_SSA_OPENSM_PLUGIN_PLUGIN_OPTIONS_H

#include <string>
#include <vector>

#include "common/base/log.h"
#include "common/base/option_set.h"
#include "common/base/status.h"

namespace ssa {
namespace opensm_plugin {

struct PluginOptions {
  // Where each version goes (smdb.<epoch>, delta.<from>-<to>, latest);
  // empty: keep versions in memory only.
  std::string dump_dir;
  // The plugin's own log; "none" for OpenSM's log only.
  std::string log_file = "/var/log/ibssa_osm.log";
  bool log_file_given = false;  // an explicit log_file must open
  LogLevel log_level = LogLevel::kInfo;
  int keep = 8;              // versions kept in dump_dir; 0 = all
  int settle_ms = 200;       // quiet time after an LFT change outside a sweep
  bool write_deltas = true;  // delta.<from>-<to> beside each version
  bool dump_text = false;    // smdb.<epoch>.txt (DumpSmdb) too
  std::string config_file;   // the file read, if any (for the log)

  // The SSA tree's core (doc/ssa-tree.md), on unless core=0.
  bool core = true;
  // Data channel: where children connect ("ADDR:PORT", port 0 = any free
  // port), what to tell them when ADDR is a wildcard (announce=ADDR), and
  // the stream transport ("tcp", or "rsocket" on an RDMA fabric).
  std::string listen = "0.0.0.0:7470";
  std::string announce;
  std::string transport = "tcp";
  int lease_s = 30;              // a member's lease; it renews every third
  int fanout_core = 64;          // distribution (or access) nodes under the core
  int fanout_distribution = 64;  // access nodes under one distribution node
  int fanout_access = 1024;      // consumers under one access node
  // Port GUIDs allowed to become distribution / access nodes ("any": all,
  // with a warning at start-up), comma- or blank-separated.
  std::string allow_distribution = "any";
  std::string allow_access = "any";
  // Upstream ibacm_hosts.data format: names and IPs to GIDs, versioned and
  // sent down the tree as the address database.
  std::string hosts_file;
  // The federation of subnets (doc/federation.md): a file naming this
  // core's listen address and its peers (tree/federation_config.h); read
  // and checked when the plugin loads. Empty: no federation. Needs core=1.
  std::string federation_file;
  // The tree as JSON, rewritten as it changes (for ssa-tree --state);
  // default <dump_dir>/tree.json, "none" to turn it off.
  std::string tree_state_file;
  // The plugin's metrics (ibssa_core_*) for node_exporter's textfile
  // collector, rewritten every metrics_interval seconds by the core's
  // thread; empty: none. Needs core=1.
  std::string metrics_file;
  int metrics_interval = 15;
  // The routing engine's path SLs (SL-choosing engines: DFSSSP, LASH, Nue,
  // torus-2QoS), asked once per routing on OpenSM's state manager thread
  // (osm_route_sl.c): at most this many path_sl calls (LIDs^2 x hints),
  // and at most this many answers that differ from the hint kept by the
  // core; beyond either, those records go to the SA. 128 M calls is about
  // 11,300 LIDs with one hint, some 10 s of the state manager on a 2-core
  // machine; 16 M rows is about 400 MB at the core while a routing's rows
  // are copied. Up to route_sl_smdb_rows answers travel in the SMDB (7 MB
  // per million, to every node); more go to each access node as a
  // route-SL slice holding only the rows of the consumers it serves.
  // 0 calls: never ask (every such record goes to the SA).
  int route_sl_max_calls = 128000000;
  int route_sl_max_rows = 16000000;
  int route_sl_smdb_rows = 1000000;
  // Fault injection for tests (doc/ssa-tree.md, "Seams"): never set in
  // production; see ibssa_osm(7).
  std::string data_faults;
  std::string mad_faults;

  // "dump_dir=... keep=8 ...": every option, for the log.
  std::string Describe() const;
};

// Parses `text` (may be empty) into *out, starting from defaults. Errors
// name the word or file line and say what is wrong, with the allowed
// values and the nearest known name. With `values`, every option's value
// and where it came from ("default", "FILE:LINE", "event_plugin_options:N"
// for the Nth word), for ibssa --check-plugin-config.
Status ParsePluginOptions(const std::string& text, PluginOptions* out,
                          std::vector<OptionValue>* values = nullptr);

}  // namespace opensm_plugin
}  // namespace ssa

#endif
