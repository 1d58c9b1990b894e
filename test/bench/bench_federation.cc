// bench_federation: a federation of three subnets (doc/federation.md,
// issue 48 step 3) on one machine. Subnets A, B and C each announce N
// HCAs (a name, an IPv4 and an IPv6 address each, their GIDs under the
// subnet's prefix) from a hosts file; their cores are three
// tree::Federation objects, each on its own loop, every pair linked over
// loopback TCP with its own key, each merging its peers' entries into its
// address database with the plugin's AddressBook. Subnet A also runs its
// SSA tree as bench_tree does (tree_bench.h: the core, distribution and
// access nodes in this process, the consumers in child processes, on the
// N-HCA fat tree's SMDB), so A's consumers hold A's address database with
// B's and C's entries in it. B's and C's trees are not run: what the
// measurement needs of them is their cores' end of the links.
//
// Measured, printed as `name = value` lines:
//   - bytes on the link: B's federation server's bytes sent for one node
//     leaving B's hosts file (each of its two links carries the same
//     frames, so per link = sent / 2), against the link's bytes for B's
//     whole set at the start and the whole set's serialization;
//   - latency: from B's core re-reading its hosts file (AddressBook
//     Refresh, then Federation::PublishLocal, as the plugin's core does)
//     to every consumer of A with the address database holding A's new
//     epoch (each consumer reports the moment it holds it), p50/p99 over
//     --rounds rounds, one node leaving B each round; also B's own part
//     (the re-read and the new version), to A's core publishing it, and
//     each consumer's own latency pooled over rounds;
//   - PRDB size: a consumer's PRDB on A's SMDB as it is (one subnet)
//     against the same SMDB with a router and prefix routes to B's and
//     C's prefixes (what a federated subnet's OpenSM has): the
//     serialization (what the access node sends and the consumer maps)
//     and the parsed records, for --prdb-sample consumers spread over the
//     fabric, built alternately (single, federated, ...). Sizes are
//     deterministic; the medians are over consumers;
//   - what a consumer of A holds of the address database (A's, B's and
//     C's entries): entries, serialization, parsed records.
//
// A consumer holding a 3 x N-entry address database takes 144 bytes an
// HCA (4.3 MB at N = 10,000), so only the first --addr-consumers
// consumers hold it (default: all up to 200); the others hold only their
// PRDB, as in bench_tree.
//
//   make bench && test/bench/bench_federation [--hcas N] [--consumers N]
//       [--addr-consumers N] [--rounds N] [--prdb-sample N] [--timeout S]
//       [--regen] [--log-level L]
//
// Default --hcas 200 (a smoke run of seconds once the SMDB is cached);
// the measurement of issue 48 is --hcas 10000.
#include <arpa/inet.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/base/daemon_util.h"
#include "common/base/log.h"
#include "common/smdb/addr_db.h"
#include "common/smdb/path_engine.h"
#include "common/smdb/prefix_rows.h"
#include "common/smdb/smdb.h"
#include "common/smdb/smdb_index.h"
#include "common/smdb/smdb_prdb.h"
#include "common/smdb/whole_prdb.h"
#include "common/tree/federation.h"
#include "common/tree/federation_config.h"
#include "opensm_plugin/address_book.h"
#include "test/bench/smdb_pair_cache.h"
#include "test/bench/tree_bench.h"
#include "test/bench/tree_bench_util.h"
#include "test/support/loopback.h"

using ssa::Status;
using namespace ssa::bench;
namespace smdb = ssa::smdb;
namespace tree = ssa::tree;
using ssa::opensm_plugin::AddressBook;
using ssa::opensm_plugin::AddressVersion;

namespace {

constexpr int kSubnets = 3;
constexpr uint64_t kPrefix[kSubnets] = {0xfec0000000000001ULL, 0xfec0000000000002ULL,
                                        0xfec0000000000003ULL};
const char* const kName[kSubnets] = {"a", "b", "c"};

struct Options {
  BenchOptions tree;
  int addr_consumers = 200;
  int rounds = 20;
  int prdb_sample = 200;
};

void Usage(const char* argv0) {
  fprintf(stderr,
          "usage: %s [--hcas N] [--consumers N] [--addr-consumers N] [--rounds N]\n"
          "          [--prdb-sample N] [--timeout S] [--regen] [--log-level L]\n",
          argv0);
}

bool ParseArgs(int argc, char** argv, Options* o) {
  o->tree.pair.hcas = 200;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--regen") {
      o->tree.pair.regen = true;
      continue;
    }
    if (i + 1 >= argc) return false;
    std::string v = argv[++i];
    long n = strtol(v.c_str(), nullptr, 0);
    if (a == "--hcas" && n >= 16 && n <= 40000)
      o->tree.pair.hcas = static_cast<int>(n);
    else if (a == "--consumers" && n >= 1)
      o->tree.consumers = static_cast<int>(n);
    else if (a == "--addr-consumers" && n >= 1)
      o->addr_consumers = static_cast<int>(n);
    else if (a == "--rounds" && n >= 5 && n <= 1000)
      o->rounds = static_cast<int>(n);
    else if (a == "--prdb-sample" && n >= 1)
      o->prdb_sample = static_cast<int>(n);
    else if (a == "--timeout" && atof(v.c_str()) > 0)
      o->tree.timeout_s = atof(v.c_str());
    else if (a == "--log-level" && ssa::ParseLogLevel(v, &o->tree.log_level))
      continue;
    else
      return false;
  }
  return true;
}

std::string GidText(uint64_t prefix, uint64_t guid) {
  uint8_t g[16];
  for (int i = 0; i < 8; ++i) {
    g[i] = static_cast<uint8_t>(prefix >> (56 - 8 * i));
    g[8 + i] = static_cast<uint8_t>(guid >> (56 - 8 * i));
  }
  char text[INET6_ADDRSTRLEN];
  inet_ntop(AF_INET6, g, text, sizeof(text));
  return text;
}

// Subnet s's hosts file: HCA i (1-based) is NAME-nodeI, 10.S.I/256.I%256
// and fd00:S::I, at GUID S << 40 | I; those in `gone` have left.
std::string HostsText(int s, int hcas, const std::set<int>& gone) {
  std::string out;
  char line[256];
  for (int i = 1; i <= hcas; ++i) {
    if (gone.count(i)) continue;
    std::string gid = GidText(kPrefix[s], static_cast<uint64_t>(s + 1) << 40 | i);
    snprintf(line, sizeof(line), "%s-node%05d %s\n10.%d.%d.%d %s\nfd00:%x::%x %s\n", kName[s], i,
             gid.c_str(), s + 1, i >> 8, i & 255, gid.c_str(), s + 1, i, gid.c_str());
    out += line;
  }
  return out;
}

Status WriteFile(const std::string& path, const std::string& text, mode_t mode) {
  {
    std::ofstream f(path, std::ios::trunc);
    f << text;
    if (!f.good()) return Status::Error(EIO, "cannot write " + path);
  }
  if (chmod(path.c_str(), mode) != 0) return Status::Error(errno, "chmod " + path);
  return Status::Ok();
}

// One subnet's core as far as the federation goes: its address book (the
// hosts file and the peers' entries merged) and its end of the links.
struct Core {
  int s = 0;
  std::string hosts_path;
  std::set<int> gone;
  std::unique_ptr<AddressBook> book;
  tree::FederationConfig config;
  LoopThread loop;
  std::unique_ptr<tree::StreamTransport> streams;
  std::unique_ptr<tree::Federation> fed;
  // Written on the loop: A's address epoch (with the peers' entries) and
  // when the core published it.
  std::atomic<uint64_t> epoch{0};
  std::atomic<int64_t> published_ns{0};
  tree::Bytes served;  // the last version's serialization (loop; read once it is stopped)
};

double Percentile(std::vector<double> v, double q) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  size_t k = static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(k, v.size() - 1)];
}
std::string Spread(const std::vector<double>& v, int decimals) {
  return Num(Percentile(v, 0.5), decimals) + " (" + Num(Percentile(v, 0), decimals) + "-" +
         Num(Percentile(v, 1), decimals) + ")";
}

// Ratios as "P % more (MIN-MAX)", P their median.
std::string PercentMore(const std::vector<double>& ratios) {
  auto more = [&](double q) { return Num((Percentile(ratios, q) - 1) * 100, 4); };
  return more(0.5) + " % more (" + more(0) + "-" + more(1) + ")";
}

// A consumer's PRDB on `db` and on the same with one router port and
// prefix routes to B and C: serialized bytes and parsed record bytes, per
// consumer of a sample, built alternately.
struct PrdbSizes {
  std::vector<double> wire[2], mem[2], ratio_wire, ratio_mem;
  size_t prefix_rows = 0;
  uint64_t router_guid = 0;
};

Status MeasurePrdb(const smdb::Smdb& db, int sample, PrdbSizes* out) {
  smdb::Smdb fed = db;
  std::unique_ptr<smdb::SmdbIndex> x[2];
  Status st = smdb::SmdbIndex::Build(db, &x[0]);
  if (!st.ok()) return st;
  // The router: the CA port with the highest LID becomes a router's port.
  uint64_t router_node = 0;
  uint16_t best = 0;
  for (uint32_t e : x[0]->endpoints()) {
    const auto& p = x[0]->port(e);
    if (x[0]->node_of(p).type == smdb::kNodeCa && p.base_lid > best &&
        p.port_guid != db.subnet.records[0].sm_port_guid) {
      best = p.base_lid;
      out->router_guid = p.port_guid;
    }
  }
  for (const auto& p : db.ports.records)
    if (p.port_guid == out->router_guid) router_node = p.node_guid;
  for (auto& n : fed.nodes.records)
    if (n.node_guid == router_node) n.node_type = smdb::kNodeRouter;
  for (uint32_t seq = 1; seq <= 2; ++seq) {
    smdb::SmdbPrefixRoute r;
    r.seq = seq;
    r.prefix = kPrefix[seq];
    r.router_port_guid = out->router_guid;
    fed.prefix_routes.records.push_back(r);
  }
  st = smdb::SmdbIndex::Build(fed, &x[1]);
  if (!st.ok()) return st;
  smdb::PathEngine engine0(x[0].get(), smdb::PathEngineOptions::ForPrdb());
  smdb::PathEngine engine1(x[1].get(), smdb::PathEngineOptions::ForPrdb());
  const smdb::PathEngine* engines[2] = {&engine0, &engine1};
  std::vector<uint64_t> ports =
      SpreadConsumers(*x[0], db.subnet.records[0].sm_port_guid, static_cast<size_t>(sample));
  for (uint64_t guid : ports) {
    if (guid == out->router_guid) continue;
    double wire[2], mem[2];
    for (int k = 0; k < 2; ++k) {
      smdb::Prdb p;
      st = smdb::BuildPrdb(*engines[k], guid, db.global_epoch, &p);
      if (!st.ok()) return st;
      std::string bytes;
      st = p.Serialize(&bytes);
      if (!st.ok()) return st;
      wire[k] = static_cast<double>(bytes.size());
      mem[k] = static_cast<double>(sizeof(smdb::Prdb) +
                                   p.source.records.size() * sizeof(smdb::PrdbSource) +
                                   p.paths.records.size() * sizeof(smdb::PrdbPath));
      out->wire[k].push_back(wire[k]);
      out->mem[k].push_back(mem[k]);
      if (k == 1 && out->prefix_rows == 0)
        for (const auto& r : p.paths.records) out->prefix_rows += smdb::IsPrefixRow(r) ? 1 : 0;
    }
    out->ratio_wire.push_back(wire[1] / wire[0]);
    out->ratio_mem.push_back(mem[1] / mem[0]);
  }
  return Status::Ok();
}

class FederationBench {
 public:
  explicit FederationBench(const Options& o) : opt_(o), tree_(o.tree) {}
  ~FederationBench() { Close(); }

  Status Run(const SmdbPair& pair, int consumers, int access, int distribution);

 private:
  Status Prepare();
  Status StartLinks();
  void Changed(Core* c);
  // Waits until every address consumer holds epoch >= `epoch`; the
  // latest time one got it, in ns.
  Status WaitConsumers(uint64_t epoch, int64_t* last_ns);
  Status WaitFor(const char* what, const std::function<bool()>& done);
  uint64_t SentByB();
  void Close();

  Options opt_;
  ssa::Logger log_;  // the cores' (the tree has its own)
  Bench tree_;
  std::string dir_;
  Core cores_[kSubnets];
  int addr_consumers_ = 0;
  std::vector<std::atomic<uint64_t>> addr_epoch_;
  std::vector<std::atomic<int64_t>> addr_ns_;
};

Status FederationBench::Prepare() {
  Status st = log_.Open("stderr", "bench_federation");
  if (!st.ok()) return st;
  log_.set_level(opt_.tree.log_level);
  char tmpl[] = "/tmp/bench_federation.XXXXXX";
  if (!mkdtemp(tmpl)) return Status::Error(errno, "mkdtemp");
  dir_ = tmpl;
  // A key per pair (32 random bytes, as `openssl rand -hex 32`).
  std::random_device rd;
  std::string key_path[kSubnets][kSubnets];
  for (int i = 0; i < kSubnets; ++i)
    for (int j = i + 1; j < kSubnets; ++j) {
      char hex[65];
      for (int k = 0; k < 32; ++k) snprintf(hex + 2 * k, 3, "%02x", rd() & 0xff);
      key_path[i][j] = key_path[j][i] = dir_ + "/" + kName[i] + kName[j] + ".key";
      st = WriteFile(key_path[i][j], std::string(hex) + "\n", 0600);
      if (!st.ok()) return st;
    }
  int port[kSubnets];
  for (int s = 0; s < kSubnets; ++s) {
    port[s] = ssa::test::FreeLoopbackPort();
    if (port[s] <= 0) return Status::Error(EADDRINUSE, "no free loopback port");
  }
  for (int s = 0; s < kSubnets; ++s) {
    Core& c = cores_[s];
    c.s = s;
    std::string text = "listen 127.0.0.1:" + std::to_string(port[s]) + "\n";
    for (int p = 0; p < kSubnets; ++p) {
      if (p == s) continue;
      char prefix[32];
      snprintf(prefix, sizeof(prefix), "0x%016" PRIx64, kPrefix[p]);
      text += std::string("peer ") + kName[p] + " 127.0.0.1:" + std::to_string(port[p]) + " " +
              prefix + " " + key_path[s][p] + "\n";
    }
    std::string conf = dir_ + "/" + kName[s] + ".conf";
    st = tree::ParseFederationText(text, conf, &c.config);
    if (!st.ok()) return st;
    c.hosts_path = dir_ + "/" + kName[s] + ".hosts";
    st = WriteFile(c.hosts_path, HostsText(s, opt_.tree.pair.hcas, c.gone), 0644);
    if (!st.ok()) return st;
    c.book = std::make_unique<AddressBook>(c.hosts_path, "", &log_, true);
  }
  return Status::Ok();
}

void FederationBench::Changed(Core* c) {
  smdb::AddrDb remote;
  c->fed->Remote(&remote);
  AddressVersion v;
  bool changed = false;
  Status st = c->book->SetRemote(remote, &v, &changed);
  if (!st.ok() || !changed) return;
  if (c->s == 0) {
    c->published_ns = NowNs();
    tree_.PublishAddr(v.version, v.delta, v.delta_from);
  }
  c->served = v.version.bytes;
  c->epoch = v.version.epoch;
}

Status FederationBench::StartLinks() {
  for (Core& c : cores_) {
    Status st = c.loop.Start(std::string("fed-") + kName[c.s]);
    if (!st.ok()) return st;
    st = RunOn(&c.loop.loop, [this, &c]() -> Status {
      c.streams = tree::NewTcpTransport();
      c.fed = std::make_unique<tree::Federation>(&c.loop.loop, c.streams.get(), &log_, c.config,
                                                 kPrefix[c.s], [this, &c] { Changed(&c); });
      c.fed->PublishLocal(c.book->local());
      return c.fed->Start();
    });
    if (!st.ok()) return st.WithContext(std::string("core ") + kName[c.s]);
  }
  return Status::Ok();
}

Status FederationBench::WaitFor(const char* what, const std::function<bool()>& done) {
  auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(opt_.tree.timeout_s));
  while (!done()) {
    if (Clock::now() > deadline) return Status::Error(ETIMEDOUT, std::string("timeout: ") + what);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return Status::Ok();
}

Status FederationBench::WaitConsumers(uint64_t epoch, int64_t* last_ns) {
  Status st = WaitFor("address consumers", [&] {
    for (int i = 0; i < addr_consumers_; ++i)
      if (addr_epoch_[i].load() < epoch) return false;
    return true;
  });
  *last_ns = 0;
  for (int i = 0; i < addr_consumers_; ++i) *last_ns = std::max(*last_ns, addr_ns_[i].load());
  return st;
}

uint64_t FederationBench::SentByB() {
  return RunOn(&cores_[1].loop.loop,
               [this] { return cores_[1].fed->server()->counters().bytes_sent; });
}

Status FederationBench::Run(const SmdbPair& pair, int consumers, int access, int distribution) {
  Status st = Prepare();
  if (!st.ok()) return st;
  // A's first address version (its hosts file alone) is what its tree
  // starts with; each core reads its file before the links start.
  AddressVersion v[kSubnets];
  for (int s = 0; s < kSubnets; ++s) {
    bool changed = false;
    st = cores_[s].book->Refresh(&v[s], &changed);
    if (!st.ok()) return st;
    cores_[s].epoch = v[s].version.epoch;
  }
  addr_consumers_ = std::min(opt_.addr_consumers, consumers);
  addr_epoch_ = std::vector<std::atomic<uint64_t>>(static_cast<size_t>(addr_consumers_));
  addr_ns_ = std::vector<std::atomic<int64_t>>(static_cast<size_t>(addr_consumers_));
  tree_.on_addr = [this](size_t i, uint64_t e, int64_t ns) {
    if (i >= addr_epoch_.size() || e <= addr_epoch_[i].load()) return;
    addr_ns_[i] = ns;
    addr_epoch_[i] = e;
  };
  tree_.SetInitialAddr(v[0].version);
  st = tree_.Setup(pair, consumers, access, distribution);
  if (!st.ok()) return st.WithContext("A's tree");
  Phase startup;
  st = tree_.RunStartup(&startup);
  if (!st.ok() || !startup.done)
    return Status::Error(EIO, "A's tree did not start: " + startup.stopped_why);
  Progress("A's tree: %d consumers hold their PRDB (%.2f s)", startup.reached, startup.all_s);

  // The links: each core takes its two peers' whole sets.
  auto t_links = Clock::now();
  st = StartLinks();
  if (!st.ok()) return st;
  const size_t per_subnet = 3 * static_cast<size_t>(opt_.tree.pair.hcas);
  st = WaitFor("the peers' whole sets", [&] {
    for (Core& c : cores_) {
      auto stats = RunOn(&c.loop.loop, [&c] { return c.fed->Stats(); });
      for (const auto& p : stats)
        if (!p.up || p.names + p.ips != per_subnet) return false;
    }
    return true;
  });
  if (!st.ok()) return st;
  int64_t last = 0;
  st = WaitConsumers(cores_[0].epoch.load(), &last);
  if (!st.ok()) return st;
  Progress("links up, whole sets taken, A's %d address consumers hold epoch %" PRIu64 " in %.2f s",
           addr_consumers_, cores_[0].epoch.load(), Since(t_links));
  uint64_t full_link = SentByB() / (kSubnets - 1);
  std::string full_ser;
  st = cores_[1].book->local().Serialize(&full_ser);
  if (!st.ok()) return st;

  // The rounds: one node leaves B each time.
  std::vector<double> delta_link, b_ms, to_core_ms, all_ms, each_ms;
  for (int r = 0; r < opt_.rounds; ++r) {
    Core& b = cores_[1];
    b.gone.insert(1 + r * 7 % opt_.tree.pair.hcas);
    st = WriteFile(b.hosts_path, HostsText(1, opt_.tree.pair.hcas, b.gone), 0644);
    if (!st.ok()) return st;
    const uint64_t a_before = cores_[0].epoch.load(), c_before = cores_[2].epoch.load();
    const uint64_t sent_before = SentByB();
    int64_t b_done = 0;
    const int64_t t0 = RunOn(&b.loop.loop, [&b, &b_done]() -> int64_t {
      int64_t t = NowNs();
      AddressVersion bv;
      bool changed = false;
      if (b.book->Refresh(&bv, &changed).ok() && changed) b.fed->PublishLocal(b.book->local());
      b_done = NowNs();
      return t;
    });
    b_ms.push_back(static_cast<double>(b_done - t0) / 1e6);
    st = WaitFor("A's and C's cores", [&] {
      return cores_[0].epoch.load() > a_before && cores_[2].epoch.load() > c_before;
    });
    if (st.ok()) st = WaitConsumers(cores_[0].epoch.load(), &last);
    if (!st.ok()) return st.WithContext("round " + std::to_string(r + 1));
    delta_link.push_back(static_cast<double>(SentByB() - sent_before) / (kSubnets - 1));
    to_core_ms.push_back(static_cast<double>(cores_[0].published_ns.load() - t0) / 1e6);
    all_ms.push_back(static_cast<double>(last - t0) / 1e6);
    for (int i = 0; i < addr_consumers_; ++i)
      each_ms.push_back(static_cast<double>(addr_ns_[i].load() - t0) / 1e6);
  }
  tree_.Shutdown();
  Close();
  // What each consumer of A holds: A's address database with B's and C's
  // entries, serialized and parsed.
  if (!cores_[0].served) return Status::Error(EIO, "A's core served no address database");
  smdb::AddrDb held;
  const std::string& served = *cores_[0].served;
  st = smdb::AddrDb::Parse(reinterpret_cast<const uint8_t*>(served.data()), served.size(), &held);
  if (!st.ok()) return st.WithContext("A's address database");

  Figure("hcas_per_subnet", static_cast<uint64_t>(opt_.tree.pair.hcas));
  Figure("entries_per_subnet", static_cast<uint64_t>(per_subnet));
  Figure("a_consumers", static_cast<uint64_t>(consumers));
  Figure("a_addr_consumers", static_cast<uint64_t>(addr_consumers_));
  Figure("rounds", static_cast<uint64_t>(opt_.rounds));
  Figure("b_full_set_serialized_bytes", static_cast<uint64_t>(full_ser.size()));
  Figure("b_full_set_link_bytes", full_link);
  Figure("b_node_leaves_link_bytes", Spread(delta_link, 0));
  Figure("b_node_leaves_link_over_full",
         Num(Percentile(delta_link, 0.5) / static_cast<double>(full_link) * 100, 4) + " %");
  Figure("a_addr_db_entries",
         static_cast<uint64_t>(held.names.records.size() + held.ips.records.size()));
  Figure("a_addr_db_wire_bytes", static_cast<uint64_t>(served.size()));
  Figure("a_addr_db_mem_bytes",
         static_cast<uint64_t>(held.names.records.size() * sizeof(smdb::AddrName) +
                               held.ips.records.size() * sizeof(smdb::AddrIp)));
  Figure("b_reread_and_publish_ms_p50_p99",
         Num(Percentile(b_ms, 0.5), 2) + " / " + Num(Percentile(b_ms, 0.99), 2));
  Figure("b_change_to_a_core_ms_p50_p99",
         Num(Percentile(to_core_ms, 0.5), 2) + " / " + Num(Percentile(to_core_ms, 0.99), 2));
  Figure("b_change_to_all_a_consumers_ms_p50_p99",
         Num(Percentile(all_ms, 0.5), 2) + " / " + Num(Percentile(all_ms, 0.99), 2));
  Figure("b_change_to_each_a_consumer_ms_p50_p99",
         Num(Percentile(each_ms, 0.5), 2) + " / " + Num(Percentile(each_ms, 0.99), 2));
  return Status::Ok();
}

void FederationBench::Close() {
  for (Core& c : cores_) {
    if (c.fed) RunOn(&c.loop.loop, [&c] { c.fed->Close(); });
    c.loop.Stop();
    c.fed.reset();
    c.streams.reset();
  }
  if (!dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
    dir_.clear();
  }
}

}  // namespace

int main(int argc, char** argv) {
  ssa::TuneAllocatorForDatabases();
  setvbuf(stdout, nullptr, _IOLBF, 0);
  Options opt;
  if (!ParseArgs(argc, argv, &opt)) {
    Usage(argv[0]);
    return 2;
  }
  SmdbPair pair;
  Status st = GetSmdbPair(
      opt.tree.pair, [](const std::string& line) { Progress("%s", line.c_str()); }, &pair);
  if (!st.ok()) {
    fprintf(stderr, "bench_federation: SMDB: %s\n", st.ToString().c_str());
    return 1;
  }
  Progress("SMDB of A: %s", pair.source.c_str());

  // The PRDB first: nothing else runs, and its memory is gone before the tree.
  PrdbSizes sizes;
  st = MeasurePrdb(pair.before, opt.prdb_sample, &sizes);
  if (!st.ok()) {
    fprintf(stderr, "bench_federation: PRDB: %s\n", st.ToString().c_str());
    return 1;
  }

  std::vector<std::string> notes;
  TreeSize size = SizeTree(opt.tree, &notes);
  for (const std::string& n : notes) Progress("NOTE: %s", n.c_str());
  Progress(
      "A's tree: %d consumers (%d with the address database), %d access, %d distribution, "
      "%d consumer processes",
      size.consumers, std::min(opt.addr_consumers, size.consumers), size.access, size.distribution,
      size.procs);
  opt.tree.consumer_procs = size.procs;
  opt.tree.addr_consumers = opt.addr_consumers;
  FederationBench bench(opt);
  st = bench.Run(pair, size.consumers, size.access, size.distribution);
  if (!st.ok()) {
    fprintf(stderr, "bench_federation: %s\n", st.ToString().c_str());
    return 1;
  }
  Figure("prdb_consumers_sampled", static_cast<uint64_t>(sizes.ratio_wire.size()));
  Figure("prdb_prefix_rows_federated", static_cast<uint64_t>(sizes.prefix_rows));
  Figure("prdb_wire_bytes_single", Spread(sizes.wire[0], 0));
  Figure("prdb_wire_bytes_federated", Spread(sizes.wire[1], 0));
  Figure("prdb_wire_federated_over_single", PercentMore(sizes.ratio_wire));
  Figure("prdb_mem_bytes_single", Spread(sizes.mem[0], 0));
  Figure("prdb_mem_bytes_federated", Spread(sizes.mem[1], 0));
  Figure("prdb_mem_federated_over_single", PercentMore(sizes.ratio_mem));
  return 0;
}
