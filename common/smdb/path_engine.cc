// path_engine.cc: PathEngine (path_engine.h). The walk and the field rules
// follow OpenSM 3.3.23's osm_sa_path_record.c step by step, including its
// quirks, because the goal is the SA's answer, not the ideal one.
#include "common/smdb/path_engine.h"

#include <algorithm>
#include <cstring>

#include "common/base/big_endian.h"
#include "common/smdb/off_subnet.h"
#include "common/smdb/whole_prdb.h"

namespace ssa {
namespace smdb {
namespace {

constexpr uint8_t kMtu1024 = 3;
// Selector 2 ("exactly") in the top two bits of MTU, Rate, PacketLifeTime.
constexpr uint8_t kSelectorExactly = 0x80;
constexpr uint8_t kReversibleBit = 0x80;

}  // namespace

// PathRecord rate codes the last step below maps.
static constexpr uint8_t kRate20 = 6, kRate40 = 7, kRate25 = 15, kRate300 = 18, kRate28 = 19,
                         kRate50 = 20, kRate400 = 21, kRate600 = 22;

// ib_path_rate_2x_hdr_fixups: a 2x or HDR rate the port at one end cannot
// run is lowered (28 Gb/s is 2x only, 400 and 600 HDR only, 50 either).
static uint8_t FixUp2xHdr(uint8_t rate, uint8_t caps) {
  const bool mask2 = caps & SmdbIndex::kRateCapMask2;
  const bool w2x = mask2 && (caps & SmdbIndex::kRateCap2x);
  const bool hdr = mask2 && (caps & SmdbIndex::kRateCapHdr);
  switch (rate) {
    case kRate28:
      if (!w2x) return (caps & SmdbIndex::kRateCapExtSpeeds) ? kRate25 : kRate20;
      return rate;
    case kRate50: return w2x || hdr ? rate : kRate40;
    case kRate400:
    case kRate600: return hdr ? rate : kRate300;
    default: return rate;
  }
}

uint8_t SaFinalRate(uint8_t rate, bool original_only, uint8_t src_caps, uint8_t dst_caps,
                    bool reversible) {
  if (original_only) {
    switch (rate) {
      case kRate28: return kRate25;
      case kRate50: return kRate40;
      case kRate400:
      case kRate600: return kRate300;
      default: return rate <= kRate300 ? rate : 0;
    }
  }
  if (rate < kRate28) return rate;
  rate = FixUp2xHdr(rate, src_caps);
  return reversible ? FixUp2xHdr(rate, dst_caps) : rate;
}

const char* PathStatusName(PathStatus status) {
  switch (status) {
    case PathStatus::kOk: return "ok";
    case PathStatus::kUnknownSlid: return "unknown-slid";
    case PathStatus::kUnknownDlid: return "unknown-dlid";
    case PathStatus::kNoRoute: return "no-route";
    case PathStatus::kNoSharedPkey: return "no-shared-pkey";
    case PathStatus::kNotReversible: return "not-reversible";
    case PathStatus::kNoRouter: return "no-router";
  }
  return "unknown";
}

PathEngine::PathEngine(const SmdbIndex* index, PathEngineOptions options)
    : index_(index), options_(options) {
  if (options_.requester_lid != 0) requester_ = index_->PortByLid(options_.requester_lid);
  uint32_t flags = index_->subnet().flags;
  if (flags & kSubnetQos) qos_ = index_->qos();
  // Per-hop SL2VL drops depend on the ingress port: no table then.
  if (options_.route_suffix_max_entries != 0 &&
      !((flags & kSubnetQos) && index_->has_sl2vl_drops()))
    suffixes_ = RouteSuffixes::Build(*index_, options_.route_suffix_max_entries);
  // With QoS on, the SA's answer depends on the policy and on the SL2VL
  // tables that send SLs to VL15: the engine applies both when the SMDB
  // carries them (format minor 1), and marks every record inexact when it
  // does not (a plugin that does not report them, drops without their
  // tables, a policy not in the SMDB). QoS on with neither a policy nor an
  // SL mapped to VL15 leaves the SA's answer as without QoS (partition
  // SLs; osm_sa_path_record.c).
  sl2vl_ = (flags & kSubnetQos) != 0;
  if ((flags & kSubnetQos) && (!(flags & kSubnetQosReported) ||
                               ((flags & kSubnetSl2VlDrops) && !(flags & kSubnetSl2VlTables)) ||
                               ((flags & kSubnetQosPolicy) && !qos_)))
    inexact_ |= kPathInexactQos;
  // An engine that picks SLs: its answers, when the SMDB carries them
  // (per pair and hint, see ComputeMarked), else every record is marked.
  routing_sl_ = (flags & kSubnetRoutingSl) != 0;
  route_sls_ = index_->route_sls();
  const RouteSlTable* slice = options_.route_sl_slice;
  if (!route_sls_ && (flags & kSubnetRouteSlSlices) && slice &&
      slice->Of(index_->subnet(), index_->route_sl_generation()))
    route_sls_ = slice;
  if (routing_sl_ && !route_sls_) inexact_ |= kPathInexactRoutingSl;
  // Whole PRDBs fold their records (whole_prdb.cc) when nothing but the
  // walks and the P_Key tables decides them.
  if (suffixes_ && options_.pkey_from_path && options_.requester_lid == 0 &&
      !options_.require_reversible && !qos_ && !routing_sl_ && !(flags & kSubnetEnableQuirks) &&
      !(sl2vl_ && index_->has_sl2vl_drops()))
    whole_prdb_plan_ = std::make_shared<const WholePrdbPlan>(*index_, *suffixes_);
}

uint8_t PathEngine::InexactFlags(uint16_t slid, uint16_t dlid) const {
  ibv_path_record rec;
  uint8_t marks = 0;
  ComputeMarked(slid, dlid, &rec, &marks);
  return marks;
}

PathStatus PathEngine::ComputePrdb(uint16_t slid, uint16_t dlid, PrdbPath* out) const {
  Answer a;
  PathStatus st = Solve(slid, dlid, &a);
  if (st != PathStatus::kOk) return st;
  // The record Compute() writes, as ToPrdbPath reads it (path_engine_test
  // checks every pair both ways), without the 64 network-order bytes.
  const SmdbIndex& x = *index_;
  *out = PrdbPath{};
  x.PutGid(x.port(a.dst).port_guid, out->dgid.data());
  x.PutGid(x.port(a.src).port_guid, out->sgid.data());
  out->dlid = dlid;
  out->slid = slid;
  out->pkey = a.pkey;
  out->sl = a.sl & 0xF;
  out->mtu = a.mtu & 0x3F;
  out->rate = a.rate & 0x3F;
  out->packet_life = a.life & 0x3F;
  out->flags = static_cast<uint8_t>((a.reversible ? kPathReversible : 0) | a.marks);
  return st;
}

std::string InexactReasons(uint8_t flags) {
  std::string out;
  if (flags & kPathInexactQos) out = "qos";
  if (flags & kPathInexactRoutingSl) out += out.empty() ? "routing-sl" : ",routing-sl";
  return out;
}

std::string PathEngine::Limitations() const {
  std::string out;
  auto add = [&out](const char* what) {
    if (!out.empty()) out += "; ";
    out += what;
  };
  uint32_t flags = index_->subnet().flags;
  if ((flags & kSubnetQos) && !(flags & kSubnetQosReported))
    add("QoS levels and SL2VL tables (opt.qos) may change SL, MTU, rate, lifetime");
  if ((flags & kSubnetQos) && (flags & kSubnetQosPolicy) && !qos_)
    add("a QoS policy the SMDB does not carry may change SL, MTU, rate, lifetime, P_Key");
  if ((flags & kSubnetQos) && (flags & kSubnetSl2VlDrops) && !(flags & kSubnetSl2VlTables))
    add("SL2VL tables the SMDB does not carry map SLs to VL15, which drops paths on those SLs");
  if ((flags & kSubnetRoutingSl) && !route_sls_)
    add((flags & kSubnetRouteSlSlices)
            ? "the routing engine chooses path SLs and no route-SL slice of this routing is held"
            : "the routing engine chooses path SLs and the SMDB does not carry them");
  if (options_.requester_lid != 0 && requester_ == SmdbIndex::kNone)
    add("the requester LID is not in the SMDB (the SA would not answer)");
  return out;
}

// Walk and its steps are inlined into GetParams: the walk runs twice per
// record, and a shared library's exported functions are otherwise called
// through the PLT and not inlined (-fPIC), which costs PrdbBuild some 8 %
// more instructions.
#define SSA_WALK_STEP [[gnu::always_inline]] inline

SSA_WALK_STEP PathEngine::Shortcut PathEngine::FirstStepShortcut(uint32_t src, uint32_t dst,
                                                                 uint16_t dlid, bool drops,
                                                                 WalkLimits* out) const {
  // Not with the Tavor MTU quirk (it reads both ends' nodes), nor with
  // SL2VL drops (they depend on each hop's ingress port).
  const SmdbIndex& x = *index_;
  if (!suffixes_ || drops || (x.subnet().flags & kSubnetEnableQuirks)) return Shortcut::kWalkOn;
  const RouteSuffixes::FirstStep* f = suffixes_->first_step(src);
  if (!f) return Shortcut::kWalkOn;  // not a CA source
  const uint32_t end = WalkEndPort(x, dst, dlid);
  if (end == SmdbIndex::kNone) return Shortcut::kNoPath;
  // Only to a LID dst owns (the table's walks end there), and not when the
  // first step already reaches the end.
  RouteSuffixes::Suffix sfx;
  RouteSuffixes::Lookup found = RouteSuffixes::Lookup::kUnknown;
  if (end != src && f->peer != end && x.PortByLid(dlid) == dst)
    found = suffixes_->GetRow(f->row, dlid, &sfx);
  if (found == RouteSuffixes::Lookup::kNoRoute) return Shortcut::kNoPath;
  if (found != RouteSuffixes::Lookup::kReached) return Shortcut::kWalkOn;  // walked hop by hop
  if (sfx.hops > kMaxPathHops) return Shortcut::kNoPath;
  out->mtu = std::min(f->mtu, sfx.mtu);
  out->rate = LowerRate(f->rate, sfx.rate);
  out->valid_sls = 0xffff;
  return Shortcut::kReached;
}

SSA_WALK_STEP PathEngine::Shortcut PathEngine::SuffixShortcut(uint32_t node, uint16_t dlid,
                                                              int hops, const WalkLimits& so_far,
                                                              WalkLimits* out) const {
  RouteSuffixes::Suffix sfx;
  RouteSuffixes::Lookup found = suffixes_->Get(node, dlid, &sfx);
  if (found == RouteSuffixes::Lookup::kNoRoute) return Shortcut::kNoPath;
  if (found != RouteSuffixes::Lookup::kReached) return Shortcut::kWalkOn;
  if (hops + sfx.hops > kMaxPathHops) return Shortcut::kNoPath;
  out->mtu = std::min(so_far.mtu, sfx.mtu);
  out->rate = LowerRate(so_far.rate, sfx.rate);
  out->valid_sls = so_far.valid_sls;
  return Shortcut::kReached;
}

SSA_WALK_STEP uint8_t PathEngine::SourceMtu(const SmdbIndex::Port& src, uint32_t dst) const {
  // OpenSM's Tavor quirk: a path with a Tavor at either end is held to a
  // 1K MTU (opt.enable_quirks).
  const SmdbIndex& x = *index_;
  if ((x.subnet().flags & kSubnetEnableQuirks) && src.mtu_cap > kMtu1024 &&
      (x.node_of(src).tavor || x.node_of(x.port(dst)).tavor))
    return kMtu1024;
  return src.mtu_cap;
}

SSA_WALK_STEP bool PathEngine::DropSls(uint32_t egress, uint8_t in_port, WalkLimits* limits) const {
  limits->valid_sls &= static_cast<uint16_t>(~index_->Sl2VlDrops(egress, in_port));
  return limits->valid_sls != 0;
}

SSA_WALK_STEP bool PathEngine::WalkHopByHop(uint32_t src, uint32_t dst, uint16_t dlid, bool drops,
                                            WalkLimits* out) const {
  const SmdbIndex& x = *index_;
  const SmdbIndex::Port* p = &x.port(src);
  WalkLimits lim{SourceMtu(*p, dst), p->rate_own, 0xffff};
  uint32_t cur = src;
  // A switch source leaves through its LFT entry; its port 0 counted above,
  // the egress port itself is never read (as in OpenSM).
  if (x.node_of(*p).type == kNodeSwitch) {
    cur = x.LftEgress(p->node, dlid);
    if (cur == SmdbIndex::kNone) return false;
  }
  // The source port's own SL2VL table (in port 0).
  if (drops && !DropSls(cur, 0, &lim)) return false;
  uint32_t end = WalkEndPort(x, dst, dlid);
  if (end == SmdbIndex::kNone) return false;
  // The table's walks end where this one does when `dlid` is dst's own.
  const bool use_suffixes = suffixes_ && !drops && x.PortByLid(dlid) == dst;

  int hops = 0;
  while (cur != end) {
    uint32_t in = x.port(cur).peer;
    if (in == SmdbIndex::kNone) return false;  // no link
    cur = in;
    if (cur == end) break;  // point to point
    p = &x.port(cur);
    if (x.node_of(*p).type != kNodeSwitch) return false;  // a CA that is not the end
    uint8_t in_port = p->port_num;
    // Ingress port: capability from port 0 for the comparison and the value.
    lim.mtu = std::min(lim.mtu, p->mtu_cap);
    lim.rate = LowerRate(lim.rate, p->rate);
    if (use_suffixes) {
      Shortcut s = SuffixShortcut(p->node, dlid, hops, lim, out);
      if (s != Shortcut::kWalkOn) return s == Shortcut::kReached;
    }
    cur = x.LftEgress(p->node, dlid);
    if (cur == SmdbIndex::kNone) return false;
    // Egress port: port 0's capability again. (Later OpenSMs take the value
    // with the port's own capability mask here; 3.3.23 does not, as the
    // simulated fabric's SA confirms with mixed extended speeds.)
    p = &x.port(cur);
    lim.mtu = std::min(lim.mtu, p->mtu_cap);
    lim.rate = LowerRate(lim.rate, p->rate);
    // The switch's egress table, for the port the walk came in on.
    if (drops && !DropSls(cur, in_port, &lim)) return false;
    if (++hops > kMaxPathHops) return false;
  }
  p = &x.port(cur);
  lim.mtu = std::min(lim.mtu, p->mtu_cap);
  lim.rate = LowerRate(lim.rate, p->rate_own);
  *out = lim;
  return true;
}

SSA_WALK_STEP bool PathEngine::Walk(uint32_t src, uint32_t dst, uint16_t dlid,
                                    WalkLimits* out) const {
  // With QoS on, SLs an SL2VL table on the way sends to VL15 are dropped.
  const bool drops = sl2vl_ && index_->has_sl2vl_drops();
  Shortcut s = FirstStepShortcut(src, dst, dlid, drops, out);
  if (s != Shortcut::kWalkOn) return s == Shortcut::kReached;
  return WalkHopByHop(src, dst, dlid, drops, out);
}

PathStatus PathEngine::GetParams(uint32_t src, uint32_t dst, uint16_t dlid, const QosQuery& q,
                                 Params* out) const {
  const SmdbIndex& x = *index_;
  const SmdbIndex::Port& s = x.port(src);
  const SmdbIndex::Port& d = x.port(dst);
  WalkLimits walk;
  if (!Walk(src, dst, dlid, &walk)) return PathStatus::kNoRoute;
  out->mtu = walk.mtu;
  out->rate = walk.rate;
  const uint16_t valid = walk.valid_sls;  // SLs no SL2VL table on the way drops
  // The qos-level of the first match rule, or the default level.
  const QosLevel* level =
      qos_ ? qos_->Match(q, s.port_guid, x.node_of(s).type, d.port_guid, x.node_of(d).type)
           : nullptr;
  uint8_t lf = level ? level->flags : 0;
  if ((lf & kQosLevelMtu) && out->mtu > level->mtu_limit) out->mtu = level->mtu_limit;
  if (lf & kQosLevelRate) out->rate = LowerRate(out->rate, level->rate_limit);
  if ((lf & kQosLevelSl) && !(valid & (1u << (level->sl & 0xf)))) return PathStatus::kNoRoute;
  out->life = src == dst ? 0 : (lf & kQosLevelLife) ? level->pkt_life : x.subnet().subnet_timeout;
  // The P_Key: the query's (both ends must share it, and a level with
  // P_Keys must list it), else the first the level lists that both share,
  // else the first both share.
  uint16_t pkey = 0;
  bool level_pkeys = level && !level->pkeys.empty();
  if (q.has_pkey) {
    if (!x.ShareThisPkey(s.pkey_table, d.pkey_table, q.pkey)) return PathStatus::kNoSharedPkey;
    if (level_pkeys && !level->HasPkey(q.pkey)) return PathStatus::kNoSharedPkey;
    pkey = q.pkey;
  } else if (level_pkeys) {
    pkey = LevelSharedPkey(*level, s.pkey_table, d.pkey_table);
  } else {
    pkey = x.CommonPkey(s.pkey_table, d.pkey_table);
  }
  if (pkey == 0) return PathStatus::kNoSharedPkey;
  out->pkey = pkey;
  // The SL: the level's, else the partition's (the SA's default SL for a
  // P_Key without a partition).
  out->sl = (lf & kQosLevelSl) ? level->sl : x.PartitionSl(pkey, x.subnet().default_sl);
  if (!(valid & (1u << (out->sl & 0xf)))) return PathStatus::kNoRoute;  // "leads to VL15"
  return PathStatus::kOk;
}

uint16_t PathEngine::LevelSharedPkey(const QosLevel& level, uint32_t table_a,
                                     uint32_t table_b) const {
  // osm_qos_level_get_shared_pkey: every value of every range, in order.
  for (const QosRange& r : level.pkeys)
    for (uint64_t p = r.lo; p <= r.hi && p <= 0xffff; ++p)
      if (index_->ShareThisPkey(table_a, table_b, static_cast<uint16_t>(p)))
        return static_cast<uint16_t>(p);
  return 0;
}

PathStatus PathEngine::Compute(uint16_t slid, uint16_t dlid, ibv_path_record* out) const {
  return ComputeMarked(slid, dlid, out, nullptr);
}

PathStatus PathEngine::Solve(uint16_t slid, uint16_t dlid, Answer* a) const {
  uint8_t* marks = &a->marks;
  *marks = inexact_;
  const SmdbIndex& x = *index_;
  uint32_t src = x.PortByLid(slid);
  if (src == SmdbIndex::kNone) return PathStatus::kUnknownSlid;
  uint32_t dst = x.PortByLid(dlid);
  if (dst == SmdbIndex::kNone) return PathStatus::kUnknownDlid;
  const SmdbIndex::Port& s = x.port(src);
  const SmdbIndex::Port& d = x.port(dst);

  // pr_rcv_get_port_pair_paths: the requester must share a P_Key with both
  // ends (as osm_port_share_pkey sees it) before anything is computed.
  if (options_.requester_lid != 0) {
    if (requester_ == SmdbIndex::kNone) return PathStatus::kNoSharedPkey;
    if (!x.SharePkey(requester_, src) || !x.SharePkey(requester_, dst))
      return PathStatus::kNoSharedPkey;
  }
  QosQuery q = options_.query;
  if (options_.pkey_from_path) {
    q.has_pkey = true;
    q.pkey = x.CommonPkey(s.pkey_table, d.pkey_table);
    if (q.pkey == 0) return PathStatus::kNoSharedPkey;
  }
  Params f;
  PathStatus st = GetParams(src, dst, dlid, q, &f);
  if (st != PathStatus::kOk) return st;
  // The reverse path, DLID's port back to the SLID, for the same query.
  Params r;
  bool reversible = GetParams(dst, src, slid, q, &r) == PathStatus::kOk;
  if (!reversible && options_.require_reversible) return PathStatus::kNotReversible;
  // Last, the routing engine has its say: the SL it gives with ours as
  // the hint, as the SMDB recorded the engine's answers.
  uint8_t engine_sl = 0, span = 1;
  if (routing_sl_ && route_sls_ && route_sls_->Find(slid, dlid, f.sl, &engine_sl, &span)) {
    f.sl = engine_sl;
    *marks |= PathSlSpanBits(span);  // the SA's SL is one of span
  } else if (routing_sl_) {
    *marks |= kPathInexactRoutingSl;
  }

  a->src = src;
  a->dst = dst;
  a->pkey = f.pkey;
  a->sl = f.sl;
  a->mtu = f.mtu;
  a->rate = SaFinalRate(f.rate, (x.subnet().flags & kSubnetOriginalSaRates) != 0, s.rate_caps,
                        d.rate_caps, reversible);
  a->life = f.life;
  a->reversible = reversible;
  return PathStatus::kOk;
}

PathStatus PathEngine::ComputeMarked(uint16_t slid, uint16_t dlid, ibv_path_record* out,
                                     uint8_t* marks) const {
  memset(out, 0, sizeof(*out));
  Answer a;
  PathStatus st = Solve(slid, dlid, &a);
  if (marks) *marks = a.marks;
  if (st != PathStatus::kOk) return st;
  const SmdbIndex& x = *index_;
  x.PutGid(x.port(a.dst).port_guid, out->dgid.raw);
  x.PutGid(x.port(a.src).port_guid, out->sgid.raw);
  out->dlid = ToBe16(dlid);
  out->slid = ToBe16(slid);
  out->reversible_numpath = a.reversible ? kReversibleBit : 0;
  out->pkey = ToBe16(a.pkey);
  out->qosclass_sl = ToBe16(a.sl & 0xF);
  out->mtu = static_cast<uint8_t>(kSelectorExactly | (a.mtu & 0x3F));
  out->rate = static_cast<uint8_t>(kSelectorExactly | (a.rate & 0x3F));
  out->packetlifetime = static_cast<uint8_t>(kSelectorExactly | (a.life & 0x3F));
  return PathStatus::kOk;
}

PathStatus PathEngine::ComputeByGuid(uint64_t sguid, uint64_t dguid, ibv_path_record* out) const {
  const SmdbIndex& x = *index_;
  uint32_t src = x.PortByGuid(sguid), dst = x.PortByGuid(dguid);
  if (src == SmdbIndex::kNone || x.port(src).base_lid == 0) {
    memset(out, 0, sizeof(*out));
    return PathStatus::kUnknownSlid;
  }
  if (dst == SmdbIndex::kNone || x.port(dst).base_lid == 0) {
    memset(out, 0, sizeof(*out));
    return PathStatus::kUnknownDlid;
  }
  const uint32_t s0 = x.port(src).base_lid, s_max = s0 + (1u << x.port(src).lmc) - 1;
  const uint32_t d0 = x.port(dst).base_lid, d_max = d0 + (1u << x.port(dst).lmc) - 1;
  // pr_rcv_get_port_pair_paths with NumbPath 1 (SubnAdmGet): first the
  // "fully redundant" pairs, both LIDs stepping together...
  PathStatus first = PathStatus::kOk;
  for (uint32_t s = s0, d = d0; s <= s_max && d <= d_max; ++s, ++d) {
    PathStatus st = Compute(static_cast<uint16_t>(s), static_cast<uint16_t>(d), out);
    if (st == PathStatus::kOk) return st;
    if (s == s0) first = st;
  }
  // ... then every other pair (offsets differ), Preference 2.
  for (uint32_t s = s0; s <= s_max; ++s) {
    for (uint32_t d = d0; d <= d_max; ++d) {
      if (s - s0 == d - d0) continue;
      if (Compute(static_cast<uint16_t>(s), static_cast<uint16_t>(d), out) == PathStatus::kOk) {
        out->preference = 2;
        return PathStatus::kOk;
      }
    }
  }
  memset(out, 0, sizeof(*out));
  return first;
}

PathStatus PathEngine::ComputeByGid(const uint8_t sgid[16], const uint8_t dgid[16],
                                    ibv_path_record* out) const {
  const uint64_t prefix = index_->subnet().subnet_prefix;
  if (IsForeignSgid(sgid, prefix)) {
    memset(out, 0, sizeof(*out));
    return PathStatus::kUnknownSlid;
  }
  const bool remote = IsOffSubnetDgid(dgid, prefix);
  uint64_t dguid = remote ? RouterPortFor(*index_, GidPrefix(dgid)) : GidGuid(dgid);
  if (remote && dguid == 0) {
    memset(out, 0, sizeof(*out));
    return PathStatus::kNoRouter;
  }
  PathStatus st = ComputeByGuid(GidGuid(sgid), dguid, out);
  if (st != PathStatus::kOk) return st;
  // pr_rcv_build_pr: the SGID asked for; through a router, the DGID too.
  memcpy(out->sgid.raw, sgid, 16);
  if (remote) RouteThroughRouter(dgid, out);
  return st;
}

void PathEngine::ComputeAll(uint16_t slid, std::vector<Result>* out) const {
  out->reserve(out->size() + index_->assigned_lids().size());
  for (uint16_t dlid : index_->assigned_lids()) {
    out->emplace_back();
    Result& r = out->back();
    r.slid = slid;
    r.dlid = dlid;
    r.status = Compute(slid, dlid, &r.rec);
  }
}

void ToPrdbPath(const ibv_path_record& rec, PrdbPath* out) {
  *out = PrdbPath{};
  memcpy(out->dgid.data(), rec.dgid.raw, 16);
  memcpy(out->sgid.data(), rec.sgid.raw, 16);
  out->dlid = FromBe16(rec.dlid);
  out->slid = FromBe16(rec.slid);
  out->pkey = FromBe16(rec.pkey);
  out->sl = static_cast<uint8_t>(FromBe16(rec.qosclass_sl) & 0xF);
  out->mtu = rec.mtu & 0x3F;
  out->rate = rec.rate & 0x3F;
  out->packet_life = rec.packetlifetime & 0x3F;
  uint32_t fh = FromBe32(rec.flowlabel_hoplimit);
  out->hop_limit = static_cast<uint8_t>(fh & 0xFF);
  out->flow_label = (fh >> 8) & 0xFFFFF;
  out->traffic_class = rec.tclass;
  out->preference = rec.preference;
  out->flags = (rec.reversible_numpath & kReversibleBit) ? kPathReversible : 0;
}

void FromPrdbPath(const PrdbPath& p, ibv_path_record* out) {
  *out = ibv_path_record{};
  memcpy(out->dgid.raw, p.dgid.data(), 16);
  memcpy(out->sgid.raw, p.sgid.data(), 16);
  out->dlid = ToBe16(p.dlid);
  out->slid = ToBe16(p.slid);
  out->flowlabel_hoplimit = ToBe32((p.flow_label & 0xFFFFF) << 8 | p.hop_limit);
  out->tclass = p.traffic_class;
  out->reversible_numpath = (p.flags & kPathReversible) ? kReversibleBit : 0;
  out->pkey = ToBe16(p.pkey);
  out->qosclass_sl = ToBe16(p.sl & 0xF);
  out->mtu = static_cast<uint8_t>(kSelectorExactly | (p.mtu & 0x3F));
  out->rate = static_cast<uint8_t>(kSelectorExactly | (p.rate & 0x3F));
  out->packetlifetime = static_cast<uint8_t>(kSelectorExactly | (p.packet_life & 0x3F));
  out->preference = p.preference;
}

}  // namespace smdb
}  // namespace ssa
