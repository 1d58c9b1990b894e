// tree_check.cc: see tree_check.h.
#include "util/ssa_tree/tree_check.h"

#include <algorithm>

namespace ssa {
namespace tree_view {

namespace {

std::string Who(const Member& m) {
  return Field(m, "role", "?") + " lid " + Field(m, "lid") + " guid " + Field(m, "guid", "?");
}

// The fan-out limit of a parent of `role`: the option, else the core's.
unsigned long long FanoutOf(const Member* core, const std::string& role, int option) {
  if (option > 0) return static_cast<unsigned long long>(option);
  if (!core) return 0;
  if (role == "core") return Number(*core, "fanout_core");
  if (role == "access" || role == "distribution,access") return Number(*core, "fanout_access");
  if (role == "distribution") return Number(*core, "fanout_distribution");
  return 0;
}

class Checker {
 public:
  Checker(const std::vector<Member>& members, const CheckOptions& o) : members_(members), o_(o) {}

  CheckResult Run() {
    const Member* core = FindCore(members_);
    if (!core) {
      Add(Severity::kCritical, "no core in the tree's state");
    } else {
      CheckCore(*core);
      for (const Member& m : members_)
        if (&m != core) CheckMember(*core, m);
    }
    for (const Member& m : members_) CheckLoad(core, m);
    std::stable_sort(r_.findings.begin(), r_.findings.end(),
                     [](const Finding& a, const Finding& b) { return a.severity > b.severity; });
    Summarize(core);
    return r_;
  }

 private:
  void Add(Severity s, const std::string& text) {
    r_.findings.push_back({s, text});
    r_.status = std::max(r_.status, s);
  }

  void CheckCore(const Member& core) {
    unsigned long long epoch = Number(core, "epoch");
    if (epoch == 0) Add(Severity::kCritical, "core: holds no SMDB yet");
    // -1: never (or a core too old to say).
    long long requested = SignedNumber(core, "requested_s_ago", -1);
    long long extracted = SignedNumber(core, "extracted_s_ago", -1);
    if (requested > o_.grace_s && (extracted < 0 || extracted > requested))
      Add(Severity::kCritical, "core: no version made since OpenSM asked for one " +
                                   std::to_string(requested) + " s ago");
    unsigned long long produced = Number(core, "produced_epoch");
    if (produced > epoch && extracted > o_.grace_s)
      Add(Severity::kCritical, "core: made epoch " + std::to_string(produced) + " " +
                                   std::to_string(extracted) + " s ago but serves epoch " +
                                   std::to_string(epoch));
  }

  void CheckMember(const Member& core, const Member& m) {
    std::string role = Field(m, "role", "?");
    unsigned long long core_epoch = Number(core, "epoch"), epoch = Number(m, "epoch");
    long long published = SignedNumber(core, "published_s_ago", -1);
    // Unknown publication time (an old core): the lag counts at once.
    if (epoch < core_epoch && (published < 0 || published > o_.grace_s)) {
      bool parent = role != "consumer";
      std::string since =
          published < 0 ? "" : ", published " + std::to_string(published) + " s ago";
      Add(parent ? Severity::kCritical : Severity::kWarning,
          Who(m) + ": at epoch " + std::to_string(epoch) + ", " +
              std::to_string(core_epoch - epoch) + " behind the core's " +
              std::to_string(core_epoch) + since + (parent ? " (its subtree is stale)" : ""));
    }
    if (role == "consumer" && o_.backup_required && Number(m, "backup_lid") == 0)
      Add(Severity::kWarning, Who(m) + ": no backup parent");
    unsigned long long reparents = Number(m, "reconnects");
    if (o_.repeat > 0 && reparents >= static_cast<unsigned long long>(o_.repeat))
      Add(Severity::kWarning,
          Who(m) + ": re-parented " + std::to_string(reparents) + " times since it started");
  }

  // Any member, the core too: parents over their limit, refusing children.
  void CheckLoad(const Member* core, const Member& m) {
    std::string role = Field(m, "role", "?");
    unsigned long long children = Number(m, "children");
    unsigned long long limit = FanoutOf(core, role, o_.fanout);
    if (limit && children > limit)
      Add(Severity::kWarning, Who(m) + ": " + std::to_string(children) +
                                  " children, over the fan-out limit of " + std::to_string(limit));
    // The core's count includes the "retry" answers every member gets
    // before the first SMDB: its refusals are in its metrics instead.
    unsigned long long refused = Number(m, "refused");
    if (role != "core" && o_.repeat > 0 && refused >= static_cast<unsigned long long>(o_.repeat))
      Add(Severity::kWarning, Who(m) + ": refused " + std::to_string(refused) +
                                  " children's connections or joins since it started");
  }

  void Summarize(const Member* core) {
    size_t count[3] = {0, 0, 0};
    for (const Finding& f : r_.findings) ++count[static_cast<int>(f.severity)];
    std::string s = std::string("SSA TREE ") + SeverityName(r_.status) + " - " +
                    std::to_string(members_.size()) + " members";  // as drawn, the core too
    if (core) s += ", core epoch " + Field(*core, "epoch");
    if (r_.findings.empty())
      s += ", no findings";
    else
      s += ", " + std::to_string(count[2]) + " critical, " + std::to_string(count[1]) + " warning";
    r_.summary = s;
  }

  const std::vector<Member>& members_;
  CheckOptions o_;
  CheckResult r_;
};

}  // namespace

const char* SeverityName(Severity s) {
  switch (s) {
    case Severity::kOk: return "OK";
    case Severity::kWarning: return "WARNING";
    case Severity::kCritical: return "CRITICAL";
  }
  return "UNKNOWN";
}

CheckResult CheckTree(const std::vector<Member>& members, const CheckOptions& options) {
  return Checker(members, options).Run();
}

std::string RenderCheck(const CheckResult& result) {
  std::string out;
  for (const Finding& f : result.findings)
    out += std::string(SeverityName(f.severity)) + ": " + f.text + "\n";
  return out + result.summary + "\n";
}

}  // namespace tree_view
}  // namespace ssa
