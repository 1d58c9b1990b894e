// tree_bench.cc: bench_tree's tree in this process (see tree_bench.h);
// the consumer processes are in tree_bench_child.cc.
#include "test/bench/tree_bench.h"

#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <future>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "common/base/daemon_util.h"
#include "common/base/worker_pool.h"
#include "common/smdb/addr_db.h"
#include "common/smdb/smdb.h"
#include "common/smdb/smdb_delta.h"
#include "common/smdb/smdb_index.h"
#include "common/smdb/smdb_prdb.h"
#include "common/tree/core_server.h"
#include "distrib/ibssa_member.h"
#include "test/bench/mad_bridge.h"
#include "test/bench/smdb_pair_cache.h"
#include "test/bench/thread_cpu.h"
#include "test/sim/osm_plugin_util.h"

namespace ssa {
namespace bench {

Status Bench::Setup(const SmdbPair& pair, int consumers, int access, int distribution) {
  Status st = log_.Open("stderr", "bench_tree");
  if (!st.ok()) return st;
  log_.set_level(opt_.log_level);
  db1_ = std::make_shared<smdb::Smdb>(pair.before);
  db2_ = std::make_shared<smdb::Smdb>(pair.after);
  auto s1 = std::make_shared<std::string>(), s2 = std::make_shared<std::string>(),
       d = std::make_shared<std::string>();
  st = db1_->Serialize(s1.get());
  if (st.ok()) st = db2_->Serialize(s2.get());
  if (st.ok()) st = smdb::MakeDelta(*db1_, *db2_, d.get());
  if (!st.ok()) return st;
  ser1_ = s1;
  ser2_ = s2;
  delta_ = d;

  // Roles: the SM's port is the core; the other CA ports active in both
  // versions, by LID, are distribution, access and consumer ports.
  const smdb::SmdbSubnet& subnet = db1_->subnet.records[0];
  core_port_ = {subnet.sm_port_guid, subnet.sm_lid};
  gid_prefix_ = subnet.subnet_prefix;
  std::unique_ptr<smdb::SmdbIndex> x1, x2;
  st = smdb::SmdbIndex::Build(*db1_, &x1);
  if (st.ok()) st = smdb::SmdbIndex::Build(*db2_, &x2);
  if (!st.ok()) return st;
  std::vector<Port> ports;
  for (uint32_t e : x1->endpoints()) {
    const auto& p = x1->port(e);
    if (!p.port_guid || !p.base_lid || p.port_guid == core_port_.guid) continue;
    if (x2->PortByGuid(p.port_guid) == smdb::SmdbIndex::kNone) continue;  // gone with the link
    if (x1->node_of(p).type != smdb::kNodeCa) continue;
    ports.push_back({p.port_guid, p.base_lid});
  }
  std::sort(ports.begin(), ports.end(), [](const Port& a, const Port& b) { return a.lid < b.lid; });
  size_t need = static_cast<size_t>(distribution + access + consumers);
  if (ports.size() < need) return Status::Error(EINVAL, "not enough CA ports");
  size_t k = 0;
  for (int i = 0; i < distribution; ++i) dist_ports_.push_back(ports[k++]);
  for (int i = 0; i < access; ++i) access_ports_.push_back(ports[k++]);
  for (int i = 0; i < consumers; ++i) consumer_ports_.push_back(ports[k++]);
  members_expected_ = need;
  counted_epoch_.assign(consumer_ports_.size(), 0);

  // The consumer processes first: fork() before this process has threads.
  st = ForkChildren(opt_.consumer_procs);
  if (!st.ok()) return st;

  // Threads: the core's loop, the members' loop (with the PRDB workers),
  // the bridges to the consumer processes, a reader of each one's events.
  st = core_loop_.Start("core");
  if (st.ok()) st = member_loop_.Start("members");
  if (st.ok()) st = bridge_loop_.Start("mad-bridge");
  if (!st.ok()) return st;
  st = RunOn(&bridge_loop_.loop, [this]() -> Status {
    for (Child& c : children_) {
      std::vector<uint16_t> lids;
      for (size_t i = c.first; i < c.first + c.count; ++i) lids.push_back(consumer_ports_[i].lid);
      Status s = mads_.NewGateway(lids, tree::kSsaClass, &c.gateway);
      if (!s.ok()) return s;
      c.bridge =
          std::make_unique<ssa::bench::MadBridge>(&bridge_loop_.loop, c.mad_fd, c.gateway.get());
      s = c.bridge->Start();
      if (!s.ok()) return s;
    }
    return Status::Ok();
  });
  if (!st.ok()) return st.WithContext("MAD bridge");
  for (Child& c : children_) c.events = std::thread([this, &c] { ReadEvents(&c); });
  core_streams_ = tree::NewTcpTransport();
  member_streams_ = tree::NewTcpTransport();
  // The workers take the creating thread's name.
  pthread_setname_np(pthread_self(), "prdb-workers");
  pool_ =
      std::make_unique<ssa::WorkerPool>(&member_loop_.loop, static_cast<size_t>(opt_.prdb_threads));
  pthread_setname_np(pthread_self(), "bench_tree");
  prdb_epoch_at_access_.assign(consumer_ports_.size(), 0);
  for (size_t i = 0; i < consumer_ports_.size(); ++i) consumer_index_[consumer_ports_[i].guid] = i;

  // The core, with the empty address database the plugin serves without a
  // hosts file (so no member waits for one).
  core_mads_ = mads_.NewTransport(core_port_.lid);
  st = core_mads_->Open(tree::kSsaClass, tree::kSsaClassVersion);
  if (!st.ok()) return st;
  return RunOn(&core_loop_.loop, [this]() -> Status {
    tree::CoreServerOptions co;
    co.port_guid = core_port_.guid;
    co.lid = core_port_.lid;
    Status s = tree::DataAddress::Parse("127.0.0.1:0", &co.listen);
    if (!s.ok()) return s;
    co.data.max_children = 4096;
    core_ = std::make_unique<tree::CoreServer>(&core_loop_.loop, &log_, core_mads_.get(),
                                               core_streams_.get(), co);
    s = core_->Start([this] {
      size_t n = core_->membership()->size();
      members_now_ = n;
      if (n >= members_expected_ && all_joined_ns_ == 0) all_joined_ns_ = NowNs();
    });
    if (!s.ok()) return s;
    if (!addr0_.bytes) {
      smdb::AddrDb addr;
      addr.global_epoch = 1;
      auto bytes = std::make_shared<std::string>();
      s = addr.Serialize(bytes.get());
      if (!s.ok()) return s;
      addr0_ = {1, tree::DigestOf(*bytes), bytes};
    }
    core_->PublishAddr(addr0_, nullptr, 0);
    return Status::Ok();
  });
}

void Bench::PublishAddr(const tree::DbVersion& v, tree::Bytes delta, uint64_t delta_from) {
  core_loop_.loop.Post([this, v, delta, delta_from] {
    if (core_) core_->PublishAddr(v, delta, delta_from);
  });
}

void Bench::OnConsumerEpoch(size_t i, uint64_t e, int64_t now) {
  if (i >= counted_epoch_.size() || e != target_epoch_.load() || counted_epoch_[i] == e) return;
  counted_epoch_[i] = e;
  int64_t prev = last_reached_ns_.load();
  while (prev < now && !last_reached_ns_.compare_exchange_weak(prev, now)) {
  }
  ++at_target_;
}

TierBytes Bench::ReadBytes() {
  TierBytes t;
  t.core = RunOn(&core_loop_.loop, [this] { return core_->data_server()->counters().bytes_sent; });
  RunOn(&member_loop_.loop, [this, &t] {
    for (size_t i = 0; i < members_.size(); ++i) {
      uint64_t b = members_[i]->server() ? members_[i]->server()->counters().bytes_sent : 0;
      (i < dist_ports_.size() ? t.distribution : t.access) += b;
    }
  });
  uint64_t joins = 0, errors = 0;
  for (Child& c : children_) {
    ChildReply r;
    if (!Ask(&c, kChildStats, &r).ok()) continue;
    t.consumer_full += r.full_transfers;
    t.consumer_delta += r.delta_transfers;
    t.consumer_bytes += r.bytes_received;
    joins += r.joins_sent;
    errors += r.bridge_errors;
  }
  consumer_joins = joins;
  bridge_errors = errors;
  if (consumers_started != Clock::time_point()) {
    const int renew_s = std::max(1, tree::MembershipOptions{}.lease_s / 3);
    joins_expected = 2 + std::floor(Since(consumers_started) / renew_s);
  }
  return t;
}

PrdbCounts Bench::ReadPrdbCounts() {
  return RunOn(&member_loop_.loop, [&] {
    PrdbCounts c;
    for (const auto& m : members_)
      if (m->prdbs()) {
        c.computed += m->prdbs()->paths_computed();
        c.if_full += m->prdbs()->paths_if_full();
        c.buffers_new += m->prdbs()->buffer_counters().fresh;
      }
    return c;
  });
}

void Bench::Target(uint64_t epoch) {
  RunOn(&member_loop_.loop, [this, epoch] {
    access_at_target_ = prdbs_at_target_ = 0;
    access_smdb_ns_ = prdbs_ns_ = 0;
    target_epoch_ = epoch;
  });
  at_target_ = 0;
  last_reached_ns_ = 0;
}

void Bench::OnAccessSmdb(uint64_t epoch) {
  if (epoch != target_epoch_.load()) return;
  if (++access_at_target_ == static_cast<int>(access_ports_.size())) access_smdb_ns_ = NowNs();
}

void Bench::OnPrdb(const distrib::PrdbVersion& v) {
  if (v.epoch != target_epoch_.load()) return;
  auto it = consumer_index_.find(v.port_guid);
  if (it == consumer_index_.end() || prdb_epoch_at_access_[it->second] == v.epoch) return;
  prdb_epoch_at_access_[it->second] = v.epoch;
  if (++prdbs_at_target_ == static_cast<int>(consumer_ports_.size())) prdbs_ns_ = NowNs();
}

std::vector<pid_t> Bench::Pids() const {
  std::vector<pid_t> pids{getpid()};
  for (const Child& c : children_) pids.push_back(c.pid);
  return pids;
}

Status Bench::WaitPhase(Phase* p, const TierBytes& before, const PrdbCounts& prdb_before,
                        const ssa::bench::CpuByRole& cpu_before) {
  auto deadline = p->published + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(opt_.timeout_s));
  auto next_report = Clock::now(), next_rss = Clock::now(), next_pss = Clock::now();
  uint64_t rss = 0, pss = 0;
  const int n = static_cast<int>(consumer_ports_.size());
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    int reached = at_target_.load();
    // The guard reads every process's RSS once a second (a counter the
    // kernel keeps; an upper bound of PSS: shared pages count in full).
    // PSS, for the progress line and the peak, every 5 s: reading it walks
    // every page table, which at 10,000 consumers took more than a second
    // of the start-up's CPU when read each second.
    if (Clock::now() >= next_rss) {
      rss = AllResident();
      next_rss = Clock::now() + std::chrono::seconds(1);
    }
    if (Clock::now() >= next_pss) {
      pss = AllPss();
      next_pss = Clock::now() + std::chrono::seconds(5);
    }
    if (Clock::now() >= next_report || reached == n) {
      // This process's heap: in use vs free in malloc's arenas (memory
      // that a growth with nothing more in use went to).
      struct mallinfo2 mi = mallinfo2();
      Progress("%s: members %zu/%zu in the book, access nodes holding SMDB epoch %" PRIu64
               ": %d/%zu, PRDBs computed %d/%d, consumers holding them %d/%d, "
               "RSS of all processes %.2f GiB (PSS at the last read %.2f, this one %.2f; "
               "malloc in use %.2f, free %.2f)",
               p->name, members_now_.load(), members_expected_, p->epoch, access_at_target_.load(),
               access_ports_.size(), prdbs_at_target_.load(), n, reached, n, Gib(rss), Gib(pss),
               Gib(parent_pss), Gib(mi.uordblks + mi.hblkhd), Gib(mi.fordblks));
      next_report = Clock::now() + std::chrono::seconds(2);
    }
    if (reached == n) {
      p->done = true;
    } else if (Gib(rss) > opt_.max_rss_gib) {
      p->stopped_why = "RSS " + Num(Gib(rss), 1) + " GiB passed --max-rss-gib";
    } else if (Clock::now() > deadline) {
      p->stopped_why =
          "not done after --timeout " + std::to_string(static_cast<int>(opt_.timeout_s)) + " s";
    }
    if (!p->done && p->stopped_why.empty()) continue;
    p->reached = reached;
    if (p->done) p->all_s = Between(p->published, FromNs(last_reached_ns_.load()));
    p->cpu = ssa::bench::CpuSpent(cpu_before, ssa::bench::ReadCpuByRole(Pids()));
    if (access_smdb_ns_.load())
      p->access_smdb_s = Between(p->published, FromNs(access_smdb_ns_.load()));
    if (prdbs_ns_.load()) p->prdbs_s = Between(p->published, FromNs(prdbs_ns_.load()));
    // Let the last sends and acknowledgements finish before reading counters.
    if (p->done) std::this_thread::sleep_for(std::chrono::milliseconds(200));
    TierBytes after = ReadBytes();
    p->bytes.core = after.core - before.core;
    p->bytes.distribution = after.distribution - before.distribution;
    p->bytes.access = after.access - before.access;
    p->bytes.consumer_full = after.consumer_full - before.consumer_full;
    p->bytes.consumer_delta = after.consumer_delta - before.consumer_delta;
    p->bytes.consumer_bytes = after.consumer_bytes - before.consumer_bytes;
    PrdbCounts prdb = ReadPrdbCounts();
    p->paths_computed = prdb.computed - prdb_before.computed;
    p->paths_if_full = prdb.if_full - prdb_before.if_full;
    p->prdb_buffers_new = prdb.buffers_new - prdb_before.buffers_new;
    return Status::Ok();
  }
}

Status Bench::RunStartup(Phase* p) {
  p->name = "start-up";
  p->epoch = db1_->global_epoch;
  Target(p->epoch);
  TierBytes zero;
  ssa::bench::CpuByRole cpu_before = ssa::bench::ReadCpuByRole(Pids());
  // The core publishes the first SMDB; members and consumers start now.
  p->published = RunOn(&core_loop_.loop, [this] {
    auto t = Clock::now();
    core_->PublishSmdb(db1_, ser1_, nullptr, 0);
    return t;
  });
  Status st = RunOn(&member_loop_.loop, [this]() -> Status {
    std::vector<Port> all = dist_ports_;
    all.insert(all.end(), access_ports_.begin(), access_ports_.end());
    for (size_t i = 0; i < all.size(); ++i) {
      distrib::IbssaOptions o;
      o.roles = i < dist_ports_.size() ? distrib::kRoleDistribution : distrib::kRoleAccess;
      o.listen = "127.0.0.1:0";
      o.max_children = 8192;
      o.prdb_threads = opt_.prdb_threads;
      o.prdb_route_table_mb = opt_.route_table_mb;
      member_mads_.push_back(mads_.NewTransport(all[i].lid));
      Status s = member_mads_.back()->Open(tree::kSsaClass, tree::kSsaClassVersion);
      if (!s.ok()) return s;
      members_.push_back(
          std::make_unique<distrib::IbssaMember>(&member_loop_.loop, &log_, o, pool_.get()));
      distrib::MemberPort mp;
      mp.port_guid = all[i].guid;
      mp.gid_prefix = gid_prefix_;
      mp.sm_lid = core_port_.lid;
      if (o.roles & distrib::kRoleAccess) {
        members_.back()->set_on_smdb([this](uint64_t e) { OnAccessSmdb(e); });
        members_.back()->set_on_prdb([this](const distrib::PrdbVersion& v) { OnPrdb(v); });
      }
      s = members_.back()->Start(mp, member_mads_.back().get(), member_streams_.get());
      if (!s.ok()) return s;
    }
    return Status::Ok();
  });
  if (!st.ok()) return st.WithContext("members");
  // Consumers join once their parents are in the book (a consumer that
  // finds no access node backs off for seconds).
  size_t parents = dist_ports_.size() + access_ports_.size();
  while (members_now_.load() < parents) {
    if (Since(p->published) > opt_.timeout_s)
      return Status::Error(ETIMEDOUT, "members did not join");
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  pss_before_consumers = AllPss();
  auto consumers_start = Clock::now();
  consumers_started = consumers_start;
  // Every process starts its share at once; each answers when all of its
  // consumers are started.
  for (Child& c : children_) {
    ChildCommand cmd;
    cmd.op = kChildStart;
    if (send(c.cmd_fd, &cmd, sizeof(cmd), MSG_NOSIGNAL) != sizeof(cmd))
      return Status::Error(EPIPE, "consumer process " + std::to_string(c.pid) + " is gone");
  }
  for (Child& c : children_) {
    ChildReply r;
    if (recv(c.cmd_fd, &r, sizeof(r), 0) != sizeof(r))
      return Status::Error(EPIPE, "consumer process " + std::to_string(c.pid) + " is gone");
    if (!r.ok) st = Status::Error(EINVAL, std::string("consumer process: ") + r.error);
  }
  if (!st.ok()) return st;
  Progress("start-up: %zu distribution, %zu access node(s) joined; %zu consumers started in %.2f s",
           dist_ports_.size(), access_ports_.size(), consumer_ports_.size(),
           Since(consumers_start));
  st = WaitPhase(p, zero, PrdbCounts(), cpu_before);
  if (all_joined_ns_.load()) join_burst_s = Between(consumers_start, FromNs(all_joined_ns_.load()));
  pss_after_startup = AllPss();
  return st;
}

Status Bench::RunUpdate(Phase* p) {
  p->name = "update";
  p->epoch = db2_->global_epoch;
  // Quiet first: every early epoch report and renewal of the start-up done.
  std::this_thread::sleep_for(std::chrono::seconds(1));
  TierBytes before = ReadBytes();
  PrdbCounts prdb_before = ReadPrdbCounts();
  ssa::bench::CpuByRole cpu_before = ssa::bench::ReadCpuByRole(Pids());
  Target(p->epoch);
  p->published = RunOn(&core_loop_.loop, [this] {
    auto t = Clock::now();
    core_->PublishSmdb(db2_, ser2_, delta_, db1_->global_epoch);
    return t;
  });
  return WaitPhase(p, before, prdb_before, cpu_before);
}

void Bench::Check(const smdb::Smdb& db, bool* equal, size_t* mismatched, double* mem_bytes,
                  double* wire_bytes, double* paths) {
  (void)db;  // each consumer process holds the same SMDB (forked with it)
  *equal = false;
  *mismatched = consumer_ports_.size();
  // Every process checks its own consumers, at once.
  for (Child& c : children_) {
    ChildCommand cmd;
    cmd.op = kChildCheck;
    send(c.cmd_fd, &cmd, sizeof(cmd), MSG_NOSIGNAL);
  }
  uint64_t bad = 0, good = 0, mem = 0, wire = 0, npaths = 0;
  for (Child& c : children_) {
    ChildReply r;
    if (recv(c.cmd_fd, &r, sizeof(r), 0) != sizeof(r) || !r.ok) {
      bad += c.count;
      continue;
    }
    bad += r.bad;
    good += r.good;
    mem += r.mem;
    wire += r.wire;
    npaths += r.paths;
  }
  *mismatched = static_cast<size_t>(bad);
  *equal = bad == 0 && good == consumer_ports_.size() && good > 0;
  *mem_bytes = good ? static_cast<double>(mem) / good : 0;
  *wire_bytes = good ? static_cast<double>(wire) / good : 0;
  *paths = good ? static_cast<double>(npaths) / good : 0;
}

uint64_t Bench::AllResident() {
  uint64_t rss = ProcStatusBytes("VmRSS", getpid());
  for (const Child& c : children_) rss += ProcStatusBytes("VmRSS", c.pid);
  return rss;
}

uint64_t Bench::AllPss() {
  parent_pss = ProcPssBytes(getpid());
  uint64_t rss = parent_pss;
  for (const Child& c : children_) rss += ProcPssBytes(c.pid);
  if (rss > peak_rss) peak_rss = rss;
  return rss;
}

void Bench::StopLoops() {
  mad_counters = mads_.counters();
  if (core_loop_.thread.joinable() && core_)
    core_counters = RunOn(&core_loop_.loop, [this] { return core_->control()->counters(); });
  // The consumers first, so that none sees its parent go.
  for (Child& c : children_) {
    ChildReply r;
    Ask(&c, kChildStop, &r);
  }
  member_loop_.Stop();
  core_loop_.Stop();
}

void Bench::ReleaseTree() {
  // The loops are stopped: tear down on this thread, users before what
  // they use; the pool first (its results would call into the members).
  pool_.reset();
  members_.clear();
  member_mads_.clear();
  core_.reset();
  core_mads_.reset();
}

void Bench::Shutdown() {
  if (shut_) return;
  shut_ = true;
  StopLoops();
  for (Child& c : children_) {
    ChildCommand cmd;
    cmd.op = kChildExit;
    if (c.cmd_fd >= 0) send(c.cmd_fd, &cmd, sizeof(cmd), MSG_NOSIGNAL);
  }
  for (Child& c : children_) {
    if (c.pid > 0) waitpid(c.pid, nullptr, 0);
    if (c.events.joinable()) c.events.join();
  }
  bridge_loop_.Stop();
  for (Child& c : children_) {
    c.bridge.reset();
    c.gateway.reset();
    for (int fd : {c.mad_fd, c.cmd_fd, c.event_fd})
      if (fd >= 0) close(fd);
  }
  ReleaseTree();
}

namespace {

long FdLimit() {
  struct rlimit rl;
  getrlimit(RLIMIT_NOFILE, &rl);
  return static_cast<long>(rl.rlim_cur);
}

// Descriptors the tree needs: in this process one per consumer (the access
// node's end of its TCP connection), a few per member and per consumer
// process, some slack; in a consumer process two per consumer (its MAD
// eventfd, its TCP socket).
long FdsFor(const TreeSize& t) {
  long child = 2L * ((t.consumers + t.procs - 1) / t.procs) + 64;
  return std::max(1L * t.consumers + 8L * (t.access + t.distribution) + 4L * t.procs + 64, child);
}

}  // namespace

TreeSize SizeFor(const BenchOptions& o, int consumers) {
  TreeSize t;
  t.consumers = consumers;
  t.access = o.access ? o.access : std::max(1, (consumers + 999) / 1000);
  t.distribution = o.distribution ? o.distribution : std::max(1, (t.access + 63) / 64);
  if (o.consumer_procs) {
    t.procs = o.consumer_procs;
  } else {
    long per = std::max(1L, (FdLimit() - 64) / 2);
    t.procs = static_cast<int>(std::max(1L, (consumers + per - 1) / per));
  }
  return t;
}

TreeSize SizeTree(const BenchOptions& o, std::vector<std::string>* notes) {
  ssa::RaiseFdLimit();
  const long fd_limit = FdLimit();
  TreeSize t = SizeFor(o, o.consumers);
  if (FdsFor(t) > fd_limit) {
    int c = o.consumers;
    while (c > 1 && FdsFor(SizeFor(o, c)) > fd_limit) --c;
    notes->push_back("RLIMIT_NOFILE is " + std::to_string(fd_limit) +
                     " (the hard limit; raising it needs CAP_SYS_RESOURCE, which this process "
                     "lacks): a consumer takes one descriptor here (the access node's end) and two "
                     "in its process (its MAD eventfd, its TCP socket); " +
                     std::to_string(o.consumers) + " consumers need about " +
                     std::to_string(FdsFor(t)) + "; running " + std::to_string(c) + " consumers");
    t = SizeFor(o, c);
  }
  int room = o.pair.hcas - 1 - t.access - t.distribution;  // the SM's port is the core
  if (t.consumers > room) {
    notes->push_back("a " + std::to_string(o.pair.hcas) + "-HCA fabric has " +
                     std::to_string(room) + " HCA ports left after the core, " +
                     std::to_string(t.distribution) + " distribution and " +
                     std::to_string(t.access) + " access port(s): running " + std::to_string(room) +
                     " consumers");
    t.consumers = room;
  }
  return t;
}

}  // namespace bench
}  // namespace ssa
