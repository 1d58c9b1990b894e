// soak_schedule.cc: see soak_schedule.h.
#include "test/soak/soak_schedule.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace ssa {
namespace soak {

namespace {

// SplitMix64: the sequence depends on the seed only (not on the standard
// library's distributions, which differ between implementations).
class Dice {
 public:
  explicit Dice(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // 0 .. n-1
  size_t Below(size_t n) { return n ? static_cast<size_t>(Next() % n) : 0; }
  // [lo, hi], rounded to 0.1 s so the event log reads well.
  double Seconds(double lo, double hi) {
    double u = static_cast<double>(Next() >> 11) / static_cast<double>(1ull << 53);
    return static_cast<double>(static_cast<long>((lo + u * (hi - lo)) * 10 + 0.5)) / 10;
  }

 private:
  uint64_t state_;
};

std::string Fmt(const char* format, double v) {
  char b[64];
  snprintf(b, sizeof(b), format, v);
  return b;
}

// What an ibssa may be restarted with (ibssa_opts.cfg lines).
std::string FaultSpec(Dice* dice) {
  static const char* const kSpecs[] = {
      "mad_faults = drop=0.3,dup=0.2,reorder=0.2",
      "mad_faults = delay=300",
      "data_faults = flip=0.3",
      "data_faults = cut=0.02",
      "data_faults = cut_after=150000",
      "data_faults = delay=200",
      "data_faults = stall=0.3,stall_ms=1500",
  };
  std::string spec = kSpecs[dice->Below(sizeof(kSpecs) / sizeof(kSpecs[0]))];
  return spec + ",seed=" + std::to_string(1 + dice->Below(1000000));
}

class Generator {
 public:
  Generator(const ScheduleOptions& o, const SoakLayout& l) : o_(o), l_(l), dice_(o.seed) {}

  Schedule Make() {
    double t = o_.first_s;
    std::vector<EventKind> first;
    for (int k = 0; k < kEventKinds; ++k) first.push_back(static_cast<EventKind>(k));
    for (size_t i = first.size(); i > 1; --i) std::swap(first[i - 1], first[dice_.Below(i)]);
    // Kinds not placed yet come first; one that has no free target now
    // waits for the next event, and a random kind takes this one.
    std::vector<EventKind> uncovered = first;
    while (t < o_.duration_s) {
      bool placed = false;
      for (size_t i = 0; i < uncovered.size() && !placed; ++i) {
        if (Add(uncovered[i], t)) {
          uncovered.erase(uncovered.begin() + static_cast<long>(i));
          placed = true;
        }
      }
      for (int tries = 0; tries < 4 * kEventKinds && !placed; ++tries) placed = Add(PickKind(), t);
      t += dice_.Seconds(o_.min_gap_s, o_.max_gap_s);
    }
    std::stable_sort(s_.actions.begin(), s_.actions.end(),
                     [](const Action& a, const Action& b) { return a.at_s < b.at_s; });
    return s_;
  }

 private:
  EventKind PickKind() {
    // Weights: what breaks most often on a real fabric comes most often.
    static const int kWeights[kEventKinds] = {3, 1, 3, 3, 1, 2, 2};
    int total = 0;
    for (int w : kWeights) total += w;
    int r = static_cast<int>(dice_.Below(static_cast<size_t>(total)));
    for (int k = 0; k < kEventKinds; ++k) {
      if (r < kWeights[k]) return static_cast<EventKind>(k);
      r -= kWeights[k];
    }
    return EventKind::kKillRestart;
  }

  bool Free(const std::string& key, double t) const {
    auto it = busy_.find(key);
    return it == busy_.end() || it->second <= t;
  }
  // One free target of `from` (by dice), or "".
  std::string PickFree(const std::vector<std::string>& from, double t,
                       const std::string& key_prefix = "") {
    std::vector<std::string> free;
    for (const std::string& x : from)
      if (Free(key_prefix + x, t)) free.push_back(x);
    return free.empty() ? "" : free[dice_.Below(free.size())];
  }

  void Act(double at, ActionKind kind, const std::string& target, const std::string& arg = "") {
    Action a;
    a.at_s = at;
    a.event = static_cast<int>(s_.events.size());
    a.kind = kind;
    a.target = target;
    a.arg = arg;
    s_.actions.push_back(a);
  }

  // The event's start action at `t` and its end `d` s later on
  // e->target, which stays busy under `key` until then.
  void StartEnd(Event* e, double t, double d, ActionKind start, ActionKind end,
                const std::string& key, const std::string& arg = "") {
    e->end_s = t + d;
    Act(t, start, e->target, arg);
    Act(e->end_s, end, e->target);
    busy_[key] = e->end_s;
  }

  bool Add(EventKind kind, double t) {
    Event e;
    e.kind = kind;
    e.at_s = t;
    std::vector<std::string> members = l_.Members();
    std::vector<std::string> killable;
    for (const std::string& m : members)
      if (std::find(l_.long_lived.begin(), l_.long_lived.end(), m) == l_.long_lived.end())
        killable.push_back(m);
    switch (kind) {
      case EventKind::kLinkDownUp: {
        std::vector<std::string> links = l_.hca_links;
        if (Free("uplinks", t)) links.insert(links.end(), l_.uplinks.begin(), l_.uplinks.end());
        e.target = PickFree(links, t, "link:");
        if (e.target.empty()) return false;
        double d = dice_.Seconds(2, 10);
        if (o_.long_outages && e.target.find(':') == std::string::npos) d += 38 + (d - 2) * 1.5;
        e.detail = Fmt("for %.1f s", d);
        StartEnd(&e, t, d, ActionKind::kLinkDown, ActionKind::kLinkUp, "link:" + e.target);
        if (e.target.find(':') != std::string::npos) busy_["uplinks"] = e.end_s;
        break;
      }
      case EventKind::kPortFlap: {
        if (!Free("uplinks", t)) return false;
        e.target = l_.uplinks[dice_.Below(l_.uplinks.size())];
        int flaps = 2 + static_cast<int>(dice_.Below(3));
        double at = t;
        for (int i = 0; i < flaps; ++i) {
          Act(at, ActionKind::kLinkDown, e.target);
          Act(at + 0.5, ActionKind::kLinkUp, e.target);
          at += 1.0;
        }
        e.end_s = at - 0.5;
        e.detail = std::to_string(flaps) + " flaps";
        busy_["uplinks"] = busy_["link:" + e.target] = e.end_s;
        break;
      }
      case EventKind::kKillRestart: {
        e.target = PickFree(killable, t);
        if (e.target.empty()) return false;
        double d = dice_.Seconds(1, 6);
        e.detail = Fmt("down %.1f s", d);
        StartEnd(&e, t, d, ActionKind::kKill, ActionKind::kRestart, e.target);
        break;
      }
      case EventKind::kStopCont: {
        e.target = PickFree(members, t);
        if (e.target.empty()) return false;
        double d = dice_.Seconds(1, 8);
        e.detail = Fmt("stopped %.1f s", d);
        StartEnd(&e, t, d, ActionKind::kStop, ActionKind::kCont, e.target);
        break;
      }
      case EventKind::kFailover: {
        if (!Free("sm", t) || failovers_ >= o_.max_failovers) return false;
        ++failovers_;
        double d = dice_.Seconds(3, 8);
        e.detail = Fmt("new standby after %.1f s", d);
        StartEnd(&e, t, d, ActionKind::kKillMaster, ActionKind::kStartStandby, "sm");
        e.target = "master SM";
        // The new standby needs a while to become one, and the tree to
        // settle, before the next.
        busy_["sm"] = e.end_s + 30;
        break;
      }
      case EventKind::kFaultyRestart: {
        std::vector<std::string> ibssa;
        for (const std::string& m : killable)
          if (l_.IsIbssa(m)) ibssa.push_back(m);
        e.target = PickFree(ibssa, t);
        if (e.target.empty()) return false;
        double d = dice_.Seconds(5, 20);
        std::string spec = FaultSpec(&dice_);
        e.detail = spec + Fmt(" for %.1f s", d);
        StartEnd(&e, t, d, ActionKind::kRestartFaulty, ActionKind::kRestart, e.target, spec);
        break;
      }
      case EventKind::kClientBurst: {
        e.target = PickFree(l_.ibacm, t, "burst:");
        if (e.target.empty()) return false;
        int clients = 50 + static_cast<int>(dice_.Below(251));
        double d = dice_.Seconds(2, 8);
        e.detail = std::to_string(clients) + Fmt(" clients for %.1f s", d);
        StartEnd(&e, t, d, ActionKind::kBurstStart, ActionKind::kBurstEnd, "burst:" + e.target,
                 std::to_string(clients));
        break;
      }
    }
    s_.events.push_back(e);
    return true;
  }

  ScheduleOptions o_;
  SoakLayout l_;
  Dice dice_;
  Schedule s_;
  std::map<std::string, double> busy_;  // target key -> busy until
  int failovers_ = 0;
};

}  // namespace

const char* EventKindName(EventKind kind) {
  switch (kind) {
    case EventKind::kLinkDownUp: return "link_down_up";
    case EventKind::kPortFlap: return "port_flap";
    case EventKind::kKillRestart: return "kill_restart";
    case EventKind::kStopCont: return "stop_cont";
    case EventKind::kFailover: return "sm_failover";
    case EventKind::kFaultyRestart: return "faulty_restart";
    case EventKind::kClientBurst: return "client_burst";
  }
  return "?";
}

const char* ActionKindName(ActionKind kind) {
  switch (kind) {
    case ActionKind::kLinkDown: return "link down";
    case ActionKind::kLinkUp: return "link up";
    case ActionKind::kKill: return "SIGKILL";
    case ActionKind::kRestart: return "restart";
    case ActionKind::kStop: return "SIGSTOP";
    case ActionKind::kCont: return "SIGCONT";
    case ActionKind::kKillMaster: return "SIGKILL the master SM";
    case ActionKind::kStartStandby: return "start a new standby SM";
    case ActionKind::kRestartFaulty: return "restart with faults";
    case ActionKind::kBurstStart: return "client burst";
    case ActionKind::kBurstEnd: return "client burst ends";
  }
  return "?";
}

std::vector<std::string> SoakLayout::Members() const {
  std::vector<std::string> m = {distribution};
  m.insert(m.end(), access.begin(), access.end());
  m.insert(m.end(), ibacm.begin(), ibacm.end());
  return m;
}

SoakLayout SoakLayout::Torus() {
  SoakLayout l;
  l.uplinks = {"T0_0:2", "T1_1:4", "T2_2:3", "T3_1:5"};
  return l;
}

bool SoakLayout::IsIbssa(const std::string& node) const {
  return node == distribution || std::find(access.begin(), access.end(), node) != access.end();
}

std::string Schedule::Describe() const {
  std::string out;
  for (const Action& a : actions) {
    char b[256];
    snprintf(b, sizeof(b), "%7.1f s  #%-3d %-22s %-6s %s(%s)\n", a.at_s, a.event,
             ActionKindName(a.kind), a.target.c_str(), a.arg.empty() ? "" : (a.arg + " ").c_str(),
             EventKindName(events[static_cast<size_t>(a.event)].kind));
    out += b;
  }
  return out;
}

Schedule MakeSchedule(const ScheduleOptions& options, const SoakLayout& layout) {
  return Generator(options, layout).Make();
}

}  // namespace soak
}  // namespace ssa
