// osm_plugin_util.h: helpers for the OpenSM plugin's tests and benchmark:
// the plugin's config, dumps and log in a private directory (a TempDir of
// test/support/temp_dir.h); starting a simulated fabric whose OpenSM loads
// the plugin; waiting (with a deadline) for versions in the dump
// directory; comparing versions table by table; and checking that a
// version's LFTs route every LID.
//
// Test code; single thread.
#ifndef IBACM_SSA_TEST_SIM_OSM_PLUGIN_UTIL_H
#define IBACM_SSA_TEST_SIM_OSM_PLUGIN_UTIL_H

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/base/status.h"
#include "common/smdb/smdb.h"
#include "test/sim/sim_fabric.h"

namespace ssa {
namespace test {

// Where the built plugin is (LD_LIBRARY_PATH for OpenSM).
std::string PluginLibDir();

// The plugin's files for one fabric, all inside `dir`.
struct PluginSetup {
  std::string dir;
  std::string extra_config;  // more OpenSM config lines (each ending in \n)
  std::string dump_dir() const { return dir + "/dump"; }
  std::string log_file() const { return dir + "/plugin.log"; }
  std::string config() const { return dir + "/opensm.conf"; }
  // Writes the OpenSM config (event_plugin_name ibssa_osm and these
  // event_plugin_options) and fills in opensm_args (-F) and opensm_env.
  Status Configure(const std::string& plugin_options, SimFabric::Options* o) const;
  // The default options: dumps and log here, keep every version, debug.
  std::string DefaultOptions() const;
};

// Polls dump_dir/latest until a version satisfying `pred` appears; fails at
// the deadline with what it saw last.
Status WaitForVersion(const std::string& dump_dir,
                      const std::function<bool(const smdb::Smdb&)>& pred,
                      std::chrono::milliseconds timeout, smdb::Smdb* out);

// Polls a text file until it contains `needle` (OpenSM's or the plugin's log)
// at or after byte `from` (a log another run of the same program appended
// to: what came before is not this run's).
Status WaitForLogLine(const std::string& path, const std::string& needle,
                      std::chrono::milliseconds timeout, size_t from = 0);
std::string ReadFileText(const std::string& path);

// Epochs of the smdb.<epoch> files in dump_dir, ascending.
std::vector<uint64_t> ListVersions(const std::string& dump_dir);

// One table as DumpSmdb prints it.
struct TableText {
  uint64_t epoch = 0;
  std::string records;  // the record lines
};
// Table name -> its epoch and records, from DumpSmdb.
std::map<std::string, TableText> TablesOf(const smdb::Smdb& db);

// Same records, ignoring every epoch.
bool SameRecords(const smdb::Smdb& a, const smdb::Smdb& b);

// Checks that from every CA port, following links and the switches' LFTs,
// every assigned LID (base..base + 2^lmc - 1 of CA ports and switch port 0)
// is reached at the port that owns it, and that every switch has a route
// for every such LID. *why says what failed.
bool RoutesReachEveryLid(const smdb::Smdb& db, std::string* why);

// Node record by description ("Hca4"), or nullptr.
const smdb::SmdbNode* FindNode(const smdb::Smdb& db, const std::string& description);
const smdb::SmdbPort* FindPort(const smdb::Smdb& db, uint64_t node_guid, uint8_t port);

}  // namespace test
}  // namespace ssa

#endif
