// soak_clients.cc: see soak_clients.h.
#include "test/soak/soak_clients.h"

#include <infiniband/verbs.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <functional>
#include <thread>

#include <ibacm_ssa/path.h>
#include "common/acm/acm_client.h"
#include "common/acm/acm_wire.h"
#include "common/base/big_endian.h"

namespace ssa {
namespace soak {

namespace {

using namespace std::chrono_literals;

// Longer than any stop in the fault menu: a stopped daemon's client waits
// it out instead of counting it as unanswered.
constexpr int kTimeoutMs = 15000;

// The loop both kinds share: `ask` fills the answer's kind, status and
// record for one destination; false when it could not even ask (nothing to
// judge; retried after a pause).
void Loop(const ClientSpec& spec, const std::atomic<bool>* stop, Oracle* oracle,
          ClientTotals* totals, const std::function<bool(uint16_t dlid, DaemonAnswer*)>& ask) {
  size_t next = 0;
  while (!stop->load()) {
    DaemonAnswer a;
    a.daemon = spec.daemon;
    a.slid = spec.slid;
    a.dlid = spec.dlids[next];
    a.sent = Clock::now();
    if (!ask(a.dlid, &a)) {
      std::this_thread::sleep_for(50ms);
      continue;
    }
    a.received = Clock::now();
    next = (next + 1) % spec.dlids.size();
    oracle->Submit(a);
    totals->sent.fetch_add(1, std::memory_order_relaxed);
    if (spec.think_us > 0) std::this_thread::sleep_for(std::chrono::microseconds(spec.think_us));
  }
}

}  // namespace

void SocketClientLoop(ClientSpec spec, const std::atomic<bool>* stop, Oracle* oracle,
                      ClientTotals* totals) {
  AcmClient client;
  client.set_timeout_ms(kTimeoutMs);
  Loop(spec, stop, oracle, totals, [&](uint16_t dlid, DaemonAnswer* a) {
    if (!client.connected() && !client.Connect(spec.socket).ok()) return false;
    ibv_path_record query;
    memset(&query, 0, sizeof(query));
    query.slid = ToBe16(spec.slid);
    query.dlid = ToBe16(dlid);
    query.reversible_numpath = IBV_PATH_RECORD_REVERSIBLE | 1;
    acm::EpAddr entry;
    entry.SetPath(query);
    acm::ResolveResponse resp;
    Status st = client.Resolve({entry}, &resp);
    a->client = "socket";
    if (!st.ok()) {
      a->kind = DaemonAnswer::kNoAnswer;
      a->error = st.code();
      client.Close();
    } else if (resp.hdr.status == acm::kStatusSuccess && !resp.paths.empty()) {
      a->kind = DaemonAnswer::kPath;
      a->record = resp.paths[0].path;
    } else if (resp.hdr.status == acm::kStatusENoData || resp.hdr.status == acm::kStatusEDestAddr) {
      a->kind = DaemonAnswer::kNoPath;
      a->status = resp.hdr.status;
    } else if (resp.hdr.status == acm::kStatusENotConn) {
      a->kind = DaemonAnswer::kRefused;
      a->status = resp.hdr.status;
    } else {
      a->kind = DaemonAnswer::kError;
      a->status = resp.hdr.status;
    }
    return true;
  });
}

void TableClientLoop(ClientSpec spec, const std::atomic<bool>* stop, Oracle* oracle,
                     ClientTotals* totals) {
  ibssa_path_options opts;
  memset(&opts, 0, sizeof(opts));
  opts.size = sizeof(opts);
  opts.check_ms = 20;  // follow epochs and restarts closely
  opts.timeout_ms = kTimeoutMs;
  ibssa_path* h = nullptr;
  Loop(spec, stop, oracle, totals, [&](uint16_t dlid, DaemonAnswer* a) {
    if (!h && ibssa_path_open(spec.socket.c_str(), &opts, &h) != 0) return false;
    ibv_path_record rec;
    int rc = ibssa_path_by_lid(h, spec.slid, dlid, 0, &rec, nullptr);
    a->client = "tables";
    switch (rc) {
      case 0:
        a->kind = DaemonAnswer::kPath;
        a->record = rec;
        break;
      case -ENODATA:
        a->kind = DaemonAnswer::kNoPath;
        a->status = acm::kStatusENoData;
        break;
      case -EADDRNOTAVAIL:
        a->kind = DaemonAnswer::kNoPath;
        a->status = acm::kStatusEDestAddr;
        break;
      case -ENOTCONN:
        a->kind = DaemonAnswer::kRefused;
        a->status = acm::kStatusENotConn;
        break;
      case -ETIMEDOUT:
      case -ECONNRESET:
      case -ECONNREFUSED:
      case -ENOENT:
      case -EPIPE:
        a->kind = DaemonAnswer::kNoAnswer;  // the daemon is not there to ask
        a->error = -rc;
        break;
      default:
        a->kind = DaemonAnswer::kError;
        a->status = static_cast<uint8_t>(-rc);  // an errno, not an ACM status
        break;
    }
    return true;
  });
  if (h) {
    ibssa_path_stats s;
    ibssa_path_get_stats(h, &s);
    totals->table_answers.fetch_add(s.table_answers);
    ibssa_path_close(h);
  }
}

}  // namespace soak
}  // namespace ssa
