// smdb_index.h: LID- and port-indexed views of one SMDB, built once per
// SMDB version, for the path-record engine (path_engine.h) and tools.
//
// Everything lives in flat vectors indexed by small integers, so that a
// path walk touches a handful of cache lines and allocates nothing:
//   - ports: every port record, with its node, its link peer, its P_Key
//     table and the MTU and rate values OpenSM's SA path walk reads;
//   - LID -> the port that owns it (every LID of an LMC range), as
//     OpenSM's port_lid_tbl, from the guid_lids table;
//   - (node, port number) -> port, to follow a switch's LFT entry;
//   - each switch's LFT as one byte per LID (kLftNoPath above its top);
//   - P_Key tables in the order OpenSM's per-port keys map holds them, the
//     common P_Key of every pair of tables, and partition SLs.
//
// Ownership: an SmdbIndex copies what it needs; the Smdb may go away after
// Build(). Immutable once built: const methods may run on any number of
// threads at once.
#ifndef IBACM_SSA_COMMON_SMDB_SMDB_INDEX_H
#define IBACM_SSA_COMMON_SMDB_SMDB_INDEX_H

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common/base/big_endian.h"
#include "common/base/object_recycler.h"
#include "common/base/status.h"
#include "common/smdb/lft_lineage.h"
#include "common/smdb/qos_policy.h"
#include "common/smdb/route_sl_table.h"
#include "common/smdb/smdb.h"

namespace ssa {
namespace smdb {

// PortInfo.CapabilityMask bits: the port supports extended link speeds;
// it has CapabilityMask2. CapabilityMask2 bits: it supports 2x link width;
// HDR link speed.
constexpr uint32_t kCapHasExtSpeeds = 0x00004000;
constexpr uint32_t kCapHasCapMask2 = 0x00008000;
constexpr uint16_t kCap2Width2x = 0x0010;
constexpr uint16_t kCap2SpeedHdr = 0x0020;
// PathRecord rate codes are not in speed order; 2 .. 22 are defined.
constexpr uint8_t kMinRate = 2, kMaxRate = 22;

// The rate code OpenSM's ib_port_info_compute_rate (3.3.23) gives for a
// port's active width/speed/extended speed, with or without extended
// speeds (it has no FDR10 case).
uint8_t ComputePortRate(uint8_t width_active, uint8_t speed_active, uint8_t speed_ext_active,
                        bool extended);
// OpenSM 3.3.23's ordered_rates (osm_helper.c), 1 = slowest, indexed by
// rate code: the codes were assigned as speeds appeared, so 25 Gb/s (15)
// sorts above 30 Gb/s (4) by its 31.25 Gb/s signalling equivalent, etc.
// Checked against libopensm's ib_path_compare_rates for every pair.
inline constexpr uint8_t kRateRank[kMaxRate + 1] = {
    0, 0, 1, 3, 6, 2, 5, 9, 10, 13, 14, 4, 12, 16, 17, 7, 15, 18, 19, 8, 11, 20, 21,
};
// OpenSM's ib_path_compare_rates: -1, 0, 1 by actual bandwidth; codes
// outside 2..22 rank below every valid one. (Inline: every path's walk
// compares a few.)
inline int CompareRates(uint8_t a, uint8_t b) {
  int ra = a <= kMaxRate ? kRateRank[a] : 0;
  int rb = b <= kMaxRate ? kRateRank[b] : 0;
  return ra < rb ? -1 : (ra == rb ? 0 : 1);
}
// The lower of two rates as the SA's walk keeps it: `later` replaces
// `earlier` only when strictly lower, so the earlier of equals stays.
inline uint8_t LowerRate(uint8_t earlier, uint8_t later) {
  return CompareRates(earlier, later) > 0 ? later : earlier;
}

class SmdbIndex {
 public:
  static constexpr uint32_t kNone = 0xFFFFFFFF;

  struct Port {
    uint64_t port_guid = 0;       // 0 for switch external ports
    uint32_t node = kNone;        // index into nodes()
    uint32_t peer = kNone;        // linked port (links table), or kNone
    uint32_t pkey_table = kNone;  // dense P_Key table index, or kNone
    uint16_t base_lid = 0;        // of the LID range this port owns (0: none)
    uint8_t lmc = 0;
    uint8_t port_num = 0;
    uint8_t mtu_cap = 0;  // PortInfo.MTUCap
    // The SMDB's rate: extended speeds per port 0's capability for switch
    // external ports (how the SA rates a switch's ports while walking)...
    uint8_t rate = 0;
    // ... and per the port's own capability mask, which the SA uses for the
    // walk's two ends (normally CA ports or port 0, where both agree; a
    // switch LFT that does not send the switch's own LID to port 0 ends the
    // walk on an external port). Equal to `rate` unless the two masks
    // disagree on extended speeds, as they do on ibsim's switches.
    uint8_t rate_own = 0;
    uint8_t port_state = 0;
    // What the SA's last word on a path's rate reads of the port at either
    // end (ib_path_rate_2x_hdr_fixups): has CapabilityMask2, extended
    // speeds, 2x width, HDR speed (kRateCap*).
    uint8_t rate_caps = 0;
  };
  static constexpr uint8_t kRateCapMask2 = 1, kRateCapExtSpeeds = 2, kRateCap2x = 4,
                           kRateCapHdr = 8;

  struct Node {
    uint64_t guid = 0;
    uint8_t type = 0;         // kNodeCa, kNodeSwitch, kNodeRouter
    bool tavor = false;       // OpenSM's sa_path_rec_is_tavor_port
    uint32_t port_slots = 0;  // index of port 0's slot in the slot table
    uint32_t slot_count = 0;  // num_ports + 1
    uint32_t lft = kNone;     // offset of LID 0 in the LFT bytes (switches)
    uint32_t lft_size = 0;    // LIDs 0 .. lft_size - 1 are in the LFT
    uint32_t record = 0;      // index into the Smdb's nodes table
  };

  // Fails (EINVAL, naming the record) on data no SM would produce: a LID
  // owned twice, a link to a port that does not exist, a switch without
  // its node record. Records the engine does not need are not checked.
  //
  // With `lft_buffers`, the LFT bytes (one per switch and LID: 135 MB at
  // the full subnet) are built in a buffer an index released before, so an
  // index per SMDB version writes into memory already touched (see
  // object_recycler.h); the buffer goes back there when this index goes.
  //
  // With `lineage` too, and `serial` the one lineage->Add() gave `db`, a
  // buffer that holds the LFTs of an earlier version of the same lineage
  // is caught up instead of written whole: only the blocks the deltas
  // between the two versions name are rewritten, not all 135 MB at the
  // full subnet. Only when that is provably the same as a whole build
  // (BuildLfts says why); else written whole.
  struct LftSpan {  // where one switch's LFT is in the bytes
    uint64_t guid = 0;
    uint32_t lft = 0, size = 0;
    bool operator==(const LftSpan& o) const {
      return guid == o.guid && lft == o.lft && size == o.size;
    }
  };
  struct LftBytes {
    std::vector<uint8_t> bytes;
    // The LftLineage serial of the SMDB whose LFTs `bytes` holds, laid out
    // as `layout` says (every switch with an LFT, in node order); 0: not
    // known (built without a lineage, or being written).
    uint64_t serial = 0;
    std::vector<LftSpan> layout;
  };
  using LftBuffers = ObjectRecycler<LftBytes>;
  static Status Build(const Smdb& db, std::unique_ptr<SmdbIndex>* out,
                      LftBuffers* lft_buffers = nullptr, const LftLineage* lineage = nullptr,
                      uint64_t serial = 0);

  SmdbIndex(const SmdbIndex&) = delete;
  SmdbIndex& operator=(const SmdbIndex&) = delete;

  const std::vector<Port>& ports() const { return ports_; }
  const std::vector<Node>& nodes() const { return nodes_; }
  const Port& port(uint32_t i) const { return ports_[i]; }
  const Node& node_of(const Port& p) const { return nodes_[p.node]; }

  // The port owning `lid` (a CA/router port or a switch's port 0), or kNone.
  uint32_t PortByLid(uint16_t lid) const {
    return lid < lid_to_port_.size() ? lid_to_port_[lid] : kNone;
  }
  // Port `num` of `node`, or kNone (no such port, or not in the SMDB).
  uint32_t PortOf(uint32_t node, uint32_t num) const {
    const Node& n = nodes_[node];
    return num < n.slot_count ? port_slots_[n.port_slots + num] : kNone;
  }
  // The LFT entry of switch `node` for `lid`: an out port, or kLftNoPath
  // (as osm_switch_get_port_by_lid: LID 0 and LIDs above the top too).
  uint8_t LftPort(uint32_t node, uint16_t lid) const {
    const Node& n = nodes_[node];
    return lid != 0 && lid < n.lft_size ? lft_[n.lft + lid] : kLftNoPath;
  }
  // The port switch `node`'s LFT sends `lid` out of, or kNone (no entry,
  // or a port number the SMDB has no port for).
  uint32_t LftEgress(uint32_t node, uint16_t lid) const {
    uint8_t out = LftPort(node, lid);
    return out == kLftNoPath ? kNone : PortOf(node, out);
  }
  // The endpoint port with this port GUID (CA port, switch port 0), or kNone.
  uint32_t PortByGuid(uint64_t port_guid) const;

  // Every LID that some port owns, ascending.
  const std::vector<uint16_t>& assigned_lids() const { return assigned_lids_; }
  // The same LIDs in a PRDB's key order for one source LID: by the owner's
  // port GUID (the DGID), then by LID.
  const std::vector<uint16_t>& lids_by_guid() const { return lids_by_guid_; }
  // The endpoint ports (owners of a LID range), by ascending base LID.
  const std::vector<uint32_t>& endpoints() const { return endpoints_; }

  // OpenSM's osm_physp_find_common_pkey(a, b) on the two ports' tables:
  // the first pair of entries (in OpenSM's map order) with the same base
  // and at least one full member; a's entry is returned, 0 if none.
  uint16_t CommonPkey(uint32_t table_a, uint32_t table_b) const {
    if (table_a == kNone || table_b == kNone) return 0;
    if (!pair_pkey_.empty()) return pair_pkey_[size_t{table_a} * pkey_tables_.size() + table_b];
    return FindCommonPkey(table_a, table_b);
  }
  // osm_physp_share_pkey between two ports' tables: true when either table
  // is empty (OpenSM's "ignore ports without a table"), or they share one.
  bool SharePkey(uint32_t port_a, uint32_t port_b) const;
  // osm_physp_share_this_pkey on two ports' tables: both hold `pkey`'s
  // entry (by base; with allow_both_pkeys the full, else the limited one)
  // and one of the two entries is a full member.
  bool ShareThisPkey(uint32_t table_a, uint32_t table_b, uint16_t pkey) const;
  // The QoS policy the SMDB carries, or nullptr (qos_policy.h).
  const QosPolicy* qos() const { return qos_.get(); }
  // The routing engine's path SL for slid -> dlid when the SA hands it
  // `hint` (route_sls: `hint` itself unless listed), and in *span how many
  // SLs from *sl it draws among at random (1: exactly *sl). False when the
  // SMDB carries no engine SLs (kSubnetRouteSls) or not for this hint.
  bool RouteSl(uint16_t slid, uint16_t dlid, uint8_t hint, uint8_t* sl, uint8_t* span) const {
    return has_route_sls_ && route_sls_.Find(slid, dlid, hint, sl, span);
  }
  // The engine's SLs the SMDB carries (kSubnetRouteSls), or null.
  const RouteSlTable* route_sls() const { return has_route_sls_ ? &route_sls_ : nullptr; }
  // The route_sl_hints table epoch: the routing a route-SL slice must be
  // of to apply to this SMDB (kSubnetRouteSlSlices).
  uint64_t route_sl_generation() const { return route_sl_generation_; }
  // The SLs the SL2VL table of `port` for packets in on `in_port` sends to
  // VL15 (sl2vl_drops); 0 for a table that drops none.
  uint16_t Sl2VlDrops(uint32_t port, uint8_t in_port) const {
    if (sl2vl_drops_.empty()) return 0;
    auto it = std::lower_bound(sl2vl_drops_.begin(), sl2vl_drops_.end(),
                               std::make_pair(uint64_t{port} << 8 | in_port, uint16_t{0}));
    return it != sl2vl_drops_.end() && it->first == (uint64_t{port} << 8 | in_port) ? it->second
                                                                                    : 0;
  }
  bool has_sl2vl_drops() const { return !sl2vl_drops_.empty(); }
  // The SL of the partition with this base P_Key; `fallback` if none.
  uint8_t PartitionSl(uint16_t pkey, uint8_t fallback) const {
    uint8_t sl = partition_sl_[pkey & 0x7fff];
    return sl == kNoPartition ? fallback : sl;
  }

  // Whether Build caught a recycled LFT buffer up rather than writing
  // every byte, and the blocks it rewrote then.
  bool lft_caught_up() const { return lft_caught_up_; }
  size_t lft_blocks_rewritten() const { return lft_blocks_rewritten_; }

  const SmdbSubnet& subnet() const { return subnet_; }
  // OpenSM's prefix routes (off_subnet.h), in its order.
  const std::vector<SmdbPrefixRoute>& prefix_routes() const { return prefix_routes_; }
  // The GID prefix in network byte order, ready to copy into a GID.
  const std::array<uint8_t, 8>& prefix_bytes() const { return prefix_bytes_; }
  // The GID of the port with `guid` on this subnet, in `gid` (16 bytes,
  // network order): the subnet prefix, then the GUID.
  void PutGid(uint64_t guid, uint8_t* gid) const {
    std::memcpy(gid, prefix_bytes_.data(), 8);
    PutBe64(gid + 8, guid);
  }
  size_t pkey_table_count() const { return pkey_tables_.size(); }

 private:
  SmdbIndex() = default;
  struct PkeyEntry {
    uint16_t order;  // OpenSM's map key as it sorts (see smdb_index.cc)
    uint16_t value;  // the table entry the map points to
  };
  static constexpr uint8_t kNoPartition = 0xFF;
  // Above this many distinct tables, CommonPkey walks the tables instead
  // of reading a precomputed square.
  static constexpr size_t kMaxPairTables = 256;

  Status BuildNodesAndPorts(const Smdb& db);
  Status BuildLinks(const Smdb& db);
  Status BuildLfts(const Smdb& db, LftBuffers* buffers, const LftLineage* lineage, uint64_t serial);
  // Rewrites, in `lft` (laid out as nodes_ say), each of `blocks` from
  // `db`'s lft_blocks (sorted by key), kLftNoPath where it has none.
  void RewriteLftBlocks(const Smdb& db, const std::vector<LftLineage::Block>& blocks,
                        uint8_t* lft) const;
  Status BuildLids(const Smdb& db);
  void BuildPkeys(const Smdb& db);
  uint16_t FindCommonPkey(uint32_t table_a, uint32_t table_b) const;
  // ShareThisPkey by searching both tables.
  bool SearchShareThisPkey(uint32_t table_a, uint32_t table_b, uint16_t pkey) const;
  // The entry of `table`'s keys map under `key`, 0 if none.
  uint16_t MapEntry(uint32_t table, uint16_t key) const;
  uint32_t NodeByGuid(uint64_t guid) const;

  std::unique_ptr<QosPolicy> qos_;
  RouteSlTable route_sls_;  // with kSubnetRouteSls
  bool has_route_sls_ = false;
  uint64_t route_sl_generation_ = 0;
  std::vector<std::pair<uint64_t, uint16_t>> sl2vl_drops_;  // (port << 8 | in_port, mask), sorted

  SmdbSubnet subnet_;
  std::vector<SmdbPrefixRoute> prefix_routes_;  // by seq
  std::array<uint8_t, 8> prefix_bytes_{};
  std::vector<Node> nodes_;                    // same order as the Smdb's nodes
  std::vector<Port> ports_;                    // same order as the Smdb's ports
  std::vector<uint32_t> port_slots_;           // per node: num_ports + 1 port indexes
  const uint8_t* lft_ = nullptr;               // every switch's LFT, one byte per LID,
  std::shared_ptr<const LftBytes> lft_bytes_;  // ... held here
  bool lft_caught_up_ = false;
  size_t lft_blocks_rewritten_ = 0;
  std::vector<uint32_t> lid_to_port_;  // endpoint port by LID
  std::vector<uint16_t> assigned_lids_;
  std::vector<uint16_t> lids_by_guid_;
  std::vector<uint32_t> endpoints_;
  std::vector<std::pair<uint64_t, uint32_t>> guid_to_port_;  // sorted by GUID
  std::vector<std::vector<PkeyEntry>> pkey_tables_;          // dense, by first use
  std::vector<uint16_t> pair_pkey_;                          // CommonPkey of every table pair
  std::vector<uint8_t> pair_shares_common_;  // ShareThisPkey(a, b, CommonPkey(a, b)), same square
  std::array<uint8_t, 0x8000> partition_sl_{};
};

}  // namespace smdb
}  // namespace ssa

#endif
