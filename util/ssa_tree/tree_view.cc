// tree_view.cc: see tree_view.h.
#include "util/ssa_tree/tree_view.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <functional>
#include <set>

#include "common/metrics/prom_text.h"

namespace ssa {
namespace tree_view {
namespace {

class Parser {
 public:
  explicit Parser(const std::string& t) : t_(t) {}

  Status Members(std::vector<Member>* out) {
    Skip();
    if (!Eat('[')) return Fail("expected '['");
    Skip();
    if (Eat(']')) return End();
    for (;;) {
      Member m;
      Status st = Object(&m);
      if (!st.ok()) return st;
      out->push_back(std::move(m));
      Skip();
      if (Eat(']')) return End();
      if (!Eat(',')) return Fail("expected ',' or ']'");
      Skip();
    }
  }

 private:
  Status Object(Member* m) {
    if (!Eat('{')) return Fail("expected '{'");
    Skip();
    if (Eat('}')) return Status::Ok();
    for (;;) {
      std::string key, value;
      Status st = String(&key);
      if (!st.ok()) return st;
      Skip();
      if (!Eat(':')) return Fail("expected ':'");
      Skip();
      st = i_ < t_.size() && t_[i_] == '"' ? String(&value) : Scalar(&value);
      if (!st.ok()) return st;
      (*m)[key] = value;
      Skip();
      if (Eat('}')) return Status::Ok();
      if (!Eat(',')) return Fail("expected ',' or '}'");
      Skip();
    }
  }

  Status String(std::string* s) {
    if (!Eat('"')) return Fail("expected a string");
    while (i_ < t_.size() && t_[i_] != '"') {
      char c = t_[i_++];
      if (c == '\\') {
        if (i_ >= t_.size()) break;
        c = t_[i_++];
        if (c == 'n')
          c = '\n';
        else if (c == 't')
          c = '\t';
        else if (c == 'u')
          return Fail("\\u escapes are not used by the core");
      }
      s->push_back(c);
    }
    if (!Eat('"')) return Fail("unterminated string");
    return Status::Ok();
  }

  Status Scalar(std::string* s) {
    size_t start = i_;
    while (i_ < t_.size() && (isalnum(static_cast<unsigned char>(t_[i_])) || t_[i_] == '-' ||
                              t_[i_] == '.' || t_[i_] == '+'))
      ++i_;
    if (i_ == start) return Fail("expected a value");
    *s = t_.substr(start, i_ - start);
    return Status::Ok();
  }

  Status End() {
    Skip();
    return i_ == t_.size() ? Status::Ok() : Fail("text after the array");
  }
  void Skip() {
    while (i_ < t_.size() && isspace(static_cast<unsigned char>(t_[i_]))) ++i_;
  }
  bool Eat(char c) {
    if (i_ < t_.size() && t_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  Status Fail(const std::string& why) const {
    return Status::Error(EINVAL, "tree state, byte " + std::to_string(i_) + ": " + why);
  }

  const std::string& t_;
  size_t i_ = 0;
};

}  // namespace

std::string Field(const Member& m, const char* key, const char* def) {
  auto it = m.find(key);
  return it == m.end() ? def : it->second;
}

unsigned long long Number(const Member& m, const char* key) {
  return strtoull(Field(m, key).c_str(), nullptr, 0);
}

long long SignedNumber(const Member& m, const char* key, long long def) {
  auto it = m.find(key);
  return it == m.end() ? def : strtoll(it->second.c_str(), nullptr, 0);
}

const Member* FindCore(const std::vector<Member>& members) {
  for (const Member& m : members)
    if (Field(m, "role", "") == "core") return &m;
  return nullptr;
}

Status ParseMembers(const std::string& json, std::vector<Member>* out) {
  out->clear();
  return Parser(json).Members(out);
}

// A member's parent, as the key its parent is known by: the parent's GUID
// when the core gave one, else its LID.
std::string ParentKey(const Member& m, const char* guid_key, const char* lid_key) {
  std::string g = Field(m, guid_key, "");
  if (!g.empty() && strtoull(g.c_str(), nullptr, 0) != 0)
    return "g" + std::to_string(strtoull(g.c_str(), nullptr, 0));
  return "l" + Field(m, lid_key);
}
std::string SelfKey(const Member& m, bool by_guid) {
  return by_guid ? "g" + std::to_string(Number(m, "guid")) : "l" + Field(m, "lid");
}

std::string StateKey(const std::vector<Member>& members) {
  const Member* core = FindCore(members);
  unsigned long long core_epoch = core ? Number(*core, "epoch") : 0;
  std::vector<std::string> lines;
  for (const Member& m : members) {
    unsigned long long epoch = Number(m, "epoch");
    lines.push_back(Field(m, "role", "?") + " " + Field(m, "lid") + " " + Field(m, "guid") + " " +
                    Field(m, "parent_lid") + " " + Field(m, "backup_lid") + " " +
                    std::to_string(epoch) + " " +
                    std::to_string(core_epoch > epoch ? core_epoch - epoch : 0) + "\n");
  }
  std::sort(lines.begin(), lines.end());
  std::string key;
  for (const std::string& l : lines) key += l;
  return key;
}

std::string RenderText(const std::vector<Member>& members) {
  unsigned long long core_epoch = 0;
  for (const Member& m : members)
    if (Field(m, "role", "") == "core") core_epoch = Number(m, "epoch");
  std::map<std::string, std::vector<const Member*>> children;
  std::set<std::string> keys;
  for (const Member& m : members) {
    keys.insert(SelfKey(m, true));
    keys.insert(SelfKey(m, false));
  }
  std::vector<const Member*> roots;
  for (const Member& m : members) {
    std::string parent = ParentKey(m, "parent_guid", "parent_lid");
    if (Field(m, "role", "") == "core" || !keys.count(parent))
      roots.push_back(&m);
    else
      children[parent].push_back(&m);
  }
  std::string out;
  std::set<const Member*> printed;
  std::function<void(const Member*, int)> print = [&](const Member* m, int depth) {
    if (!printed.insert(m).second) return;
    unsigned long long epoch = Number(*m, "epoch");
    out += std::string(size_t(depth) * 2, ' ') + Field(*m, "role", "?") + " lid " +
           Field(*m, "lid") + " guid " + Field(*m, "guid") + " epoch " + std::to_string(epoch) +
           " (lag " + std::to_string(core_epoch > epoch ? core_epoch - epoch : 0) + ")";
    if (Field(*m, "role", "") != "core")
      out += " parent " + Field(*m, "parent_lid") + " backup " + Field(*m, "backup_lid");
    out += " full " + Field(*m, "full_transfers") + " delta " + Field(*m, "delta_transfers") +
           " sent " + Field(*m, "bytes_sent") + " B refused " + Field(*m, "refused") + "\n";
    for (bool by_guid : {true, false})
      for (const Member* c : children[SelfKey(*m, by_guid)]) print(c, depth + 1);
  };
  for (const Member* r : roots) print(r, 0);
  for (const Member& m : members) print(&m, 0);  // anything left (a cycle)
  return out;
}

std::string RenderPrometheus(const std::vector<Member>& members, std::string* error) {
  using metrics::kCounter;
  using metrics::kGauge;
  using metrics::PromText;
  unsigned long long core_epoch = 0;
  std::map<std::string, int> by_role;
  for (const Member& m : members) {
    if (Field(m, "role", "") == "core") core_epoch = Number(m, "epoch");
    ++by_role[Field(m, "role", "unknown")];
  }
  PromText out;
  out.Family("ibssa_core_members", kGauge, "Members of the tree the core knows, by role.");
  for (const auto& r : by_role) out.Add({{"role", r.first}}, r.second);
  out.Family("ibssa_core_epoch", kGauge, "The newest SMDB epoch the core published.");
  out.Add(static_cast<double>(core_epoch));
  auto labels = [](const Member& m) {
    return metrics::Labels{{"role", Field(m, "role", "unknown")},
                           {"lid", Field(m, "lid")},
                           {"guid", Field(m, "guid")}};
  };
  struct Family {
    const char* key;
    const char* name;
    PromText::Type type;
    const char* help;
  };
  const Family fields[] = {
      {"epoch", "ibssa_core_member_epoch", kGauge, "The SMDB epoch the member holds."},
      {"full_transfers", "ibssa_core_member_full_transfers_total", kCounter,
       "Full database transfers to the member."},
      {"delta_transfers", "ibssa_core_member_delta_transfers_total", kCounter,
       "Delta transfers to the member."},
      {"bytes_sent", "ibssa_core_member_sent_bytes_total", kCounter,
       "Bytes the member's parent sent it."},
      {"refused", "ibssa_core_member_refused_total", kCounter, "Joins of the member refused."},
      {"reconnects", "ibssa_core_member_reparents_total", kCounter,
       "Times the member joined again (a new or backup parent)."},
      {"children", "ibssa_core_member_children", kGauge, "The member's children."},
      {"lease_left_s", "ibssa_core_member_lease_left_seconds", kGauge,
       "Seconds before the member's lease runs out."},
  };
  for (const Family& f : fields) {
    out.Family(f.name, f.type, f.help);
    for (const Member& m : members) out.Add(labels(m), static_cast<double>(Number(m, f.key)));
  }
  out.Family("ibssa_core_member_lag_epochs", kGauge, "Epochs the member is behind the core.");
  for (const Member& m : members)
    out.Add(labels(m), static_cast<double>(
                           core_epoch > Number(m, "epoch") ? core_epoch - Number(m, "epoch") : 0));
  out.Family("ibssa_core_member_has_backup", kGauge, "1 when the member has a backup parent.");
  for (const Member& m : members)
    if (Field(m, "role", "") != "core") out.Add(labels(m), Number(m, "backup_lid") != 0 ? 1 : 0);
  *error = out.error();
  return out.text();
}

std::string RenderDot(const std::vector<Member>& members) {
  std::string out = "digraph ssa_tree {\n  rankdir=BT;\n  node [shape=box];\n";
  auto id = [](const Member& m) {
    return "\"" + Field(m, "role", "") + "_" + Field(m, "lid") + "\"";
  };
  std::map<unsigned long long, std::string> by_lid;
  for (const Member& m : members)
    if (Field(m, "role", "") != "consumer" || !by_lid.count(Number(m, "lid")))
      by_lid[Number(m, "lid")] = id(m);
  for (const Member& m : members) {
    std::string role = Field(m, "role", "?");
    out += "  " + id(m) + " [label=\"" + role + "\\nlid " + Field(m, "lid") + "\\nepoch " +
           Field(m, "epoch") + "\"" + (role == "core" ? ", style=bold" : "") + "];\n";
  }
  for (const Member& m : members) {
    if (Field(m, "role", "") == "core") continue;
    auto parent = by_lid.find(Number(m, "parent_lid"));
    auto backup = by_lid.find(Number(m, "backup_lid"));
    if (parent != by_lid.end() && Number(m, "parent_lid"))
      out += "  " + id(m) + " -> " + parent->second + ";\n";
    if (backup != by_lid.end() && Number(m, "backup_lid"))
      out += "  " + id(m) + " -> " + backup->second + " [style=dashed];\n";
  }
  out += "}\n";
  return out;
}

}  // namespace tree_view
}  // namespace ssa
