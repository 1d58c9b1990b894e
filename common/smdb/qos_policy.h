// qos_policy.h: the QoS policy of an SMDB (smdb_qos_records.h) indexed for
// the path engine: which qos-level a PathRecord query gets, as OpenSM
// 3.3.23's SA picks it (osm_qos_policy.c, osm_qos_policy_get_qos_level_by_pr):
//
//   - match rules are tried in order; the first that matches wins, and its
//     level applies; no rule matching: the default level;
//   - a rule with source groups only needs the source port in one of them,
//     with destination groups only the destination, with both the source
//     in a source group and the destination in a destination group;
//   - a port is in a group when its node's type is in the group's node
//     types or its port GUID is in the group's port map;
//   - a rule with QoS-class, ServiceID or P_Key ranges matches only a query
//     whose component mask has that field, with a value in a range
//     (P_Key: the base, membership bit clear; ServiceID needs both halves
//     of the mask).
//
// Immutable once built; any thread may call its const methods.
#ifndef IBACM_SSA_COMMON_SMDB_QOS_POLICY_H
#define IBACM_SSA_COMMON_SMDB_QOS_POLICY_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/base/status.h"
#include "common/smdb/smdb.h"

namespace ssa {
namespace smdb {

// The PathRecord query fields the policy matches on (what the request's
// component mask has).
struct QosQuery {
  bool has_pkey = false;
  uint16_t pkey = 0;
  bool has_service_id = false;  // both ServiceID bits of the mask
  uint64_t service_id = 0;
  bool has_qos_class = false;
  uint16_t qos_class = 0;
};

struct QosRange {
  uint64_t lo = 0;
  uint64_t hi = 0;
};

// OpenSM's range-array search over sorted, merged ranges.
bool InRanges(const std::vector<QosRange>& ranges, uint64_t value);

struct QosLevel {
  uint16_t seq = 0;
  uint8_t flags = 0;  // kQosLevel*
  uint8_t sl = 0;
  uint8_t mtu_limit = 0;
  uint8_t rate_limit = 0;
  uint8_t pkt_life = 0;
  std::vector<QosRange> pkeys;  // empty: the level restricts no P_Key
  std::string name;

  bool HasPkey(uint16_t pkey) const { return InRanges(pkeys, pkey & 0x7fff); }
};

class QosPolicy {
 public:
  // nullptr in *out when the SMDB carries no policy (its tables empty).
  // EINVAL, naming the record, for a policy that refers to a level or
  // group it lacks or has no default level.
  static Status Build(const Smdb& db, std::unique_ptr<QosPolicy>* out);

  // The level a query from the port (src_guid on a node of src_type) to
  // (dst_guid, dst_type) gets; never nullptr.
  const QosLevel* Match(const QosQuery& q, uint64_t src_guid, uint8_t src_type, uint64_t dst_guid,
                        uint8_t dst_type) const;
  // Whether some rule looks at ServiceID or QoS class: a query that
  // carries either may then get another level than one without.
  bool matches_service_or_class() const { return matches_service_or_class_; }
  size_t rule_count() const { return rules_.size(); }

 private:
  struct Group {
    uint8_t node_types = 0;
    std::vector<uint64_t> ports;  // sorted port GUIDs
    bool Has(uint64_t guid, uint8_t node_type) const;
  };
  struct Rule {
    const QosLevel* level = nullptr;
    std::vector<const Group*> sources, destinations;
    std::vector<QosRange> pkeys, service_ids, qos_classes;
  };
  static bool AnyHas(const std::vector<const Group*>& groups, uint64_t guid, uint8_t type);

  std::vector<QosLevel> levels_;
  std::vector<Group> groups_;
  std::vector<Rule> rules_;
  const QosLevel* default_level_ = nullptr;
  bool matches_service_or_class_ = false;
};

}  // namespace smdb
}  // namespace ssa

#endif
