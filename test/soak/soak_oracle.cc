// soak_oracle.cc: see soak_oracle.h.
#include "test/soak/soak_oracle.h"

#include <cstdio>
#include <cstring>

#include "common/base/big_endian.h"
#include "util/ib_acme/path_compare.h"

namespace ssa {
namespace soak {

namespace {

constexpr size_t kMaxProblems = 40;
// Unjudged answers are not failures; a few are shown so that a reader can
// see what they were.
constexpr size_t kMaxUnjudgedExamples = 5;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

bool Oracle::Same(const SaAnswer& a, const SaAnswer& b) {
  if (a.path != b.path) return false;
  return !a.path || acme::ComparePaths(a.record, b.record).empty();
}

std::string Oracle::Describe(const SaAnswer& a) {
  if (!a.path) return "no path";
  const ibv_path_record& r = a.record;
  char b[160];
  snprintf(b, sizeof(b), "dlid %u slid %u sl %u mtu %u rate %u life %u pkey 0x%x hops %u",
           FromBe16(r.dlid), FromBe16(r.slid), FromBe16(r.qosclass_sl) & 0xf, r.mtu & 0x3f,
           r.rate & 0x3f, r.packetlifetime & 0x3f, FromBe16(r.pkey),
           FromBe32(r.flowlabel_hoplimit) & 0xff);
  return b;
}

bool Oracle::AddSnapshot(Time change_start, Time recorded, const std::string& label,
                         const SaAnswers& answers, bool unrecorded) {
  // Also when this state equals the current one: what came between did not.
  if (unrecorded && !snaps_.empty()) {
    gaps_.push_back(Gap{change_start, recorded});
    counts_.unrecorded_gaps = gaps_.size();
  }
  if (!snaps_.empty()) {
    const SaAnswers& cur = snaps_.back().answers;
    bool same = cur.size() == answers.size();
    for (auto a = cur.begin(), b = answers.begin(); same && a != cur.end(); ++a, ++b)
      same = a->first == b->first && Same(a->second, b->second);
    if (same) {
      Snapshot& cur_snap = snaps_.back();
      ++cur_snap.merged;
      cur_snap.label =
          cur_snap.first_label + (cur_snap.merged > 1 ? " .. " : ", ") + label +
          (cur_snap.merged > 1 ? " (" + std::to_string(cur_snap.merged + 1) + ")" : "");
      return false;
    }
    snaps_.back().to = recorded;
  } else {
    origin_ = recorded;
    change_start = Time{};  // the first state holds from the beginning
  }
  Snapshot s;
  s.from = change_start;
  s.to = Time::max();
  s.recorded = recorded;
  s.label = s.first_label = label;
  s.answers = answers;
  snaps_.push_back(std::move(s));
  counts_.snapshots = snaps_.size();
  return true;
}

bool Oracle::InGap(Time sent, Time received) const {
  for (auto it = gaps_.rbegin(); it != gaps_.rend(); ++it) {
    if (it->to < sent) return false;  // older ones are older still
    if (it->from <= received) return true;
  }
  return false;
}

void Oracle::SetCompleteUntil(Time t) {
  if (t > complete_until_) complete_until_ = t;
}

const SaAnswer* Oracle::Current(uint16_t slid, uint16_t dlid) const {
  if (snaps_.empty()) return nullptr;
  auto it = snaps_.back().answers.find(PairKey(slid, dlid));
  return it == snaps_.back().answers.end() ? nullptr : &it->second;
}

const std::string& Oracle::current_label() const {
  static const std::string kNone = "none";
  return snaps_.empty() ? kNone : snaps_.back().label;
}

void Oracle::Submit(const DaemonAnswer& answer) {
  std::lock_guard<std::mutex> lock(mu_);
  queue_.push_back(answer);
}

size_t Oracle::pending() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size();
}

void Oracle::CheckReady(const ExcuseFn& excuse) {
  if (snaps_.empty()) return;
  std::deque<DaemonAnswer> ready;
  {
    std::lock_guard<std::mutex> lock(mu_);
    while (!queue_.empty() && queue_.front().received <= complete_until_) {
      ready.push_back(queue_.front());
      queue_.pop_front();
    }
  }
  for (const DaemonAnswer& a : ready) Judge(a, excuse);
}

void Oracle::Problem(const std::string& what) {
  if (problems_.size() < kMaxProblems) problems_.push_back(what);
}

std::string Oracle::SaHistory(uint32_t pair, Time sent) const {
  std::string out;
  for (auto it = snaps_.rbegin(); it != snaps_.rend(); ++it) {
    auto f = it->answers.find(pair);
    char b[64];
    snprintf(b, sizeof(b), "] valid %.3f..",
             it->from == Time{} ? 0.0 : Seconds(it->from - origin_));
    out +=
        "\n      SA state [" + it->label + b +
        (it->to == Time::max() ? std::string("now") : std::to_string(Seconds(it->to - origin_))) +
        " s: " + (f == it->answers.end() ? std::string("(not asked)") : Describe(f->second));
    if (it->to < sent - bound_ - std::chrono::seconds(30)) break;
  }
  return out;
}

void Oracle::Judge(const DaemonAnswer& a, const ExcuseFn& excuse) {
  char head[200];
  std::string who = a.daemon >= 0 && static_cast<size_t>(a.daemon) < names_.size()
                        ? names_[static_cast<size_t>(a.daemon)]
                        : "daemon " + std::to_string(a.daemon);
  snprintf(head, sizeof(head), "%s, %u -> %u, sent at %.3f s, answered at %.3f s: ", who.c_str(),
           a.slid, a.dlid, Seconds(a.sent - origin_), Seconds(a.received - origin_));
  if (a.kind == DaemonAnswer::kNoAnswer) {
    if (excuse(a.daemon, a.sent, a.received).disrupted) {
      ++counts_.unanswered_excused;
    } else {
      ++counts_.unanswered;
      Problem(std::string("UNANSWERED ") + head + "no answer to the " + a.client + " client (" +
              (a.error ? strerror(a.error) : "connection broken or timed out") + ")");
    }
    return;
  }
  ++counts_.checked;
  if (a.kind == DaemonAnswer::kRefused) {
    ++counts_.refused_unconfirmed;
    return;
  }
  SaAnswer got;
  got.path = a.kind == DaemonAnswer::kPath;
  got.record = a.record;
  const uint32_t pair = PairKey(a.slid, a.dlid);
  for (auto it = snaps_.rbegin(); it != snaps_.rend(); ++it) {
    if (it->to < a.sent - bound_) break;  // older ones are older still
    if (it->from > a.received) continue;  // not valid yet when answered
    auto f = it->answers.find(pair);
    if (f == it->answers.end()) continue;
    if (a.kind == DaemonAnswer::kError || !Same(got, f->second)) continue;
    if (it->to >= a.sent) {
      ++counts_.fresh;
    } else if (a.kind == DaemonAnswer::kNoPath && excuse(a.daemon, a.sent, a.received).starting) {
      // A daemon with no PRDB yet says "no path" to everything: equal to
      // an old state by chance, not a late one.
      ++counts_.errors_startup;
    } else {
      ++counts_.stale;
      double late = Seconds(a.sent - it->to);
      if (late > counts_.max_stale_s) {
        counts_.max_stale_s = late;
        stalest_ = std::string("STALE ") + head + Describe(got) + SaHistory(pair, a.sent);
      }
    }
    return;
  }
  if (a.kind != DaemonAnswer::kError && InGap(a.sent, a.received)) {
    // Maybe a state the SA held and the oracle never saw: not judged.
    ++counts_.unjudged;
    if (unjudged_examples_.size() < kMaxUnjudgedExamples)
      unjudged_examples_.push_back(std::string("UNJUDGED ") + head + Describe(got) +
                                   SaHistory(pair, a.sent));
    return;
  }
  if (a.kind == DaemonAnswer::kPath) {
    ++counts_.wrong;
    Problem(std::string("WRONG ") + head + Describe(got) + SaHistory(pair, a.sent));
    return;
  }
  if (excuse(a.daemon, a.sent, a.received).starting) {
    ++counts_.errors_startup;
    return;
  }
  ++counts_.errors_known;
  Problem(std::string("ERROR ") + head + "status " + std::to_string(a.status) +
          SaHistory(pair, a.sent));
}

}  // namespace soak
}  // namespace ssa
