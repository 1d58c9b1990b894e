// fed_schedule.cc: see fed_schedule.h.
#include "test/soak/fed_schedule.h"

#include <algorithm>
#include <cstdio>
#include <random>

namespace ssa {
namespace soak {

const char* FedEventKindName(FedEventKind kind) {
  switch (kind) {
    case FedEventKind::kLinkCut: return "link_cut";
    case FedEventKind::kPeerRestart: return "peer_restart";
    case FedEventKind::kNodeLeaves: return "node_leaves";
    case FedEventKind::kAddressMoves: return "address_moves";
    case FedEventKind::kIbacmRestart: return "ibacm_restart";
  }
  return "?";
}

const char* FedVerdictName(FedVerdict v) {
  switch (v) {
    case FedVerdict::kFresh: return "fresh";
    case FedVerdict::kHeld: return "held";
    case FedVerdict::kExcusedError: return "excused_error";
    case FedVerdict::kWrong: return "wrong";
    case FedVerdict::kServedWithdrawn: return "served_withdrawn";
    case FedVerdict::kMissingSettled: return "missing_settled";
  }
  return "?";
}

bool FedVerdictFails(FedVerdict v) {
  return v == FedVerdict::kWrong || v == FedVerdict::kServedWithdrawn ||
         v == FedVerdict::kMissingSettled;
}

std::string FedEvent::Describe() const {
  char line[160];
  std::string what = FedEventKindName(kind);
  if (kind != FedEventKind::kIbacmRestart) what += std::string(" peer ") + char('b' + peer);
  if (kind == FedEventKind::kLinkCut)
    snprintf(line, sizeof(line), " for %.1f s (%s hold_s)", for_s, past_hold ? "past" : "within");
  else
    line[0] = 0;
  what += line;
  if (hosts_change) {
    what += ", its hosts: nodes";
    for (int n : hosts.nodes) what += " " + std::to_string(n);
    what += ", moving address on " + std::to_string(hosts.moving_on);
  }
  return what;
}

namespace {

// A node leaves (when all three are there) or the missing ones come back.
void NodeLeavesOrReturns(std::mt19937_64* rng, PeerHosts* h) {
  if (h->nodes.size() < 3) {
    h->nodes = {1, 2, 3};
    return;
  }
  int gone = 1 + static_cast<int>((*rng)() % 3);
  h->nodes.erase(std::find(h->nodes.begin(), h->nodes.end(), gone));
  if (h->moving_on == gone) h->moving_on = h->nodes[(*rng)() % h->nodes.size()];
}

}  // namespace

std::vector<FedEvent> MakeFedSchedule(const FedScheduleOptions& o) {
  std::mt19937_64 rng(o.seed);
  auto uniform = [&](double lo, double hi) {
    return lo + (hi - lo) * static_cast<double>(rng() % 1000) / 1000.0;
  };
  std::vector<FedEventKind> first = {FedEventKind::kLinkCut, FedEventKind::kPeerRestart,
                                     FedEventKind::kNodeLeaves, FedEventKind::kAddressMoves,
                                     FedEventKind::kIbacmRestart};
  std::shuffle(first.begin(), first.end(), rng);
  std::vector<PeerHosts> hosts(std::max(1, o.peers));
  std::vector<FedEvent> out;
  bool cut_yet = false;
  for (double t = 3; t < o.duration_s;) {
    FedEvent e;
    e.kind = out.size() < first.size() ? first[out.size()]
                                       : static_cast<FedEventKind>(rng() % kFedEventKinds);
    e.at_s = t;
    e.peer = static_cast<int>(rng() % hosts.size());
    PeerHosts& h = hosts[e.peer];
    double takes = 5;  // a restart's nominal length (the runner waits for it)
    switch (e.kind) {
      case FedEventKind::kLinkCut:
        // The first cut goes past hold_s, so that a short run sees the
        // withdrawal and the resync after it.
        e.past_hold = !cut_yet || rng() % 2;
        cut_yet = true;
        // Past hold_s by more than the settle time, so that the judge
        // requires the withdrawal before the link comes back.
        e.for_s = e.past_hold ? o.hold_s + o.settle_s + uniform(1, 3)
                              : uniform(0.5, std::max(1.0, o.hold_s - 1.0));
        takes = e.for_s;
        break;
      case FedEventKind::kPeerRestart:
        e.hosts_change = rng() % 2;
        if (e.hosts_change) NodeLeavesOrReturns(&rng, &h);
        break;
      case FedEventKind::kNodeLeaves:
        e.hosts_change = true;
        NodeLeavesOrReturns(&rng, &h);
        takes = 0;
        break;
      case FedEventKind::kAddressMoves: {
        e.hosts_change = true;
        if (h.nodes.size() < 2) h.nodes = {1, 2, 3};
        std::vector<int> others;
        for (int n : h.nodes)
          if (n != h.moving_on) others.push_back(n);
        h.moving_on = others[rng() % others.size()];
        takes = 0;
        break;
      }
      case FedEventKind::kIbacmRestart: break;
    }
    e.hosts = h;
    out.push_back(e);
    t += takes + uniform(1, 3);
  }
  return out;
}

FedVerdict JudgeFedAnswer(const PeerHistory& peer, const std::vector<Interval>& ibacm_down,
                          double hold_s, double settle_s, const FedAnswer& a) {
  const double t0 = a.asked_s, t1 = a.answered_s, from = t0 - settle_s;
  bool must_be_withdrawn = false, break_in_window = false;
  for (const auto& b : peer.breaks) {
    if (b.from_s <= t0 && b.to_s >= t1 && t0 > b.from_s + hold_s + settle_s)
      must_be_withdrawn = true;
    if (b.from_s <= t1 && b.to_s >= from) break_in_window = true;
  }
  // The versions A may serve: those the peer had within the settle time,
  // and the one of each break A may still hold.
  auto valid_at = [&](double t) -> const PeerHistory::Version* {
    const PeerHistory::Version* v = nullptr;
    for (const auto& x : peer.versions)
      if (x.from_s <= t) v = &x;
    return v;
  };
  std::vector<const PeerHistory::Version*> allowed;
  bool changed_in_window = false;
  for (size_t i = 0; i < peer.versions.size(); ++i) {
    double until = i + 1 < peer.versions.size() ? peer.versions[i + 1].from_s
                                                : std::numeric_limits<double>::infinity();
    if (peer.versions[i].from_s <= t1 && until > from) allowed.push_back(&peer.versions[i]);
    if (i > 0 && peer.versions[i].from_s > from && peer.versions[i].from_s <= t1)
      changed_in_window = true;
  }
  for (const auto& b : peer.breaks)
    if (b.from_s + hold_s + settle_s >= t0 && b.to_s >= from && b.from_s <= t1)
      if (const auto* v = valid_at(b.from_s)) allowed.push_back(v);
  const PeerHistory::Version* now = valid_at(t1);
  auto has = [&](const PeerHistory::Version* v, std::string* gid) {
    if (!v) return false;
    auto it = v->entries.find(a.key);
    if (it == v->entries.end()) return false;
    if (gid) *gid = it->second;
    return true;
  };
  std::string gid;
  if (!a.error) {
    if (must_be_withdrawn) return FedVerdict::kServedWithdrawn;
    if (has(now, &gid) && gid == a.gid) return FedVerdict::kFresh;
    for (const auto* v : allowed)
      if (has(v, &gid) && gid == a.gid) return FedVerdict::kHeld;
    return FedVerdict::kWrong;
  }
  if (must_be_withdrawn || !has(now, nullptr)) return FedVerdict::kFresh;
  bool ibacm_in_window = false;
  for (const auto& d : ibacm_down) ibacm_in_window |= d.from_s <= t1 && d.to_s >= from;
  if (break_in_window || changed_in_window || ibacm_in_window) return FedVerdict::kExcusedError;
  return FedVerdict::kMissingSettled;
}

}  // namespace soak
}  // namespace ssa
