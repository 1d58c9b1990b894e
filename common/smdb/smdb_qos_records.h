// smdb_qos_records.h: the SMDB tables of format minor 1, what the SA's SL
// and limits depend on beyond the routes: OpenSM's parsed QoS policy, and
// (at the end of this file) the routing engine's path SLs.
//
// The QoS tables carry OpenSM's parsed QoS policy
// (qos-policy.conf as OpenSM holds it after parsing: osm_qos_policy_t), so
// that the path engine answers PathRecords as the SA does with QoS on
// (osm_sa_path_record.c applies the qos-level of the first match rule the
// query matches, else the default level). Format minor 1; smdb_records.h
// has the rest of the schema and the rules every table follows.
//
// The policy is flattened into fixed-size records:
//   - qos_levels: every level a rule or the default can reach, in OpenSM's
//     list order (seq), then levels that live outside the list (the 16
//     "simple" levels the qos-ulps section's rules use, the qos-ulps
//     default), one flagged kQosLevelDefault;
//   - qos_groups and qos_group_ports: port groups as OpenSM resolved them
//     when it parsed the file (node types as a mask, everything else, GUIDs,
//     names, partitions, as the port GUIDs in its port map);
//   - qos_rules and qos_rule_groups: match rules in order (first match
//     wins), their level and their source and destination groups;
//   - qos_ranges: the P_Key, ServiceID and QoS-class ranges of rules and the
//     P_Key ranges of levels, in OpenSM's (sorted, merged) order.
// The tables are empty when QoS is off or no policy file is loaded;
// SmdbSubnet::flags says which (kSubnetQosPolicy, kSubnetQosTables).
//
// Plain data, like smdb_records.h.
#ifndef IBACM_SSA_COMMON_SMDB_SMDB_QOS_RECORDS_H
#define IBACM_SSA_COMMON_SMDB_SMDB_QOS_RECORDS_H

#include <array>
#include <cstdint>

#include "common/smdb/qos_level_flags.h"
#include "common/smdb/smdb_fields.h"

namespace ssa {
namespace smdb {

// SmdbQosLevel::flags: which limits the level sets (OpenSM's *_set); the
// values are qos_level_flags.h's, which the plugin's C walk sets.
constexpr uint8_t kQosLevelSl = SMDB_QOS_LEVEL_SL;
constexpr uint8_t kQosLevelMtu = SMDB_QOS_LEVEL_MTU;
constexpr uint8_t kQosLevelRate = SMDB_QOS_LEVEL_RATE;
constexpr uint8_t kQosLevelLife = SMDB_QOS_LEVEL_LIFE;
constexpr uint8_t kQosLevelDefault = SMDB_QOS_LEVEL_DEFAULT;  // the policy's default level

// Table 11 "qos_levels", keyed by position.
struct SmdbQosLevel {
  static constexpr uint16_t kTableId = 11;
  static constexpr const char* kTableName = "qos_levels";
  static constexpr const char* kRecordName = "qos_level";
  static constexpr int kKeyFields = 1;
  static constexpr uint16_t kSinceMinor = 1;

  uint16_t seq = 0;
  uint8_t flags = 0;       // kQosLevel*
  uint8_t sl = 0;          // with kQosLevelSl
  uint8_t mtu_limit = 0;   // IBA MTU code, with kQosLevelMtu
  uint8_t rate_limit = 0;  // IBA rate code, with kQosLevelRate
  uint8_t pkt_life = 0;    // PacketLifeTime code, with kQosLevelLife
  std::array<char, 32> name{};

  template <class Self, class V>
  static constexpr void Fields(Self& r, V& v) {
    v.Num("seq", r.seq);
    v.Hex("flags", r.flags);
    v.Num("sl", r.sl);
    v.Num("mtu_limit", r.mtu_limit);
    v.Num("rate_limit", r.rate_limit);
    v.Num("pkt_life", r.pkt_life);
    v.Text("name", r.name);
  }
};

// Table 12 "qos_groups", keyed by position (what rules refer to).
struct SmdbQosGroup {
  static constexpr uint16_t kTableId = 12;
  static constexpr const char* kTableName = "qos_groups";
  static constexpr const char* kRecordName = "qos_group";
  static constexpr int kKeyFields = 1;
  static constexpr uint16_t kSinceMinor = 1;

  uint16_t seq = 0;
  uint8_t node_types = 0;  // bit (1 << node type): every port of such nodes is a member
  std::array<char, 32> name{};

  template <class Self, class V>
  static constexpr void Fields(Self& r, V& v) {
    v.Num("seq", r.seq);
    v.Hex("node_types", r.node_types);
    v.Text("name", r.name);
  }
};

// Table 13 "qos_group_ports": the ports OpenSM listed in a group's port map.
struct SmdbQosGroupPort {
  static constexpr uint16_t kTableId = 13;
  static constexpr const char* kTableName = "qos_group_ports";
  static constexpr const char* kRecordName = "qos_group_port";
  static constexpr int kKeyFields = 2;
  static constexpr uint16_t kSinceMinor = 1;

  uint16_t group = 0;  // SmdbQosGroup::seq
  uint64_t port_guid = 0;

  template <class Self, class V>
  static constexpr void Fields(Self& r, V& v) {
    v.Num("group", r.group);
    v.Hex("port_guid", r.port_guid);
  }
};

// Table 14 "qos_rules": match rules in OpenSM's order.
struct SmdbQosRule {
  static constexpr uint16_t kTableId = 14;
  static constexpr const char* kTableName = "qos_rules";
  static constexpr const char* kRecordName = "qos_rule";
  static constexpr int kKeyFields = 1;
  static constexpr uint16_t kSinceMinor = 1;

  uint16_t seq = 0;
  uint16_t level = 0;  // SmdbQosLevel::seq

  template <class Self, class V>
  static constexpr void Fields(Self& r, V& v) {
    v.Num("seq", r.seq);
    v.Num("level", r.level);
  }
};

// SmdbQosRuleGroup::side.
constexpr uint8_t kQosSource = 0, kQosDestination = 1;

// Table 15 "qos_rule_groups": a rule's source and destination groups.
struct SmdbQosRuleGroup {
  static constexpr uint16_t kTableId = 15;
  static constexpr const char* kTableName = "qos_rule_groups";
  static constexpr const char* kRecordName = "qos_rule_group";
  static constexpr int kKeyFields = 3;
  static constexpr uint16_t kSinceMinor = 1;

  uint16_t rule = 0;  // SmdbQosRule::seq
  uint8_t side = 0;   // kQosSource, kQosDestination
  uint16_t pos = 0;
  uint16_t group = 0;  // SmdbQosGroup::seq

  template <class Self, class V>
  static constexpr void Fields(Self& r, V& v) {
    v.Num("rule", r.rule);
    v.Num("side", r.side);
    v.Num("pos", r.pos);
    v.Num("group", r.group);
  }
};

// SmdbQosRange::owner_kind and ::kind.
constexpr uint8_t kQosOwnerLevel = 0, kQosOwnerRule = 1;
constexpr uint8_t kQosRangePkey = 0, kQosRangeServiceId = 1, kQosRangeQosClass = 2;

// Table 16 "qos_ranges": [lo, hi] ranges of rules and levels.
struct SmdbQosRange {
  static constexpr uint16_t kTableId = 16;
  static constexpr const char* kTableName = "qos_ranges";
  static constexpr const char* kRecordName = "qos_range";
  static constexpr int kKeyFields = 4;
  static constexpr uint16_t kSinceMinor = 1;

  uint8_t owner_kind = 0;  // kQosOwner*
  uint16_t owner = 0;      // the level's or rule's seq
  uint8_t kind = 0;        // kQosRange*
  uint16_t pos = 0;
  uint64_t lo = 0;
  uint64_t hi = 0;

  template <class Self, class V>
  static constexpr void Fields(Self& r, V& v) {
    v.Num("owner_kind", r.owner_kind);
    v.Num("owner", r.owner);
    v.Num("kind", r.kind);
    v.Num("pos", r.pos);
    v.Hex("lo", r.lo);
    v.Hex("hi", r.hi);
  }
};

// Table 17 "route_sls": the SL a routing engine that chooses path SLs
// (LASH, torus-2QoS, Nue, DFSSSP) gives the path slid -> dlid when the SA
// hands it `hint` (the SL the SA computed before asking the engine:
// osm_sa_path_record.c, path_sl), for every LID pair and every hint of
// route_sl_hints. `span` > 1: the engine draws the SL at random among
// `span` SLs from `sl` on every query (DFSSSP spreads a layer over several
// VLs: osm_ucast_dfsssp.c, vl_split_count), so the SA's answer is one of
// them. Only rows other than (hint, the hint's span in route_sl_hints)
// are listed. Filled when SmdbSubnet::flags has kSubnetRouteSls (the
// plugin asks the engine after each routing, opensm_plugin/osm_route_sl.c).
struct SmdbRouteSl {
  static constexpr uint16_t kTableId = 17;
  static constexpr const char* kTableName = "route_sls";
  static constexpr const char* kRecordName = "route_sl";
  static constexpr int kKeyFields = 3;
  static constexpr uint16_t kSinceMinor = 1;

  uint16_t slid = 0;
  uint16_t dlid = 0;
  uint8_t hint = 0;
  uint8_t sl = 0;
  uint8_t span = 1;  // SLs sl .. sl + span - 1, drawn at random (1: sl)

  template <class Self, class V>
  static constexpr void Fields(Self& r, V& v) {
    v.Num("slid", r.slid);
    v.Num("dlid", r.dlid);
    v.Num("hint", r.hint);
    v.Num("sl", r.sl);
    v.Num("span", r.span);
  }
};

// Table 18 "route_sl_hints": the hints route_sls covers, each with the
// span of the pairs route_sls does not list (they get the hint itself).
struct SmdbRouteSlHint {
  static constexpr uint16_t kTableId = 18;
  static constexpr const char* kTableName = "route_sl_hints";
  static constexpr const char* kRecordName = "route_sl_hint";
  static constexpr int kKeyFields = 1;
  static constexpr uint16_t kSinceMinor = 1;

  uint8_t hint = 0;
  uint8_t span = 1;

  template <class Self, class V>
  static constexpr void Fields(Self& r, V& v) {
    v.Num("hint", r.hint);
    v.Num("span", r.span);
  }
};

// Table 19 "sl2vl_drops": the SLs an SL2VL table sends to VL15, for the
// tables that send any (with QoS on, the SA drops a path whose SL meets
// such a table on the way: osm_sa_path_record.c, valid_sl_mask): the table
// of port `out_port` of node `node_guid` for packets that came in on
// `in_port` (0 for a CA's port and for what a switch sends itself).
struct SmdbSl2VlDrop {
  static constexpr uint16_t kTableId = 19;
  static constexpr const char* kTableName = "sl2vl_drops";
  static constexpr const char* kRecordName = "sl2vl_drop";
  static constexpr int kKeyFields = 3;
  static constexpr uint16_t kSinceMinor = 1;

  uint64_t node_guid = 0;
  uint8_t out_port = 0;
  uint8_t in_port = 0;
  uint16_t mask = 0;  // bit sl: sl goes to VL15

  template <class Self, class V>
  static constexpr void Fields(Self& r, V& v) {
    v.Hex("node_guid", r.node_guid);
    v.Num("out_port", r.out_port);
    v.Num("in_port", r.in_port);
    v.Hex("mask", r.mask);
  }
};

static_assert(WireSize<SmdbSl2VlDrop>() == 12 && KeySize<SmdbSl2VlDrop>() == 10, "layout");
static_assert(WireSize<SmdbRouteSl>() == 7 && KeySize<SmdbRouteSl>() == 5, "layout");
static_assert(WireSize<SmdbRouteSlHint>() == 2 && KeySize<SmdbRouteSlHint>() == 1, "layout");
static_assert(WireSize<SmdbQosLevel>() == 39 && KeySize<SmdbQosLevel>() == 2, "layout");
static_assert(WireSize<SmdbQosGroup>() == 35 && KeySize<SmdbQosGroup>() == 2, "layout");
static_assert(WireSize<SmdbQosGroupPort>() == 10 && KeySize<SmdbQosGroupPort>() == 10, "layout");
static_assert(WireSize<SmdbQosRule>() == 4 && KeySize<SmdbQosRule>() == 2, "layout");
static_assert(WireSize<SmdbQosRuleGroup>() == 7 && KeySize<SmdbQosRuleGroup>() == 5, "layout");
static_assert(WireSize<SmdbQosRange>() == 22 && KeySize<SmdbQosRange>() == 6, "layout");

}  // namespace smdb
}  // namespace ssa

#endif
