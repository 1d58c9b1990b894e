// membership.cc: see membership.h.
#include "common/tree/membership.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <tuple>

#include "common/base/text_util.h"

namespace ssa {
namespace tree {
namespace {

Token NewToken() {
  Token t{};
  RandomBytes(t.data(), t.size());
  return t;
}

std::string Hex(uint64_t v) { return GuidText(v); }

}  // namespace

uint64_t SmdbTopology::OwnerGuid(uint16_t lid) const {
  uint32_t p = index_->PortByLid(lid);
  return p == smdb::SmdbIndex::kNone ? 0 : index_->port(p).port_guid;
}

int SmdbTopology::Hops(uint16_t from, uint16_t to) const {
  uint32_t key = uint32_t{from} << 16 | to;
  auto it = hops_.find(key);
  if (it != hops_.end()) return it->second;
  const smdb::SmdbIndex& x = *index_;
  uint32_t dst = x.PortByLid(to), port = x.PortByLid(from);
  int hops = kFar;
  if (dst != smdb::SmdbIndex::kNone && port != smdb::SmdbIndex::kNone) {
    uint32_t dst_node = x.port(dst).node;
    int n = 0;
    // From a CA port the first hop is its link; a switch starts at itself.
    if (x.node_of(x.port(port)).type != smdb::kNodeSwitch) port = x.port(port).peer;
    while (port != smdb::SmdbIndex::kNone && n < 64) {
      uint32_t node = x.port(port).node;
      if (node == dst_node) {
        hops = n;
        break;
      }
      if (x.nodes()[node].type != smdb::kNodeSwitch) break;
      ++n;
      uint8_t out = x.LftPort(node, to);
      if (out == smdb::kLftNoPath) break;
      uint32_t egress = x.PortOf(node, out);
      if (egress == smdb::SmdbIndex::kNone) break;
      if (out == 0) break;  // the switch's own LID, and it is not `to`'s owner
      port = x.port(egress).peer;
    }
  }
  hops_.emplace(key, hops);
  return hops;
}

Membership::Membership(MembershipOptions options, uint64_t core_guid, uint16_t core_lid,
                       DataAddress core_address)
    : options_(std::move(options)),
      core_guid_(core_guid),
      core_lid_(core_lid),
      core_address_(core_address),
      keys_(NewCoreSecret()) {
  // Every reason Refuse() gives, at 0 until a join is refused so: the
  // metrics (ibssa_core_join_refusals_total{reason}) carry each from the
  // start, so a dashboard's refusals panel has series on a healthy tree.
  for (const char* reason : {"protocol version", "no subnet database yet", "identity",
                             "not allowed", "no data address", "no parent available"})
    refusals_[reason] = 0;
}

LinkKey Membership::LinkKeyOf(uint64_t parent, uint64_t child, const Token& token) const {
  return keys_.Derive(parent, child, token);
}

uint16_t Membership::Refuse(uint16_t status, const std::string& reason, std::string* why,
                            const std::string& detail) {
  ++refusals_[reason];
  if (why) *why = reason + (detail.empty() ? "" : ": " + detail);
  return status;
}

bool Membership::Allowed(const JoinRequest& r, std::string* why) const {
  if ((r.roles & kRoleDistribution) && !options_.allow_distribution.empty() &&
      !options_.allow_distribution.count(r.port_guid)) {
    *why = "not in allow_distribution";
    return false;
  }
  if ((r.roles & kRoleAccess) && !options_.allow_access.empty() &&
      !options_.allow_access.count(r.port_guid)) {
    *why = "not in allow_access";
    return false;
  }
  return true;
}

size_t Membership::ChildrenOf(uint64_t guid) const {
  auto it = kids_.find(guid);
  return it == kids_.end() ? 0 : it->second.size();
}

ParentInfo Membership::InfoOf(uint64_t guid) const {
  ParentInfo p;
  if (guid == 0) return p;
  p.guid = guid;
  if (guid == core_guid_) {
    p.lid = core_lid_;
    p.address = core_address_;
    return p;
  }
  const Member* m = Find(guid);
  if (m) {
    p.lid = m->lid;
    p.address = m->address;
  }
  return p;
}

std::vector<uint64_t> Membership::Candidates(const Member& m) const {
  // Who may parent this role, and its fan-out limit.
  uint8_t want;
  int fanout;
  if (m.roles & kRoleDistribution) return {core_guid_};
  if (m.roles & kRoleAccess) {
    want = kRoleDistribution;
    fanout = options_.fanout_distribution;
  } else {
    want = kRoleAccess;
    fanout = options_.fanout_access;
  }
  struct Cand {
    bool full;
    int hops;
    size_t kids;
    uint64_t guid;
  };
  std::vector<Cand> c;
  for (uint64_t g : parents_) {
    auto pit = members_.find(g);
    if (pit == members_.end()) continue;
    const Member& p = pit->second;
    if (!(p.roles & want) || p.guid == m.guid || lost_.count(p.guid) || p.address.empty()) continue;
    size_t kids =
        ChildrenOf(p.guid) - (kids_.count(p.guid) && kids_.at(p.guid).count(m.guid) ? 1 : 0);
    int hops = want == kRoleAccess && topology_ ? topology_->Hops(m.lid, p.lid) : 0;
    c.push_back({kids >= static_cast<size_t>(fanout), hops, kids, p.guid});
  }
  std::sort(c.begin(), c.end(), [](const Cand& a, const Cand& b) {
    return std::tie(a.full, a.hops, a.kids, a.guid) < std::tie(b.full, b.hops, b.kids, b.guid);
  });
  std::vector<uint64_t> out;
  for (const Cand& x : c) out.push_back(x.guid);
  // Access nodes fall back to the core when no distribution node exists.
  if ((m.roles & kRoleAccess) && (out.empty() || c.front().full))
    out.insert(out.begin(), core_guid_);
  return out;
}

void Membership::Assign(Member* m) {
  std::vector<uint64_t> c = Candidates(*m);
  uint64_t parent = c.empty() ? 0 : c[0];
  SetParent(m, parent);
  m->backup = c.size() > 1 ? c[1] : 0;
}

// The indexes below follow the members' own fields, and only these three
// functions (and Join's lost_ marks) write them: parents_ holds the members
// whose roles may parent, kids_[p] exactly the members whose `parent` is p
// (a parent that leaves or expires keeps its entry while its children
// still name it: they move when they next join, and a new life of it
// counts them meanwhile), lost_ only members and the core.
Member* Membership::Add(uint64_t guid, uint8_t roles) {
  Member& m = members_[guid];
  m.guid = guid;
  m.roles = roles;
  if (roles & (kRoleDistribution | kRoleAccess))
    parents_.insert(guid);
  else
    parents_.erase(guid);
  return &m;
}

void Membership::SetParent(Member* m, uint64_t parent) {
  if (m->parent == parent) return;
  if (m->parent) {
    auto k = kids_.find(m->parent);
    if (k != kids_.end() && k->second.erase(m->guid) && k->second.empty()) kids_.erase(k);
  }
  if (parent) kids_[parent].insert(m->guid);
  m->parent = parent;
}

std::map<uint64_t, Member>::iterator Membership::Remove(std::map<uint64_t, Member>::iterator it) {
  SetParent(&it->second, 0);
  parents_.erase(it->first);
  lost_.erase(it->first);
  return members_.erase(it);
}

bool Membership::IndexesAgree() const {
  std::set<uint64_t> parents;
  std::map<uint64_t, std::set<uint64_t>> kids;
  for (const auto& kv : members_) {
    if (kv.second.roles & (kRoleDistribution | kRoleAccess)) parents.insert(kv.first);
    if (kv.second.parent) kids[kv.second.parent].insert(kv.first);
  }
  for (uint64_t g : lost_)
    if (g != core_guid_ && !members_.count(g)) return false;
  return parents == parents_ && kids == kids_;
}

uint16_t Membership::Join(const JoinRequest& r, uint16_t slid, Clock::time_point now,
                          JoinAnswer* answer, std::string* why) {
  if (r.protocol != kProtocolVersion)
    return Refuse(kStatusBadVersion, "protocol version", why, std::to_string(r.protocol));
  if (!topology_) return Refuse(kStatusRetry, "no subnet database yet", why, "");
  uint64_t owner = topology_->OwnerGuid(slid);
  if (owner != r.port_guid)
    return Refuse(
        kStatusIdentity, "identity", why,
        "LID " + std::to_string(slid) + " belongs to " + Hex(owner) + ", not " + Hex(r.port_guid));
  std::string not_allowed;
  if (!Allowed(r, &not_allowed)) return Refuse(kStatusNotAllowed, "not allowed", why, not_allowed);
  if (r.roles != kRoleConsumer && r.data_address.empty())
    return Refuse(kStatusInvalidField, "no data address", why, RolesName(r.roles));

  // Only members and the core are marked (a report naming anything else
  // would only grow the set); a member's mark goes when it speaks or
  // leaves the book.
  if (r.lost_parent == core_guid_ || members_.count(r.lost_parent)) lost_.insert(r.lost_parent);
  lost_.erase(r.port_guid);  // it is alive: it just spoke
  auto it = members_.find(r.port_guid);
  bool renewal = it != members_.end() && it->second.token == r.token;
  // Restarted (or another process on the port): a fresh membership.
  if (it != members_.end() && !renewal) it = Remove(it);
  const bool fresh = !renewal;
  const bool role_changed = renewal && it->second.roles != r.roles;
  Member& m = *Add(r.port_guid, r.roles);
  if (fresh) m.token = NewToken();
  m.lid = slid;
  m.gid = r.port_gid;
  m.address = r.data_address;
  m.software = r.software;
  m.epoch = r.epoch;
  m.counters = r.counters;
  m.expires = now + std::chrono::seconds(options_.lease_s);
  ++m.joins;
  // Keep a working parent: moving children around costs transfers.
  bool keep = renewal && !role_changed && m.parent && m.parent != r.lost_parent &&
              !lost_.count(m.parent) && (m.parent == core_guid_ || members_.count(m.parent));
  if (keep) {
    std::vector<uint64_t> c = Candidates(m);
    m.backup = 0;
    for (uint64_t g : c)
      if (g != m.parent) {
        m.backup = g;
        break;
      }
  } else {
    Assign(&m);
  }
  if (!m.parent) {
    Remove(members_.find(m.guid));
    return Refuse(kStatusRetry, "no parent available", why, RolesName(r.roles));
  }
  answer->parent = InfoOf(m.parent);
  answer->backup = InfoOf(m.backup);
  answer->token = m.token;
  auto key = [&](uint64_t parent, Member::KeyFor* k) {
    if (parent && k->guid != parent) *k = {parent, LinkKeyOf(parent, m.guid, m.token)};
    return parent ? k->key : LinkKey{};
  };
  answer->parent.key = key(m.parent, &m.parent_key);
  answer->backup.key = key(m.backup, &m.backup_key);
  answer->core_key = key(core_guid_, &m.core_key);
  answer->smdb_sha256 = core_sha256_;
  answer->lease_s = static_cast<uint32_t>(options_.lease_s);
  answer->renew_s = static_cast<uint32_t>(std::max(1, options_.lease_s / 3));
  answer->core_epoch = core_epoch_;
  return 0;
}

uint16_t Membership::Leave(const LeaveRequest& r) {
  auto it = members_.find(r.port_guid);
  if (it == members_.end() || it->second.token != r.token) return kStatusUnknownMember;
  Remove(it);
  return 0;
}

TokenCheckAnswer Membership::CheckToken(const TokenCheckRequest& r, Clock::time_point now) const {
  TokenCheckAnswer a;
  const Member* m = Find(r.child_guid);
  if (!m || m->expires <= now) {
    bool elsewhere = false;
    for (const auto& kv : members_) elsewhere |= kv.second.token == r.token;
    a.reason = elsewhere ? kCheckWrongGuid : kCheckUnknownToken;
    return a;
  }
  if (m->token != r.token) {
    a.reason = kCheckUnknownToken;
    return a;
  }
  // Its backup may serve it too: children switch to it at once.
  if (m->parent != r.parent_guid && m->backup != r.parent_guid) {
    a.reason = kCheckWrongParent;
    return a;
  }
  a.valid = true;
  a.key = LinkKeyOf(r.parent_guid, r.child_guid, r.token);
  a.roles = m->roles;
  a.lease_left_s = static_cast<uint32_t>(
      std::chrono::duration_cast<std::chrono::seconds>(m->expires - now).count());
  return a;
}

bool Membership::HoldsToken(uint64_t guid, const Token& token, uint8_t role,
                            Clock::time_point now) const {
  const Member* m = Find(guid);
  return m && m->expires > now && m->token == token && (m->roles & role);
}

std::map<uint64_t, std::vector<uint64_t>> Membership::ConsumersServed(uint8_t role) const {
  std::map<uint64_t, std::vector<uint64_t>> out;
  auto serves = [&](uint64_t parent) {
    const Member* p = parent ? Find(parent) : nullptr;
    return p && (p->roles & role);
  };
  // members_ is ordered by GUID, so every list comes out ascending.
  for (const auto& kv : members_) {
    const Member& m = kv.second;
    if (!(m.roles & kRoleConsumer)) continue;
    if (serves(m.parent)) out[m.parent].push_back(m.guid);
    if (m.backup != m.parent && serves(m.backup)) out[m.backup].push_back(m.guid);
  }
  return out;
}

size_t Membership::Expire(Clock::time_point now) {
  size_t n = 0;
  for (auto it = members_.begin(); it != members_.end();) {
    if (it->second.expires <= now) {
      it = Remove(it);
      ++n;
    } else {
      ++it;
    }
  }
  return n;
}

const Member* Membership::Find(uint64_t guid) const {
  auto it = members_.find(guid);
  return it == members_.end() ? nullptr : &it->second;
}

std::map<std::string, size_t> Membership::CountByRole() const {
  std::map<std::string, size_t> by_role;
  for (const auto& kv : members_) ++by_role[RolesName(kv.second.roles)];
  return by_role;
}

std::string Membership::ToJson(Clock::time_point now) const {
  auto entry = [](const std::string& role, uint64_t guid, uint16_t lid, const ParentInfo& parent,
                  const ParentInfo& backup, uint64_t epoch, const MemberCounters& c,
                  const std::string& address, long lease_left) {
    char b[768];
    snprintf(b, sizeof(b),
             "  {\"role\": \"%s\", \"guid\": \"%s\", \"lid\": %u, \"parent_guid\": \"%s\", "
             "\"parent_lid\": %u, "
             "\"backup_guid\": \"%s\", \"backup_lid\": %u, \"epoch\": %" PRIu64
             ", \"address\": \"%s\", "
             "\"lease_left_s\": %ld, \"full_transfers\": %" PRIu64 ", \"delta_transfers\": %" PRIu64
             ", \"bytes_sent\": %" PRIu64 ", \"refused\": %" PRIu64
             ", \"children\": %u, \"reconnects\": %u}",
             role.c_str(), Hex(guid).c_str(), lid, Hex(parent.guid).c_str(), parent.lid,
             Hex(backup.guid).c_str(), backup.lid, epoch, address.c_str(), lease_left,
             c.full_transfers, c.delta_transfers, c.bytes_sent, c.refused, c.children,
             c.reconnects);
    return std::string(b);
  };
  MemberCounters core = core_counters_;
  core.children = static_cast<uint32_t>(ChildrenOf(core_guid_));
  std::string out = "[\n" + entry("core", core_guid_, core_lid_, {}, {}, core_epoch_, core,
                                  core_address_.ToString(), -1);
  // The core's own facts, for health checks: the limits its members are
  // held to, and whether its versions keep coming.
  auto ago = [now](Clock::time_point t) {
    return t == Clock::time_point()
               ? -1L
               : static_cast<long>(
                     std::chrono::duration_cast<std::chrono::seconds>(now - t).count());
  };
  char facts[320];
  snprintf(facts, sizeof(facts),
           ", \"fanout_core\": %d, \"fanout_distribution\": %d, \"fanout_access\": %d, "
           "\"requested_s_ago\": %ld, \"extracted_s_ago\": %ld, \"published_s_ago\": %ld, "
           "\"produced_epoch\": %" PRIu64 "}",
           options_.fanout_core, options_.fanout_distribution, options_.fanout_access,
           ago(core_activity_.requested), ago(core_activity_.extracted),
           ago(core_activity_.published), core_activity_.produced_epoch);
  out.pop_back();  // the entry's closing brace
  out += facts;
  for (const auto& kv : members_) {
    const Member& m = kv.second;
    MemberCounters c = m.counters;
    long left = static_cast<long>(
        std::chrono::duration_cast<std::chrono::seconds>(m.expires - now).count());
    out += ",\n" + entry(RolesName(m.roles), m.guid, m.lid, InfoOf(m.parent), InfoOf(m.backup),
                         m.epoch, c, m.address.ToString(), left);
  }
  return out + "\n]\n";
}

}  // namespace tree
}  // namespace ssa
