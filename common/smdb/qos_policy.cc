// qos_policy.cc: QosPolicy (qos_policy.h).
#include "common/smdb/qos_policy.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace ssa {
namespace smdb {

bool InRanges(const std::vector<QosRange>& r, uint64_t v) {
  // OpenSM's __is_num_in_range_arr: both ends close in on the value; the
  // answer is that of a plain search as long as the ranges are sorted and
  // disjoint, which OpenSM's parser makes them.
  if (r.empty()) return false;
  long i = 0, j = static_cast<long>(r.size()) - 1;
  while (i <= j) {
    if (v < r[static_cast<size_t>(i)].lo || v > r[static_cast<size_t>(j)].hi) return false;
    if (v <= r[static_cast<size_t>(i)].hi || v >= r[static_cast<size_t>(j)].lo) return true;
    long mid = i + (j - i + 1) / 2;
    if (v < r[static_cast<size_t>(mid)].lo)
      j = mid;
    else if (v > r[static_cast<size_t>(mid)].hi)
      i = mid;
    else
      return true;
    ++i;
    --j;
  }
  return false;
}

bool QosPolicy::Group::Has(uint64_t guid, uint8_t node_type) const {
  if (node_type < 8 && (node_types & (1u << node_type))) return true;
  return std::binary_search(ports.begin(), ports.end(), guid);
}

bool QosPolicy::AnyHas(const std::vector<const Group*>& groups, uint64_t guid, uint8_t type) {
  for (const Group* g : groups)
    if (g->Has(guid, type)) return true;
  return false;
}

Status QosPolicy::Build(const Smdb& db, std::unique_ptr<QosPolicy>* out) {
  out->reset();
  if (db.qos_levels.records.empty()) return Status::Ok();
  auto p = std::unique_ptr<QosPolicy>(new QosPolicy());
  auto bad = [](const std::string& what) { return Status::Error(EINVAL, "QoS policy: " + what); };

  // Levels and groups are addressed by seq; the tables are sorted by it.
  for (const SmdbQosLevel& r : db.qos_levels.records) {
    QosLevel l;
    l.seq = r.seq;
    l.flags = r.flags;
    l.sl = r.sl;
    l.mtu_limit = r.mtu_limit;
    l.rate_limit = r.rate_limit;
    l.pkt_life = r.pkt_life;
    l.name.assign(r.name.data(), strnlen(r.name.data(), r.name.size()));
    p->levels_.push_back(std::move(l));
  }
  auto level = [&p](uint16_t seq) -> QosLevel* {
    auto it = std::lower_bound(p->levels_.begin(), p->levels_.end(), seq,
                               [](const QosLevel& l, uint16_t s) { return l.seq < s; });
    return it != p->levels_.end() && it->seq == seq ? &*it : nullptr;
  };
  std::vector<uint16_t> group_seqs;
  for (const SmdbQosGroup& r : db.qos_groups.records) {
    group_seqs.push_back(r.seq);
    p->groups_.emplace_back();
    p->groups_.back().node_types = r.node_types;
  }
  auto group = [&](uint16_t seq) -> Group* {
    auto it = std::lower_bound(group_seqs.begin(), group_seqs.end(), seq);
    return it != group_seqs.end() && *it == seq ? &p->groups_[it - group_seqs.begin()] : nullptr;
  };
  for (const SmdbQosGroupPort& r : db.qos_group_ports.records) {
    Group* g = group(r.group);
    if (!g) return bad("a port of group " + std::to_string(r.group) + ", which is not listed");
    g->ports.push_back(r.port_guid);  // sorted: the table's key order
  }
  std::vector<uint16_t> rule_seqs;
  for (const SmdbQosRule& r : db.qos_rules.records) {
    rule_seqs.push_back(r.seq);
    p->rules_.emplace_back();
    p->rules_.back().level = level(r.level);
    if (!p->rules_.back().level)
      return bad("rule " + std::to_string(r.seq) + " has level " + std::to_string(r.level) +
                 ", which is not listed");
  }
  auto rule = [&](uint16_t seq) -> Rule* {
    auto it = std::lower_bound(rule_seqs.begin(), rule_seqs.end(), seq);
    return it != rule_seqs.end() && *it == seq ? &p->rules_[it - rule_seqs.begin()] : nullptr;
  };
  for (const SmdbQosRuleGroup& r : db.qos_rule_groups.records) {
    Rule* ru = rule(r.rule);
    const Group* g = group(r.group);
    if (!ru || !g)
      return bad("rule group (" + std::to_string(r.rule) + ", " + std::to_string(r.group) +
                 ") names a rule or group that is not listed");
    (r.side == kQosSource ? ru->sources : ru->destinations).push_back(g);
  }
  for (const SmdbQosRange& r : db.qos_ranges.records) {
    std::vector<QosRange>* v = nullptr;
    if (r.owner_kind == kQosOwnerLevel && r.kind == kQosRangePkey) {
      QosLevel* l = level(r.owner);
      if (l) v = &l->pkeys;
    } else if (r.owner_kind == kQosOwnerRule) {
      Rule* ru = rule(r.owner);
      if (ru && r.kind == kQosRangePkey) v = &ru->pkeys;
      if (ru && r.kind == kQosRangeServiceId) v = &ru->service_ids;
      if (ru && r.kind == kQosRangeQosClass) v = &ru->qos_classes;
    }
    if (!v)
      return bad("range of owner (" + std::to_string(r.owner_kind) + ", " +
                 std::to_string(r.owner) + ") kind " + std::to_string(r.kind) +
                 " has no such owner");
    v->push_back(QosRange{r.lo, r.hi});  // in OpenSM's order: the table's key order
  }
  for (const QosLevel& l : p->levels_)
    if (l.flags & kQosLevelDefault) p->default_level_ = &l;
  if (!p->default_level_) return bad("no default level");
  for (const Rule& r : p->rules_)
    p->matches_service_or_class_ |= !r.service_ids.empty() || !r.qos_classes.empty();
  *out = std::move(p);
  return Status::Ok();
}

const QosLevel* QosPolicy::Match(const QosQuery& q, uint64_t src_guid, uint8_t src_type,
                                 uint64_t dst_guid, uint8_t dst_type) const {
  for (const Rule& r : rules_) {
    bool src = !r.sources.empty(), dst = !r.destinations.empty();
    if (src && !AnyHas(r.sources, src_guid, src_type)) continue;
    if (dst && !AnyHas(r.destinations, dst_guid, dst_type)) continue;
    if (!r.qos_classes.empty() && !(q.has_qos_class && InRanges(r.qos_classes, q.qos_class)))
      continue;
    if (!r.service_ids.empty() && !(q.has_service_id && InRanges(r.service_ids, q.service_id)))
      continue;
    if (!r.pkeys.empty() && !(q.has_pkey && InRanges(r.pkeys, q.pkey & 0x7fff))) continue;
    return r.level;
  }
  return default_level_;
}

}  // namespace smdb
}  // namespace ssa
