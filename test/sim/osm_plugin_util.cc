// osm_plugin_util.cc: helpers for the OpenSM plugin's tests (see
// osm_plugin_util.h).
#include "test/sim/osm_plugin_util.h"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "common/smdb/smdb_dump.h"

namespace ssa {
namespace test {
namespace {

using Clock = std::chrono::steady_clock;
// Poll period of the waits below: a version appears within milliseconds of
// SUBNET UP on small fabrics, so this is the granularity, not a delay.
constexpr auto kPoll = std::chrono::milliseconds(20);

std::string Description(const smdb::SmdbNode& n) {
  return std::string(n.description.data(), strnlen(n.description.data(), n.description.size()));
}

}  // namespace

std::string PluginLibDir() { return std::string(ABS_TOP_BUILDDIR) + "/opensm_plugin/.libs"; }

std::string PluginSetup::DefaultOptions() const {
  return "dump_dir=" + dump_dir() + " keep=0 log_file=" + log_file() + " log_level=debug";
}

Status PluginSetup::Configure(const std::string& plugin_options, SimFabric::Options* o) const {
  if (dir.empty()) return Status::Error(EINVAL, "no directory for the plugin's files");
  std::ofstream f(config());
  f << "event_plugin_name ibssa_osm\n"
    << "event_plugin_options " << plugin_options << "\n"
    << extra_config;
  f.close();
  if (!f) return Status::Error(EIO, "cannot write " + config());
  o->opensm_args.insert(o->opensm_args.end(), {"-F", config()});
  o->opensm_env["LD_LIBRARY_PATH"] = PluginLibDir();
  // A sanitizer-built plugin needs the runtimes in the uninstrumented OpenSM.
  std::string runtimes = SanitizerRuntimePreload();
  if (!runtimes.empty()) o->opensm_env["LD_PRELOAD"] = runtimes;
  return Status::Ok();
}

Status WaitForVersion(const std::string& dump_dir,
                      const std::function<bool(const smdb::Smdb&)>& pred,
                      std::chrono::milliseconds timeout, smdb::Smdb* out) {
  auto deadline = Clock::now() + timeout;
  std::string last = "no version yet";
  for (;;) {
    smdb::Smdb db;
    std::string latest = dump_dir + "/latest";
    if (access(latest.c_str(), F_OK) == 0) {
      Status st = smdb::Smdb::ReadFile(latest, &db);
      if (!st.ok()) return st;  // the plugin writes atomically: never half a file
      if (pred(db)) {
        *out = std::move(db);
        return Status::Ok();
      }
      last = "latest is epoch " + std::to_string(db.global_epoch);
    }
    if (Clock::now() >= deadline)
      return Status::Error(ETIMEDOUT, "no matching version in " + dump_dir + " after " +
                                          std::to_string(timeout.count()) + " ms (" + last + ")");
    std::this_thread::sleep_for(kPoll);
  }
}

std::string ReadFileText(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

Status WaitForLogLine(const std::string& path, const std::string& needle,
                      std::chrono::milliseconds timeout, size_t from) {
  auto deadline = Clock::now() + timeout;
  for (;;) {
    std::string text = ReadFileText(path);
    if (text.size() > from && text.find(needle, from) != std::string::npos) return Status::Ok();
    if (Clock::now() >= deadline)
      return Status::Error(ETIMEDOUT, "'" + needle + "' not in " + path + " after " +
                                          std::to_string(timeout.count()) + " ms");
    std::this_thread::sleep_for(kPoll);
  }
}

std::vector<uint64_t> ListVersions(const std::string& dump_dir) {
  std::vector<uint64_t> epochs;
  DIR* d = opendir(dump_dir.c_str());
  if (!d) return epochs;
  while (struct dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name.compare(0, 5, "smdb.") != 0 || name.size() == 5) continue;
    std::string rest = name.substr(5);
    if (rest.find_first_not_of("0123456789") != std::string::npos) continue;
    epochs.push_back(strtoull(rest.c_str(), nullptr, 10));
  }
  closedir(d);
  std::sort(epochs.begin(), epochs.end());
  return epochs;
}

std::map<std::string, TableText> TablesOf(const smdb::Smdb& db) {
  std::map<std::string, TableText> tables;
  std::istringstream in(smdb::DumpSmdb(db));
  std::string line;
  TableText* cur = nullptr;
  while (std::getline(in, line)) {
    if (line.compare(0, 6, "table ") == 0) {
      // "table nodes id=3 epoch=5 records=2"
      std::istringstream words(line.substr(6));
      std::string name, word;
      words >> name;
      cur = &tables[name];
      while (words >> word)
        if (word.compare(0, 6, "epoch=") == 0) cur->epoch = strtoull(word.c_str() + 6, nullptr, 10);
    } else if (cur) {
      cur->records += line + "\n";
    }
  }
  return tables;
}

bool SameRecords(const smdb::Smdb& a, const smdb::Smdb& b) {
  auto ta = TablesOf(a), tb = TablesOf(b);
  if (ta.size() != tb.size()) return false;
  for (const auto& kv : ta)
    if (!tb.count(kv.first) || tb[kv.first].records != kv.second.records) return false;
  return true;
}

const smdb::SmdbNode* FindNode(const smdb::Smdb& db, const std::string& description) {
  for (const auto& n : db.nodes.records)
    if (Description(n) == description) return &n;
  return nullptr;
}

const smdb::SmdbPort* FindPort(const smdb::Smdb& db, uint64_t node_guid, uint8_t port) {
  for (const auto& p : db.ports.records)
    if (p.node_guid == node_guid && p.port_num == port) return &p;
  return nullptr;
}

bool RoutesReachEveryLid(const smdb::Smdb& db, std::string* why) {
  using Port = std::pair<uint64_t, uint8_t>;
  std::map<uint64_t, uint8_t> type;
  for (const auto& n : db.nodes.records) type[n.node_guid] = n.node_type;
  std::map<Port, Port> peer;
  for (const auto& l : db.links.records)
    peer[{l.node_guid, l.port_num}] = {l.peer_node_guid, l.peer_port_num};
  std::map<std::pair<uint64_t, uint16_t>, const smdb::SmdbLftBlock*> lft;
  for (const auto& b : db.lft_blocks.records) lft[{b.node_guid, b.block}] = &b;
  // Owner of every assigned LID; CA ports are the sources of the walks.
  std::map<uint16_t, Port> owner;
  std::vector<Port> sources;
  for (const auto& p : db.ports.records) {
    bool sw = type[p.node_guid] == smdb::kNodeSwitch;
    if (p.base_lid == 0 || (sw && p.port_num != 0)) continue;
    for (uint32_t k = 0; k < (1u << p.lmc); ++k)
      owner[static_cast<uint16_t>(p.base_lid + k)] = {p.node_guid, p.port_num};
    if (!sw && p.port_state == smdb::kPortActive) sources.push_back({p.node_guid, p.port_num});
  }
  auto route = [&](uint64_t sw, uint16_t lid) -> int {
    auto it = lft.find({sw, static_cast<uint16_t>(lid / smdb::kLftBlockSize)});
    return it == lft.end() ? smdb::kLftNoPath : it->second->ports[lid % smdb::kLftBlockSize];
  };
  char buf[200];
  for (const auto& sw : type) {
    if (sw.second != smdb::kNodeSwitch) continue;
    for (const auto& o : owner) {
      if (route(sw.first, o.first) == smdb::kLftNoPath) {
        snprintf(buf, sizeof(buf), "switch 0x%016llx has no route to LID %u",
                 static_cast<unsigned long long>(sw.first), o.first);
        *why = buf;
        return false;
      }
    }
  }
  for (const Port& src : sources) {
    for (const auto& o : owner) {
      Port cur = src;
      bool reached = cur == o.second;
      for (int hop = 0; hop < 64 && !reached; ++hop) {
        auto p = peer.find(cur);
        if (p == peer.end()) break;
        Port in = p->second;
        if (in == o.second) {
          reached = true;
          break;
        }
        if (type[in.first] != smdb::kNodeSwitch) break;
        int out = route(in.first, o.first);
        if (out == 0) {
          reached = o.second == Port{in.first, 0};
          break;
        }
        if (out == smdb::kLftNoPath) break;
        cur = {in.first, static_cast<uint8_t>(out)};
      }
      if (!reached) {
        snprintf(buf, sizeof(buf), "LID %u not reached from node 0x%016llx port %u", o.first,
                 static_cast<unsigned long long>(src.first), src.second);
        *why = buf;
        return false;
      }
    }
  }
  if (sources.empty()) {
    *why = "no active CA port";
    return false;
  }
  return true;
}

}  // namespace test
}  // namespace ssa
