// smdb_records.h: the SMDB schema, one plain struct per table. The order of
// the Fields() calls is the wire order (smdb_fields.h); the static_asserts
// at the end pin every record size, so a layout change is a compile error
// and needs a new format minor (append fields only) or major.
//
// The tables carry what a path-record engine needs to answer SubnAdmGet
// PathRecord exactly as OpenSM's SA does (osm_sa_path_record.c):
//   - walk: source port -> (switch: LFT[dlid] out port -> link peer)* -> dest;
//     a switch endpoint is its port 0, which carries the switch's LID;
//   - MTU: min of ports[].mtu_cap along the walk (both sides of each hop),
//     clamped to 1K when subnet.flags has kSubnetEnableQuirks and an end is a
//     Mellanox Tavor (nodes[].device_id 23108);
//   - rate: min along the walk of ports[].rate (OpenSM's compare order, not
//     numeric: the IBA rate codes are not monotonic);
//   - PacketLifeTime: subnet.subnet_timeout, 0 for loopback;
//   - P_Key: a P_Key shared by both ends (pkey_blocks, membership bit 15,
//     at least one full member); SL: that partition's sl (partitions), else
//     subnet.default_sl; QoS levels and routing-engine SLs (LASH, DFSSSP) are
//     not represented: subnet.flags says when they are in use;
//   - HopLimit: 0 inside the subnet, 0xFF through a router (prefix_routes);
//   - Reversible: the reverse walk also succeeds.
// Plain data: copy freely; no thread rules beyond those of std::vector.
#ifndef IBACM_SSA_COMMON_SMDB_SMDB_RECORDS_H
#define IBACM_SSA_COMMON_SMDB_SMDB_RECORDS_H

#include <array>
#include <cstdint>

#include "common/smdb/smdb_fields.h"

namespace ssa {
namespace smdb {

// Node types (NodeInfo.NodeType).
constexpr uint8_t kNodeCa = 1, kNodeSwitch = 2, kNodeRouter = 3;
// Logical port states (PortInfo.PortState).
constexpr uint8_t kPortDown = 1, kPortInit = 2, kPortArmed = 3, kPortActive = 4;
// An LFT entry for "no route" (OpenSM's OSM_NO_PATH).
constexpr uint8_t kLftNoPath = 0xFF;
// SmdbPort::pkey_table_id when the port has no P_Key table recorded.
constexpr uint32_t kNoPkeyTable = 0xFFFFFFFF;
// Mellanox Tavor, whose paths OpenSM clamps to a 1K MTU with quirks on.
constexpr uint16_t kDeviceIdTavor = 23108;

// SmdbSubnet::flags.
constexpr uint32_t kSubnetQos = 1u << 0;             // opt.qos: QoS levels may set SL/MTU/rate
constexpr uint32_t kSubnetEnableQuirks = 1u << 1;    // opt.enable_quirks (Tavor 1K MTU)
constexpr uint32_t kSubnetAllowBothPkeys = 1u << 2;  // opt.allow_both_pkeys
constexpr uint32_t kSubnetRoutingSl = 1u << 3;       // routing engine picks path SLs
// With kSubnetQos: what of QoS the SA applies. A plugin that predates these
// bits leaves kSubnetQosReported clear, and QoS is then taken to apply.
constexpr uint32_t kSubnetQosPolicy = 1u << 4;    // a QoS policy file is loaded
constexpr uint32_t kSubnetSl2VlDrops = 1u << 5;   // some SL2VL table maps an SL to VL15
constexpr uint32_t kSubnetQosReported = 1u << 6;  // the two bits above are filled in
// With kSubnetQosPolicy: the policy is in the qos_* tables (format minor 1).
constexpr uint32_t kSubnetQosTables = 1u << 7;
// With kSubnetRoutingSl: the engine's path SLs are in route_sls (minor 1).
constexpr uint32_t kSubnetRouteSls = 1u << 8;
// With kSubnetQos: SL2VL tables that drop SLs are in sl2vl_drops (minor 1).
constexpr uint32_t kSubnetSl2VlTables = 1u << 9;
// opt.use_original_extended_sa_rates_only: the SA answers no rate above
// 300 Gb/s nor a 2x one (28, 50 Gb/s), mapping each to the one below.
constexpr uint32_t kSubnetOriginalSaRates = 1u << 10;
// With kSubnetRoutingSl: the engine's path SLs were computed, but more
// pairs differ from the hint than every SMDB should carry; the core sends
// each access node the rows of the ports it serves (route-SL slices,
// route_sl_table.h). route_sl_hints is here and route_sls is empty; the
// route_sl_hints table epoch names the routing the slices must be of.
constexpr uint32_t kSubnetRouteSlSlices = 1u << 11;
// OpenSM runs on a big-endian host. Some of its tables are maps keyed by a
// network-order field compared as a host integer (the P_Key tables, the
// router table), so their order, which the SA's answers follow, is the SM
// host's. Clear (also from plugins that predate the bit): little-endian.
constexpr uint32_t kSubnetSmBigEndian = 1u << 12;

// The order of a network-order key in such an OpenSM map: the value itself
// on a big-endian SM host, its bytes reversed on a little-endian one
// (whatever the host reading the SMDB).
inline uint16_t SmMapOrder16(uint16_t key, uint32_t subnet_flags) {
  return (subnet_flags & kSubnetSmBigEndian) ? key : __builtin_bswap16(key);
}
inline uint64_t SmMapOrder64(uint64_t key, uint32_t subnet_flags) {
  return (subnet_flags & kSubnetSmBigEndian) ? key : __builtin_bswap64(key);
}

// Table 1 "subnet": exactly one record, the subnet-wide options.
struct SmdbSubnet {
  static constexpr uint16_t kTableId = 1;
  static constexpr const char* kTableName = "subnet";
  static constexpr const char* kRecordName = "subnet";
  static constexpr int kKeyFields = 0;

  uint64_t subnet_prefix = 0;  // GID prefix of every port (opt.subnet_prefix)
  uint64_t sm_port_guid = 0;   // master SM's port
  uint16_t sm_lid = 0;
  uint8_t sm_state = 0;  // SMInfo state: 3 = master
  uint8_t sm_priority = 0;
  uint8_t lmc = 0;                        // opt.lmc
  uint8_t subnet_timeout = 0;             // opt.subnet_timeout: PathRecord PacketLifeTime
  uint8_t packet_life_time = 0;           // opt.packet_life_time (switch LifeTimeValue)
  uint8_t default_sl = 0;                 // SL when no partition matches (OSM_DEFAULT_SL)
  uint32_t flags = 0;                     // kSubnet*
  std::array<char, 16> routing_engine{};  // e.g. "minhop", NUL-padded

  template <class Self, class V>
  static constexpr void Fields(Self& r, V& v) {
    v.Hex("subnet_prefix", r.subnet_prefix);
    v.Hex("sm_port_guid", r.sm_port_guid);
    v.Num("sm_lid", r.sm_lid);
    v.Num("sm_state", r.sm_state);
    v.Num("sm_priority", r.sm_priority);
    v.Num("lmc", r.lmc);
    v.Num("subnet_timeout", r.subnet_timeout);
    v.Num("packet_life_time", r.packet_life_time);
    v.Num("default_sl", r.default_sl);
    v.Hex("flags", r.flags);
    v.Text("routing_engine", r.routing_engine);
  }
};

// SmdbGuidLid::flags.
constexpr uint8_t kGuidAlias = 1u << 0;  // an alias GUID (GUIDInfo), not the port GUID

// Table 2 "guid_lids": every port GUID and alias GUID that has a LID, keyed
// by GUID: how a consumer turns a GID into a LID range.
struct SmdbGuidLid {
  static constexpr uint16_t kTableId = 2;
  static constexpr const char* kTableName = "guid_lids";
  static constexpr const char* kRecordName = "guid_lid";
  static constexpr int kKeyFields = 1;

  uint64_t guid = 0;
  uint64_t port_guid = 0;  // the physical port's GUID (== guid unless alias)
  uint16_t base_lid = 0;   // LIDs base_lid .. base_lid + 2^lmc - 1
  uint8_t lmc = 0;
  uint8_t flags = 0;  // kGuid*

  template <class Self, class V>
  static constexpr void Fields(Self& r, V& v) {
    v.Hex("guid", r.guid);
    v.Hex("port_guid", r.port_guid);
    v.Num("base_lid", r.base_lid);
    v.Num("lmc", r.lmc);
    v.Hex("flags", r.flags);
  }
};

// Table 3 "nodes" (NodeInfo, NodeDescription), keyed by node GUID.
struct SmdbNode {
  static constexpr uint16_t kTableId = 3;
  static constexpr const char* kTableName = "nodes";
  static constexpr const char* kRecordName = "node";
  static constexpr int kKeyFields = 1;

  uint64_t node_guid = 0;
  uint64_t system_image_guid = 0;
  uint8_t node_type = 0;  // kNodeCa, kNodeSwitch, kNodeRouter
  uint8_t num_ports = 0;  // physical ports, not counting switch port 0
  uint16_t partition_cap = 0;
  uint32_t vendor_id = 0;  // 24 bits
  uint16_t device_id = 0;
  uint32_t revision = 0;
  std::array<char, 64> description{};  // NodeDescription, NUL-padded

  template <class Self, class V>
  static constexpr void Fields(Self& r, V& v) {
    v.Hex("node_guid", r.node_guid);
    v.Hex("system_image_guid", r.system_image_guid);
    v.Num("node_type", r.node_type);
    v.Num("num_ports", r.num_ports);
    v.Num("partition_cap", r.partition_cap);
    v.Hex("vendor_id", r.vendor_id);
    v.Hex("device_id", r.device_id);
    v.Hex("revision", r.revision);
    v.Text("description", r.description);
  }
};

// Table 4 "ports" (PortInfo), keyed by (node GUID, port number): every port
// of every node, switch port 0 included.
struct SmdbPort {
  static constexpr uint16_t kTableId = 4;
  static constexpr const char* kTableName = "ports";
  static constexpr const char* kRecordName = "port";
  static constexpr int kKeyFields = 2;

  uint64_t node_guid = 0;
  uint8_t port_num = 0;
  uint64_t port_guid = 0;  // 0 for switch external ports (they have none)
  uint16_t base_lid = 0;   // CA/router ports and switch port 0; else 0
  uint8_t lmc = 0;
  uint8_t port_state = 0;             // kPort*
  uint8_t phys_state = 0;             // PortPhysicalState: 5 = LinkUp
  uint8_t mtu_cap = 0;                // PortInfo.MTUCap (IBA MTU code 1..5 = 256..4096)
  uint8_t neighbor_mtu = 0;           // PortInfo.NeighborMTU: the active MTU
  uint8_t link_width_active = 0;      // 1 = 1x, 2 = 4x, 4 = 8x, 8 = 12x, 16 = 2x
  uint8_t link_speed_active = 0;      // 1 = SDR, 2 = DDR, 4 = QDR
  uint8_t link_speed_ext_active = 0;  // 0 = none, 1 = FDR, 2 = EDR, 4 = HDR, 8 = NDR
  // IBA rate code (PathRecord.Rate) as OpenSM's ib_port_info_compute_rate
  // gives it for this port, with extended speeds taken from this port's
  // capability mask (from port 0's for switch ports, as OpenSM's path walk
  // does) and FDR10 from Mellanox ExtendedPortInfo.
  uint8_t rate = 0;
  uint32_t capability_mask = 0;
  uint16_t capability_mask2 = 0;
  uint32_t pkey_table_id = kNoPkeyTable;  // SmdbPkeyBlock::table_id

  template <class Self, class V>
  static constexpr void Fields(Self& r, V& v) {
    v.Hex("node_guid", r.node_guid);
    v.Num("port_num", r.port_num);
    v.Hex("port_guid", r.port_guid);
    v.Num("base_lid", r.base_lid);
    v.Num("lmc", r.lmc);
    v.Num("port_state", r.port_state);
    v.Num("phys_state", r.phys_state);
    v.Num("mtu_cap", r.mtu_cap);
    v.Num("neighbor_mtu", r.neighbor_mtu);
    v.Hex("link_width_active", r.link_width_active);
    v.Hex("link_speed_active", r.link_speed_active);
    v.Hex("link_speed_ext_active", r.link_speed_ext_active);
    v.Num("rate", r.rate);
    v.Hex("capability_mask", r.capability_mask);
    v.Hex("capability_mask2", r.capability_mask2);
    v.Num("pkey_table_id", r.pkey_table_id);
  }
};

// Table 5 "links": one record per direction of every up link, keyed by the
// near end: (node GUID, port) -> the peer's (node GUID, port).
struct SmdbLink {
  static constexpr uint16_t kTableId = 5;
  static constexpr const char* kTableName = "links";
  static constexpr const char* kRecordName = "link";
  static constexpr int kKeyFields = 2;

  uint64_t node_guid = 0;
  uint8_t port_num = 0;
  uint64_t peer_node_guid = 0;
  uint8_t peer_port_num = 0;

  template <class Self, class V>
  static constexpr void Fields(Self& r, V& v) {
    v.Hex("node_guid", r.node_guid);
    v.Num("port_num", r.port_num);
    v.Hex("peer_node_guid", r.peer_node_guid);
    v.Num("peer_port_num", r.peer_port_num);
  }
};

// SmdbSwitch::flags.
constexpr uint8_t kSwitchEnhancedPort0 = 1u << 0;

// Table 6 "switches" (SwitchInfo), keyed by node GUID.
struct SmdbSwitch {
  static constexpr uint16_t kTableId = 6;
  static constexpr const char* kTableName = "switches";
  static constexpr const char* kRecordName = "switch";
  static constexpr int kKeyFields = 1;

  uint64_t node_guid = 0;
  uint16_t lin_fdb_cap = 0;
  uint16_t lin_fdb_top = 0;  // highest LID the LFT routes; above it: no path
  uint16_t mcast_fdb_cap = 0;
  uint8_t life_time = 0;  // SwitchInfo.LifeTimeValue
  uint8_t flags = 0;      // kSwitch*

  template <class Self, class V>
  static constexpr void Fields(Self& r, V& v) {
    v.Hex("node_guid", r.node_guid);
    v.Num("lin_fdb_cap", r.lin_fdb_cap);
    v.Num("lin_fdb_top", r.lin_fdb_top);
    v.Num("mcast_fdb_cap", r.mcast_fdb_cap);
    v.Num("life_time", r.life_time);
    v.Hex("flags", r.flags);
  }
};

constexpr size_t kLftBlockSize = 64;

// Table 7 "lft_blocks": a switch's linear forwarding table, 64 LIDs per
// block (LinearForwardingTable attribute), keyed by (switch GUID, block):
// LID l leaves through port ports[l % 64] of block l / 64.
struct SmdbLftBlock {
  static constexpr uint16_t kTableId = 7;
  static constexpr const char* kTableName = "lft_blocks";
  static constexpr const char* kRecordName = "lft_block";
  static constexpr int kKeyFields = 2;

  uint64_t node_guid = 0;
  uint16_t block = 0;
  std::array<uint8_t, kLftBlockSize> ports{};  // kLftNoPath: unrouted

  template <class Self, class V>
  static constexpr void Fields(Self& r, V& v) {
    v.Hex("node_guid", r.node_guid);
    v.Num("block", r.block);
    v.NumArray("ports", r.ports);
  }
};

constexpr size_t kPkeyBlockSize = 32;

// Table 8 "pkey_blocks": P_Key tables, 32 entries per block (P_KeyTable
// attribute), keyed by (table id, block). Ports with identical tables share
// one table id (SmdbPort::pkey_table_id), which keeps this table small when
// thousands of ports sit in the same partitions. Entry 0 is an empty slot;
// bit 15 is the full-membership bit.
struct SmdbPkeyBlock {
  static constexpr uint16_t kTableId = 8;
  static constexpr const char* kTableName = "pkey_blocks";
  static constexpr const char* kRecordName = "pkey_block";
  static constexpr int kKeyFields = 2;

  uint32_t table_id = 0;
  uint16_t block = 0;
  std::array<uint16_t, kPkeyBlockSize> pkeys{};

  template <class Self, class V>
  static constexpr void Fields(Self& r, V& v) {
    v.Num("table_id", r.table_id);
    v.Num("block", r.block);
    v.HexArray("pkeys", r.pkeys);
  }
};

// SmdbPartition::flags.
constexpr uint8_t kPartitionDefault = 1u << 0;  // the default partition (0x7fff)

// Table 9 "partitions" (OpenSM partitions.conf), keyed by the 15-bit P_Key:
// the SL a path in that partition gets.
struct SmdbPartition {
  static constexpr uint16_t kTableId = 9;
  static constexpr const char* kTableName = "partitions";
  static constexpr const char* kRecordName = "partition";
  static constexpr int kKeyFields = 1;

  uint16_t pkey = 0;  // membership bit clear
  uint8_t sl = 0;
  uint8_t flags = 0;            // kPartition*
  std::array<char, 32> name{};  // NUL-padded, truncated

  template <class Self, class V>
  static constexpr void Fields(Self& r, V& v) {
    v.Hex("pkey", r.pkey);
    v.Num("sl", r.sl);
    v.Hex("flags", r.flags);
    v.Text("name", r.name);
  }
};

// Table 10 "prefix_routes": which router port serves an off-subnet GID
// prefix, in OpenSM's order (first match wins), keyed by that position.
struct SmdbPrefixRoute {
  static constexpr uint16_t kTableId = 10;
  static constexpr const char* kTableName = "prefix_routes";
  static constexpr const char* kRecordName = "prefix_route";
  static constexpr int kKeyFields = 1;

  uint32_t seq = 0;
  uint64_t prefix = 0;            // 0 matches any prefix
  uint64_t router_port_guid = 0;  // 0 = the first router

  template <class Self, class V>
  static constexpr void Fields(Self& r, V& v) {
    v.Num("seq", r.seq);
    v.Hex("prefix", r.prefix);
    v.Hex("router_port_guid", r.router_port_guid);
  }
};

// The wire sizes, in bytes (record; key).
static_assert(WireSize<SmdbSubnet>() == 44 && KeySize<SmdbSubnet>() == 0, "layout");
static_assert(WireSize<SmdbGuidLid>() == 20 && KeySize<SmdbGuidLid>() == 8, "layout");
static_assert(WireSize<SmdbNode>() == 94 && KeySize<SmdbNode>() == 8, "layout");
static_assert(WireSize<SmdbPort>() == 38 && KeySize<SmdbPort>() == 9, "layout");
static_assert(WireSize<SmdbLink>() == 18 && KeySize<SmdbLink>() == 9, "layout");
static_assert(WireSize<SmdbSwitch>() == 16 && KeySize<SmdbSwitch>() == 8, "layout");
static_assert(WireSize<SmdbLftBlock>() == 74 && KeySize<SmdbLftBlock>() == 10, "layout");
static_assert(WireSize<SmdbPkeyBlock>() == 70 && KeySize<SmdbPkeyBlock>() == 6, "layout");
static_assert(WireSize<SmdbPartition>() == 36 && KeySize<SmdbPartition>() == 2, "layout");
static_assert(WireSize<SmdbPrefixRoute>() == 20 && KeySize<SmdbPrefixRoute>() == 4, "layout");

}  // namespace smdb
}  // namespace ssa

#endif
