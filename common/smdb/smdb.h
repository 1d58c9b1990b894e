// smdb.h: the subnet database (SMDB) in memory, and its serialization.
//
// An Smdb is the SM's view of the subnet, extracted from OpenSM at an epoch
// and replicated to every node: plain vectors of fixed-size records, one per
// table (schema in smdb_records.h, byte format in smdb_format.h). Consumers
// build their own indexes over it (by LID, by GUID); the records of each
// table are kept sorted by key, so a binary search works without one.
//
// Related: SmdbStreamReader (smdb_stream.h) parses as bytes arrive,
// MakeDelta/ApplyDelta/BumpEpochs (smdb_delta.h) update it between epochs,
// DumpSmdb (smdb_dump.h) prints it.
//
// A plain value: copy or move it; the usual rules of std::vector for
// threads (const methods may run concurrently).
#ifndef IBACM_SSA_COMMON_SMDB_SMDB_H
#define IBACM_SSA_COMMON_SMDB_SMDB_H

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/base/status.h"
#include "common/smdb/smdb_format.h"
#include "common/smdb/smdb_qos_records.h"
#include "common/smdb/smdb_records.h"

namespace ssa {
namespace smdb {

struct Smdb {
  static constexpr DbType kType = DbType::kSmdb;

  uint64_t global_epoch = 0;
  // Exactly one record: a default-constructed Smdb already has it.
  DbTable<SmdbSubnet> subnet{0, {SmdbSubnet{}}};
  DbTable<SmdbGuidLid> guid_lids;
  DbTable<SmdbNode> nodes;
  DbTable<SmdbPort> ports;
  DbTable<SmdbLink> links;
  DbTable<SmdbSwitch> switches;
  DbTable<SmdbLftBlock> lft_blocks;
  DbTable<SmdbPkeyBlock> pkey_blocks;
  DbTable<SmdbPartition> partitions;
  DbTable<SmdbPrefixRoute> prefix_routes;
  // Format minor 1: the QoS policy (smdb_qos_records.h).
  DbTable<SmdbQosLevel> qos_levels;
  DbTable<SmdbQosGroup> qos_groups;
  DbTable<SmdbQosGroupPort> qos_group_ports;
  DbTable<SmdbQosRule> qos_rules;
  DbTable<SmdbQosRuleGroup> qos_rule_groups;
  DbTable<SmdbQosRange> qos_ranges;
  DbTable<SmdbRouteSl> route_sls;
  DbTable<SmdbRouteSlHint> route_sl_hints;
  DbTable<SmdbSl2VlDrop> sl2vl_drops;

  // Calls f(table) for every table, in table-id order (the file order).
  template <class Self, class F>
  static void ForEachTable(Self& db, F&& f) {
    f(db.subnet);
    f(db.guid_lids);
    f(db.nodes);
    f(db.ports);
    f(db.links);
    f(db.switches);
    f(db.lft_blocks);
    f(db.pkey_blocks);
    f(db.partitions);
    f(db.prefix_routes);
    f(db.qos_levels);
    f(db.qos_groups);
    f(db.qos_group_ports);
    f(db.qos_rules);
    f(db.qos_rule_groups);
    f(db.qos_ranges);
    f(db.route_sls);
    f(db.route_sl_hints);
    f(db.sl2vl_drops);
  }
  // The tables this version of the code knows, built from the records.
  static const DbSchema& Schema();

  // Replaces *out; checks that every table is in strict key order and
  // that "subnet" has one record (EINVAL naming the table; *out is then
  // left empty).
  Status Serialize(std::string* out) const;
  // Whole-buffer parse (the same code as the stream reader). `out` is only
  // written on success. Errors name the table and the reason.
  static Status Parse(const uint8_t* data, size_t len, Smdb* out);
  // Writes `path` atomically (a temporary file renamed over it), so a
  // reader never sees half a database.
  Status WriteFile(const std::string& path) const;
  static Status ReadFile(const std::string& path, Smdb* out);

  // Sorts every table by key (stable), for producers that build tables in
  // another order. Duplicate keys stay and make Serialize fail.
  void SortRecords();
};

// Same epochs and same records, field for field.
bool operator==(const Smdb& a, const Smdb& b);
inline bool operator!=(const Smdb& a, const Smdb& b) { return !(a == b); }

}  // namespace smdb
}  // namespace ssa

#endif
