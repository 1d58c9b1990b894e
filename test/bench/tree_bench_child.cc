// tree_bench_child.cc: bench_tree's consumer processes: forked before any
// thread starts, each runs its consumers on its own loops and answers the
// parent's commands (start, stats, stop, check) over a socket pair.
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

#include "common/base/event_loop.h"
#include "common/base/log.h"
#include "common/smdb/path_engine.h"
#include "common/smdb/smdb.h"
#include "common/smdb/smdb_index.h"
#include "common/smdb/smdb_prdb.h"
#include "common/smdb/whole_prdb.h"
#include "common/tree/consumer.h"
#include "common/tree/inproc_mad.h"
#include "common/tree/stream.h"
#include "test/bench/mad_bridge.h"

namespace ssa {
namespace bench {

// Every consumer PRDB of a process against BuildPrdb on `db` (its loops
// stopped: the snapshots are stable).
void CheckConsumers(const smdb::Smdb& db, const std::vector<std::unique_ptr<tree::Consumer>>& cs,
                    const std::vector<Port>& ports, ChildReply* r) {
  std::unique_ptr<smdb::SmdbIndex> index;
  if (!smdb::SmdbIndex::Build(db, &index).ok()) {
    r->bad = cs.size();
    return;
  }
  smdb::PathEngine engine(index.get(), smdb::PathEngineOptions::ForPrdb());
  const unsigned threads = std::max(1u, std::min(4u, std::thread::hardware_concurrency()));
  std::atomic<uint64_t> bad{0}, good{0}, mem{0}, wire{0}, npaths{0};
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      pthread_setname_np(pthread_self(), "check");
      for (size_t i = t; i < cs.size(); i += threads) {
        std::shared_ptr<const smdb::Prdb> got = cs[i] ? cs[i]->prdb() : nullptr;
        smdb::Prdb full;
        if (!got || !smdb::BuildPrdb(engine, ports[i].guid, db.global_epoch, &full).ok() ||
            !(full == *got)) {
          ++bad;
          continue;
        }
        std::string bytes;
        got->Serialize(&bytes);
        ++good;
        wire += bytes.size();
        mem += sizeof(smdb::Prdb) + got->source.records.capacity() * sizeof(smdb::PrdbSource) +
               got->paths.records.capacity() * sizeof(smdb::PrdbPath);
        npaths += got->paths.records.size();
      }
    });
  for (auto& t : pool) t.join();
  r->bad = bad;
  r->good = good;
  r->mem = mem;
  r->wire = wire;
  r->paths = npaths;
}

Status Bench::ForkChildren(int procs) {
  size_t n = consumer_ports_.size();
  procs = std::max(1, std::min(procs, static_cast<int>(std::max<size_t>(n, 1))));
  fflush(stdout);
  fflush(stderr);
  for (int k = 0; k < procs; ++k) {
    int mad[2], cmd[2], ev[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, mad) < 0 ||
        socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, cmd) < 0 ||
        socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ev) < 0)
      return Status::Error(errno, std::string("socketpair: ") + strerror(errno));
    Child c;
    c.first = n * static_cast<size_t>(k) / static_cast<size_t>(procs);
    c.count = n * static_cast<size_t>(k + 1) / static_cast<size_t>(procs) - c.first;
    children_.push_back(std::move(c));
    pid_t pid = fork();
    if (pid < 0) return Status::Error(errno, std::string("fork: ") + strerror(errno));
    if (pid == 0) {
      close(mad[0]);
      close(cmd[0]);
      close(ev[0]);
      ChildMain(static_cast<size_t>(k), mad[1], cmd[1], ev[1]);
    }
    close(mad[1]);
    close(cmd[1]);
    close(ev[1]);
    Child& p = children_.back();
    p.pid = pid;
    p.mad_fd = mad[0];
    p.cmd_fd = cmd[0];
    p.event_fd = ev[0];
  }
  return Status::Ok();
}

// A consumer process: its own MAD fabric with a gateway at the core's LID
// bridged to this one's, its consumers on their loops, and a command loop
// on the main thread. It ends with _exit: the parent owns every result.
void Bench::ChildMain(size_t k, int mad_fd, int cmd_fd, int event_fd) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  for (size_t j = 0; j < k; ++j) {  // the parent's ends of the earlier processes
    close(children_[j].mad_fd);
    close(children_[j].cmd_fd);
    close(children_[j].event_fd);
  }
  const size_t first = children_[k].first, count = children_[k].count;
  ssa::Logger log;
  log.Open("stderr", "bench_tree-c" + std::to_string(k)).ok();
  log.set_level(opt_.log_level);
  tree::InprocMadFabric fabric;
  LoopThread bridge_loop;
  std::vector<std::unique_ptr<LoopThread>> loops;
  std::vector<std::unique_ptr<tree::StreamTransport>> streams;
  std::unique_ptr<tree::InprocMadGateway> gateway;
  std::unique_ptr<ssa::bench::MadBridge> bridge;
  std::vector<std::unique_ptr<tree::Consumer>> consumers(count);
  std::vector<Port> ports(consumer_ports_.begin() + static_cast<long>(first),
                          consumer_ports_.begin() + static_cast<long>(first + count));
  std::vector<uint64_t> reported(count, 0);  // per consumer, its loop only
  std::vector<uint64_t> reported_addr(count, 0);
  auto reply = [cmd_fd](const ChildReply& r) { send(cmd_fd, &r, sizeof(r), MSG_NOSIGNAL); };
  auto fail = [&](const Status& st) {
    ChildReply r;
    snprintf(r.error, sizeof(r.error), "%s", st.ToString().c_str());
    reply(r);
  };
  for (;;) {
    ChildCommand cmd;
    ssize_t got = recv(cmd_fd, &cmd, sizeof(cmd), 0);
    if (got != sizeof(cmd) || cmd.op == kChildExit) _exit(0);
    if (cmd.op == kChildStart) {
      Status st = bridge_loop.Start("mad-bridge");
      for (int l = 0; st.ok() && l < opt_.consumer_loops; ++l) {
        loops.push_back(std::make_unique<LoopThread>());
        st = loops.back()->Start("consumers" + std::to_string(l));
        streams.push_back(tree::NewTcpTransport());
      }
      if (st.ok()) st = fabric.NewGateway({core_port_.lid}, tree::kSsaClass, &gateway);
      if (st.ok()) {
        bridge = std::make_unique<ssa::bench::MadBridge>(&bridge_loop.loop, mad_fd, gateway.get());
        st = RunOn(&bridge_loop.loop, [&] { return bridge->Start(); });
      }
      for (size_t l = 0; l < loops.size() && st.ok(); ++l)
        st = RunOn(&loops[l]->loop, [&, l]() -> Status {
          ssa::EventLoop* loop = &loops[l]->loop;
          for (size_t i = l; i < count; i += loops.size()) {
            tree::ConsumerOptions o;
            o.port_guid = ports[i].guid;
            o.gid_prefix = gid_prefix_;
            uint16_t sm = core_port_.lid;
            o.sm_lid = [sm] { return sm; };
            o.want_addr = static_cast<int>(first + i) < opt_.addr_consumers;
            std::unique_ptr<ssa::MadTransport> m = fabric.NewTransport(ports[i].lid);
            Status s = m->Open(tree::kSsaClass, tree::kSsaClassVersion);
            if (!s.ok()) return s.WithContext("consumer MAD transport");
            s = tree::Consumer::CreateWith(
                loop, &log, o, std::move(m), streams[l].get(),
                [&consumers, &reported, &reported_addr, i, first, event_fd] {
                  auto report = [&](uint32_t kind, uint64_t epoch) {
                    ChildEvent e;
                    e.index = static_cast<uint32_t>(first + i);
                    e.kind = kind;
                    e.epoch = epoch;
                    e.ns = NowNs();
                    send(event_fd, &e, sizeof(e), MSG_NOSIGNAL);
                  };
                  std::shared_ptr<const smdb::Prdb> p = consumers[i]->prdb();
                  if (p && p->global_epoch != reported[i]) {
                    reported[i] = p->global_epoch;
                    report(kEventPrdb, p->global_epoch);
                  }
                  std::shared_ptr<const smdb::AddrDb> a = consumers[i]->addr();
                  if (a && a->global_epoch != reported_addr[i]) {
                    reported_addr[i] = a->global_epoch;
                    report(kEventAddr, a->global_epoch);
                  }
                },
                &consumers[i]);
            if (s.ok()) s = consumers[i]->Start();
            if (!s.ok()) return s.WithContext("consumer " + std::to_string(first + i));
          }
          return Status::Ok();
        });
      if (!st.ok()) {
        fail(st);
        continue;
      }
      ChildReply r;
      r.ok = 1;
      reply(r);
    } else if (cmd.op == kChildStats) {
      ChildReply r;
      r.ok = 1;
      for (size_t l = 0; l < loops.size(); ++l)
        RunOn(&loops[l]->loop, [&, l] {
          for (size_t i = l; i < count; i += loops.size()) {
            if (!consumers[i]) continue;
            tree::ConsumerStats cs = consumers[i]->stats();
            r.full_transfers += cs.full_transfers;
            r.delta_transfers += cs.delta_transfers;
            r.bytes_received += cs.bytes_received;
            r.joins_sent += cs.joins;
          }
        });
      if (bridge) r.bridge_errors = RunOn(&bridge_loop.loop, [&] { return bridge->errors(); });
      reply(r);
    } else if (cmd.op == kChildStop) {
      for (auto& l : loops) l->Stop();
      bridge_loop.Stop();
      ChildReply r;
      r.ok = 1;
      reply(r);
    } else if (cmd.op == kChildCheck) {
      for (auto& l : loops) l->Stop();
      bridge_loop.Stop();
      ChildReply r;
      r.ok = 1;
      CheckConsumers(*db2_, consumers, ports, &r);
      reply(r);
    } else {
      fail(Status::Error(EINVAL, "unknown command " + std::to_string(cmd.op)));
    }
  }
}

Status Bench::Ask(Child* c, uint32_t op, ChildReply* r) {
  ChildCommand cmd;
  cmd.op = op;
  if (send(c->cmd_fd, &cmd, sizeof(cmd), MSG_NOSIGNAL) != sizeof(cmd) ||
      recv(c->cmd_fd, r, sizeof(*r), 0) != sizeof(*r))
    return Status::Error(EPIPE, "consumer process " + std::to_string(c->pid) + " is gone");
  return r->ok ? Status::Ok() : Status::Error(EINVAL, r->error);
}

void Bench::ReadEvents(Child* c) {
  pthread_setname_np(pthread_self(), "events");
  for (;;) {
    ChildEvent e;
    ssize_t n = recv(c->event_fd, &e, sizeof(e), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n != sizeof(e)) return;  // the process ended
    if (e.kind == kEventAddr) {
      if (on_addr) on_addr(e.index, e.epoch, e.ns);
    } else {
      OnConsumerEpoch(e.index, e.epoch, e.ns);
    }
  }
}

}  // namespace bench
}  // namespace ssa
