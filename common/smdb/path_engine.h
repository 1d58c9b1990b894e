// path_engine.h: the path-record engine: PathRecords computed from an SMDB
// exactly as OpenSM's SA (3.3.23, osm_sa_path_record.c) answers a
// SubnAdmGet(PathRecord) whose component mask gives SLID and DLID (and
// optionally Reversible, as upstream ibacm asks), byte for byte.
//
// What the SA does, and so what Compute() does (smdb_records.h lists which
// table feeds which field):
//   - walks source -> LFTs -> destination (a switch end is its port 0 and
//     starts/ends through its own LFT entry), failing on an LFT "no path",
//     a port without a link, a non-switch in the middle or > 64 hops;
//   - MTU: minimum MTUCap over the ports it reads (source, each switch's
//     ingress and egress port, destination), clamped to 1K with
//     enable_quirks when an end is a Tavor HCA;
//   - rate: the slowest by OpenSM's ordered comparison, a switch's ports
//     rated with port 0's extended-speed capability, the ends with their
//     own (SmdbIndex::Port::rate, rate_own);
//   - P_Key: the first P_Key the two ends share (osm_physp_find_common_pkey,
//     the source's entry); no shared P_Key, no path. The requester must
//     share one with both ends too;
//   - SL: the P_Key's partition SL, else subnet.default_sl;
//   - with QoS on and a QoS policy (qos_policy.h), the qos-level the query
//     matches limits MTU and rate, may set the SL and PacketLifeTime, and
//     may restrict the P_Key to its ranges;
//   - PacketLifeTime: subnet.subnet_timeout, 0 for a port to itself;
//     MTU, rate and PacketLifeTime carry selector 2 ("exactly", 0x80);
//   - Reversible (bit 7 of byte 49) when the same query from the DLID's
//     port back to the SLID succeeds; NumbPath 0; HopLimit, FlowLabel, TClass,
//     QoSClass, Preference and ServiceID 0.
// A query by in-subnet SGID and DGID instead of LIDs is ComputeByGuid():
// the SA answers the first LID pair of the two ports that has a path, in
// its order (base LIDs first, Preference 0 or 2). ComputeByGid() takes
// any DGID: one of another subnet goes through the router port OpenSM's
// prefix routes choose (off_subnet.h), HopLimit 255.
// A routing engine that chooses path SLs (LASH, torus-2QoS, Nue) has the
// last word on the SL: the SMDB carries its answers (route_sls, asked of
// the engine by the plugin), which the engine looks up.
// With QoS on, SL2VL tables that send an SL to VL15 (sl2vl_drops) drop
// paths on that SL, as the SA's walk does.
// Not predictable from an SMDB (SmdbSubnet::flags says when they apply,
// Limitations() names them): SL2VL tables or a QoS policy an older plugin
// did not put in the SMDB, engine SLs the SMDB does not carry (DFSSSP, which answers
// at random when it spreads a layer over spare VLs; subnets too large for
// the plugin to ask). The records they
// may change are marked "not exact" (InexactFlags(), kPathInexact* in
// smdb_prdb.h) wherever the engine's answers are stored or printed, so
// that nobody serves them as the SA's.
//
// Cost: SmdbIndex does the allocating once per SMDB; Compute() allocates
// nothing and reads a few cache lines per switch hop.
//
// Threads: a PathEngine is immutable; Compute() and friends are const and
// may run concurrently. The SmdbIndex is borrowed and must outlive it.
#ifndef IBACM_SSA_COMMON_SMDB_PATH_ENGINE_H
#define IBACM_SSA_COMMON_SMDB_PATH_ENGINE_H

#include <infiniband/sa.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/base/status.h"
#include "common/smdb/route_suffixes.h"
#include "common/smdb/smdb_index.h"
#include "common/smdb/smdb_prdb.h"

namespace ssa {
namespace smdb {

class WholePrdbPlan;  // whole_prdb.h

// Why there is no path. Every status but kOk is an SA answer of
// ERR_NO_RECORDS (status 0x0300) to the same query (by GIDs too: OpenSM
// 3.3.23 drops the reason it finds for an unknown GID or an off-subnet
// DGID without a router and answers an empty list).
enum class PathStatus : uint8_t {
  kOk = 0,
  kUnknownSlid,    // no port owns the SLID
  kUnknownDlid,    // no port owns the DLID
  kNoRoute,        // the walk from source to DLID fails
  kNoSharedPkey,   // the ends (or the requester and an end) share no P_Key
  kNotReversible,  // only with PathEngineOptions::require_reversible
  kNoRouter,       // an off-subnet DGID that no prefix route sends to a router
};
// "ok", "unknown-slid", "unknown-dlid", "no-route", "no-shared-pkey",
// "not-reversible", "no-router".
const char* PathStatusName(PathStatus status);

struct PathEngineOptions {
  // The query's P_Key, ServiceID and QoS class, when its component mask
  // has them: they decide the P_Key check and which QoS level applies.
  QosQuery query;
  // The query names the P_Key of the path itself: the first P_Key the two
  // ends share (query.pkey is then ignored). This is the record ibacm's
  // endpoint of that partition gets: its queries always carry the
  // endpoint's P_Key. PRDBs are built this way.
  bool pkey_from_path = false;

  // What PRDBs are built with (access nodes, tools that rebuild them): the
  // queries the ssa provider's clients make through ibacm.
  static PathEngineOptions ForPrdb() {
    PathEngineOptions o;
    o.pkey_from_path = true;
    return o;
  }
  // The query's mask has Reversible with the bit set (mad::BuildPathRecordGet,
  // upstream ibacm): the SA then drops paths whose reverse fails.
  bool require_reversible = false;
  // LID of the port that sends the query; 0 = the source port itself.
  uint16_t requester_lid = 0;
  // Build the route-suffix table (route_suffixes.h) when it has at most
  // this many entries (2 bytes each); 0: walk every path hop by hop. For
  // engines that compute many whole PRDBs (an access node's bring-up):
  // building it costs about as much as one walk per (switch, LID).
  size_t route_suffix_max_entries = 0;
  // With kSubnetRouteSlSlices: the route-SL slice the access node holds
  // (borrowed; it must outlive the engine). Used when it is of the SMDB's
  // routing; the records of sources it does not cover are marked.
  const RouteSlTable* route_sl_slice = nullptr;
  // Whether the PRDBs built carry the prefix rows (prefix_rows.h). False
  // builds them as access nodes before those rows did (ibssa's
  // prefix_rows option, for tests of consumers' fallback): consumers then
  // send every DGID of another subnet to the SA.
  bool prefix_rows = true;
};

class PathEngine {
 public:
  explicit PathEngine(const SmdbIndex* index, PathEngineOptions options = {});

  // The SA's answer to "SLID slid, DLID dlid": *out is the 64-byte record
  // in network order (as in the SubnAdmGetResp) when kOk, all zero
  // otherwise.
  PathStatus Compute(uint16_t slid, uint16_t dlid, ibv_path_record* out) const;

  // The SA's answer to "SGID prefix:sguid, DGID prefix:dguid" (port GUIDs
  // of ports with LIDs): OpenSM tries (base+k, base+k) for k = 0, 1, ...
  // (Preference 0), then the other LID pairs, source-major (Preference 2),
  // and answers the first that has a path. kUnknownSlid/kUnknownDlid for a
  // GUID no port with a LID has; otherwise, without a path, the base
  // pair's status.
  PathStatus ComputeByGuid(uint64_t sguid, uint64_t dguid, ibv_path_record* out) const;

  // The SA's answer to "SGID sgid, DGID dgid" (16 bytes each, network
  // order), whatever the DGID's subnet (off_subnet.h):
  //   - an SGID of another prefix (not link-local) or of no port with a
  //     LID: kUnknownSlid;
  //   - a DGID of this subnet (its prefix, link-local or multicast): the
  //     port with its interface id, as ComputeByGuid;
  //   - a DGID of another subnet: the path to the router port its prefix
  //     route names (kNoRouter when none), computed as to any local port
  //     (SL, MTU, rate, lifetime, P_Key, QoS level, engine SLs: the
  //     router port is the destination), with HopLimit 255, FlowLabel
  //     and TClass 0 and the DGID asked for (what pr_rcv_build_pr writes);
  // and in every record the SGID asked for, as the SA copies it. Its
  // marks (kPathInexact*, SL span) are InexactFlags() of the record's
  // SLID and DLID.
  PathStatus ComputeByGid(const uint8_t sgid[16], const uint8_t dgid[16],
                          ibv_path_record* out) const;

  // f(dlid, status, record) for every assigned LID, ascending.
  template <class F>
  void ForEachDestination(uint16_t slid, F&& f) const {
    ibv_path_record rec;
    for (uint16_t dlid : index_->assigned_lids()) {
      PathStatus st = Compute(slid, dlid, &rec);
      f(dlid, st, static_cast<const ibv_path_record&>(rec));
    }
  }

  struct Result {
    uint16_t slid = 0;
    uint16_t dlid = 0;
    PathStatus status = PathStatus::kOk;
    ibv_path_record rec;
  };
  // Appends one Result per assigned LID (the vector grows; the paths don't).
  void ComputeAll(uint16_t slid, std::vector<Result>* out) const;

  // The kPathInexact* reasons why the SA may answer slid -> dlid otherwise
  // than Compute() does (0 when the record is exact), with the SL span
  // bits (PathSlSpanBits) of a record whose SL the SA draws. (Computes the
  // path.)
  uint8_t InexactFlags(uint16_t slid, uint16_t dlid) const;
  // Compute() as a PRDB record, marked with InexactFlags(): the one way
  // the engine's answers become PRDB records (BuildPrdb, access nodes'
  // patches).
  PathStatus ComputePrdb(uint16_t slid, uint16_t dlid, PrdbPath* out) const;

  const SmdbIndex& index() const { return *index_; }
  const PathEngineOptions& options() const { return options_; }
  // Where the routing engine's SLs come from (the SMDB's, a slice's), or
  // null when the records of an SL-choosing engine are marked.
  const RouteSlTable* route_sls() const { return route_sls_; }
  // Whether walks use the route-suffix table (route_suffix_max_entries).
  bool has_route_suffixes() const { return suffixes_ != nullptr; }
  const RouteSuffixes* route_suffixes() const { return suffixes_.get(); }
  // The per-destination facts whole PRDBs fold their records from
  // (whole_prdb.h), or null when a record may depend on more than its
  // walks and its ends' P_Key tables: no route-suffix table, a QoS
  // policy, routing-engine SLs, the Tavor quirk, SL2VL drops, or a query
  // other than the PRDB's (PathEngineOptions::ForPrdb()).
  const WholePrdbPlan* whole_prdb_plan() const { return whole_prdb_plan_.get(); }
  // The kPathInexact* marks every record of this SMDB carries.
  uint8_t inexact_marks() const { return inexact_; }
  // What of the SA's answer this SMDB cannot predict, e.g. "QoS levels
  // (opt.qos)"; empty when the engine is exact for this subnet.
  std::string Limitations() const;

 private:
  // What OpenSM's pr_rcv_get_path_parms computes for one direction.
  struct Params {
    uint8_t mtu = 0, rate = 0, life = 0, sl = 0;
    uint16_t pkey = 0;
  };
  PathStatus GetParams(uint32_t src, uint32_t dst, uint16_t dlid, const QosQuery& q,
                       Params* out) const;
  // The SA's answer to slid -> dlid before it is written out: the one
  // computation behind ComputeMarked (the 64-byte record) and ComputePrdb
  // (a PRDB record, written directly: whole PRDBs make millions).
  struct Answer {
    uint32_t src = 0, dst = 0;  // port indexes
    uint16_t pkey = 0;
    uint8_t sl = 0, mtu = 0, rate = 0, life = 0;  // rate: SaFinalRate's
    bool reversible = false;
    uint8_t marks = 0;  // kPathInexact* and the SL span bits, set on failure too
  };
  PathStatus Solve(uint16_t slid, uint16_t dlid, Answer* out) const;
  // Compute(), and in *marks (may be null) the PrdbPath::flags bits the
  // engine adds: kPathInexact* and the SL span (PathSlSpanBits).
  PathStatus ComputeMarked(uint16_t slid, uint16_t dlid, ibv_path_record* out,
                           uint8_t* marks) const;
  // osm_qos_level_get_shared_pkey: the first P_Key of the level's ranges
  // both tables share, 0 if none.
  uint16_t LevelSharedPkey(const QosLevel& level, uint32_t table_a, uint32_t table_b) const;
  // What a walk meets: the lowest MTU and rate on the way, and the SLs no
  // SL2VL table on the way sends to VL15 (QoS on).
  struct WalkLimits {
    uint8_t mtu = 0, rate = 0;
    uint16_t valid_sls = 0xffff;
  };
  // Follows OpenSM's pr_rcv_get_path_parms walk; false if it fails. Tries
  // FirstStepShortcut, then WalkHopByHop.
  bool Walk(uint32_t src, uint32_t dst, uint16_t dlid, WalkLimits* out) const;
  // Where a shortcut through the route-suffix table (route_suffixes.h)
  // left the walk: at its end (*out filled in), at a dead end, or with
  // nothing found (walk on hop by hop).
  enum class Shortcut { kReached, kNoPath, kWalkOn };
  // A CA source's whole walk to a LID its destination owns in two lookups:
  // its first step folded (RouteSuffixes::FirstStep) and the table's suffix
  // from that switch. `drops`: SL2VL tables may drop SLs.
  Shortcut FirstStepShortcut(uint32_t src, uint32_t dst, uint16_t dlid, bool drops,
                             WalkLimits* out) const;
  // The reference walk: the source port, then per switch its ingress port,
  // its LFT's egress port and SL2VL table, then the end port; from any
  // switch the rest in one SuffixShortcut when the table has it.
  bool WalkHopByHop(uint32_t src, uint32_t dst, uint16_t dlid, bool drops, WalkLimits* out) const;
  // The rest of a walk from switch `node`, `hops` switches in, from the
  // table: the same steps as WalkHopByHop, made once per switch.
  Shortcut SuffixShortcut(uint32_t node, uint16_t dlid, int hops, const WalkLimits& so_far,
                          WalkLimits* out) const;
  // The source port's MTU, as the Tavor quirk may lower it.
  uint8_t SourceMtu(const SmdbIndex::Port& src, uint32_t dst) const;
  // Drops from limits->valid_sls the SLs the SL2VL table of port `egress`
  // for traffic from `in_port` sends to VL15; false when none is left.
  bool DropSls(uint32_t egress, uint8_t in_port, WalkLimits* limits) const;

  const SmdbIndex* index_;
  PathEngineOptions options_;
  uint8_t inexact_ = 0;             // kPathInexact*: what the SMDB says the engine cannot predict
  const QosPolicy* qos_ = nullptr;  // with QoS on and a policy in the SMDB
  bool routing_sl_ = false;         // the routing engine picks path SLs
  const RouteSlTable* route_sls_ = nullptr;        // its SLs: the SMDB's, a slice's, or none
  bool sl2vl_ = false;                             // QoS on: SL2VL tables may drop SLs
  uint32_t requester_ = SmdbIndex::kNone;          // resolved requester_lid
  std::shared_ptr<const RouteSuffixes> suffixes_;  // or null: hop by hop
  std::shared_ptr<const WholePrdbPlan> whole_prdb_plan_;
};

// "qos", "routing-sl" or "qos,routing-sl" for kPathInexact* bits; "" for 0.
std::string InexactReasons(uint8_t flags);

// The SA's last word on a path's rate (osm_sa_path_record.c,
// pr_rcv_build_pr): with use_original_extended_sa_rates_only
// (`original_only`), the 2x rates and those above 300 Gb/s become the
// original extended one below (ib_path_rate_max_12xedr); otherwise a 2x or
// HDR rate is lowered to what the source port (SmdbIndex::Port::rate_caps),
// then for a reversible path the destination's, can run
// (ib_path_rate_2x_hdr_fixups).
uint8_t SaFinalRate(uint8_t rate, bool original_only, uint8_t src_caps, uint8_t dst_caps,
                    bool reversible);

// The PRDB form of an SA-format record: codes without selector bits.
void ToPrdbPath(const ibv_path_record& rec, PrdbPath* out);
// The inverse: the 64-byte record the SA answers (selector "exactly" on
// MTU, rate and PacketLifeTime, NumbPath 0), from a PRDB path.
void FromPrdbPath(const PrdbPath& path, ibv_path_record* out);

}  // namespace smdb
}  // namespace ssa

#endif
