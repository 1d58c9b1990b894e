// whole_prdb.cc: BuildPrdb and WritePrdbImage (whole_prdb.h).
//
// The fold repeats, for the pairs it covers, what PathEngine::Solve and
// GetParams do with the PRDB query (pkey_from_path) when no QoS policy,
// routing-engine SL, requester, Tavor quirk or SL2VL drop takes part (the
// engine says so by having a plan):
//   - P_Key: CommonPkey(source table, destination table); none, no path;
//     the forward direction must share it (ShareThisPkey), the reverse
//     one too for Reversible;
//   - the forward walk: the source's first step folded with its switch's
//     suffix to the DLID (PathEngine::Walk's CA fast path); the reverse
//     (whether it succeeds: only Reversible depends on it): from a CA,
//     its first step's switch's suffix to the SLID; from a switch, its own
//     row's (its walk leaves through its LFT, port 0 and the egress port
//     unread, and reaches the same switches). More than kMaxPathHops
//     switches fails a walk. The table marks a suffix past the limit as
//     no route, and a switch's own walk counts one switch fewer than its
//     row: a switch's "no route" back is solved, not trusted;
//   - SL: the P_Key's partition SL; PacketLifeTime: subnet_timeout (the
//     ends differ); rate: SaFinalRate; flags: Reversible and the engine's
//     subnet-wide marks.
// Anything else goes to ComputePrdb, which stays the definition.
#include "common/smdb/whole_prdb.h"

#include <endian.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "common/smdb/prdb_image.h"
#include "common/smdb/prefix_rows.h"
#include "common/smdb/smdb_codec.h"

namespace ssa {
namespace smdb {

WholePrdbPlan::WholePrdbPlan(const SmdbIndex& x, const RouteSuffixes& t) {
  dest_.reserve(x.lids_by_guid().size());
  for (uint16_t lid : x.lids_by_guid()) {
    Destination d;
    d.port = x.PortByLid(lid);
    const SmdbIndex::Port& p = x.port(d.port);
    d.guid = p.port_guid;
    d.lid = lid;
    d.pkey_table = p.pkey_table;
    d.rate_caps = p.rate_caps;
    if (x.node_of(p).type == kNodeSwitch) {
      // The walk there ends where its LFT sends its LID: port 0 itself,
      // or else the pair is solved.
      if (WalkEndPort(x, d.port, lid) == d.port) {
        d.kind = kSwitch;
        d.row = t.row_of(p.node);
      }
    } else if (const RouteSuffixes::FirstStep* f = t.first_step(d.port)) {
      d.kind = kCa;
      d.row = f->row;
    }
    dest_.push_back(d);
  }
}

namespace {

// What the records from one source to one destination P_Key table share.
struct PkeyAnswer {
  static constexpr uint8_t kUnset = 0, kNone = 1, kForward = 2, kBoth = 3;
  uint8_t state = kUnset;  // kNone: no record; kForward: not reversible
  uint8_t sl = 0;
  uint16_t pkey = 0;
};

// The records from `src` (a port with a LID) to local destinations, in
// key order, to emit(const PrdbPath&).
template <class Emit>
void ForEachLocalRecord(const PathEngine& engine, uint32_t src, Emit&& emit) {
  const SmdbIndex& x = engine.index();
  const SmdbIndex::Port& s = x.port(src);
  const uint32_t lids = 1u << s.lmc;
  auto solve = [&](uint16_t dlid) {
    PrdbPath solved;
    for (uint32_t k = 0; k < lids; ++k) {
      uint16_t slid = static_cast<uint16_t>(s.base_lid + k);
      if (engine.ComputePrdb(slid, dlid, &solved) == PathStatus::kOk) emit(solved);
    }
  };
  const WholePrdbPlan* plan = engine.whole_prdb_plan();
  const RouteSuffixes* t = engine.route_suffixes();
  const RouteSuffixes::FirstStep* f = t ? t->first_step(src) : nullptr;
  if (!plan || !f || x.node_of(s).type == kNodeSwitch) {
    for (uint16_t dlid : x.lids_by_guid()) solve(dlid);
    return;
  }
  const SmdbSubnet& subnet = x.subnet();
  const bool original_rates = (subnet.flags & kSubnetOriginalSaRates) != 0;
  const uint8_t marks = engine.inexact_marks();
  std::vector<PkeyAnswer> answers(x.pkey_table_count());
  PkeyAnswer no_table;
  no_table.state = PkeyAnswer::kNone;
  // The walks back from every destination to each source LID: one column
  // of the table each, by row.
  std::vector<uint16_t> back_to(t->switch_rows() * lids);
  for (uint32_t k = 0; k < lids; ++k)
    t->GetColumn(static_cast<uint16_t>(s.base_lid + k), &back_to[k * t->switch_rows()]);
  PrdbPath path;  // what every folded record shares is written once
  x.PutGid(s.port_guid, path.sgid.data());
  path.packet_life = subnet.subnet_timeout & 0x3F;
  for (const WholePrdbPlan::Destination& d : plan->destinations()) {
    if (d.kind == WholePrdbPlan::kSolve || d.port == src) {
      solve(d.lid);
      continue;
    }
    const PkeyAnswer* a = &no_table;
    if (s.pkey_table != SmdbIndex::kNone && d.pkey_table != SmdbIndex::kNone) {
      PkeyAnswer& slot = answers[d.pkey_table];
      if (slot.state == PkeyAnswer::kUnset) {
        slot.pkey = x.CommonPkey(s.pkey_table, d.pkey_table);
        slot.state = PkeyAnswer::kNone;
        // Asked both ways, as Solve does (ShareThisPkey is symmetric today).
        if (slot.pkey != 0 && x.ShareThisPkey(s.pkey_table, d.pkey_table, slot.pkey)) {
          slot.sl = x.PartitionSl(slot.pkey, subnet.default_sl);
          slot.state = x.ShareThisPkey(d.pkey_table, s.pkey_table, slot.pkey)
                           ? PkeyAnswer::kBoth
                           : PkeyAnswer::kForward;
        }
      }
      a = &slot;
    }
    if (a->state == PkeyAnswer::kNone) continue;  // no shared P_Key: no path
    RouteSuffixes::Suffix there;
    RouteSuffixes::Lookup found = t->GetRow(f->row, d.lid, &there);
    if (found == RouteSuffixes::Lookup::kUnknown) {
      solve(d.lid);
      continue;
    }
    if (found == RouteSuffixes::Lookup::kNoRoute || there.hops > kMaxPathHops) continue;
    const uint8_t mtu = std::min(f->mtu, there.mtu);
    const uint8_t rate = LowerRate(f->rate, there.rate);
    // Every source LID's walk back first: one the table cannot vouch for
    // sends the whole destination to solve(), in order.
    uint8_t flags[128];
    bool unsure = false;
    for (uint32_t k = 0; k < lids && !unsure; ++k) {
      RouteSuffixes::Suffix back;
      RouteSuffixes::Lookup b = RouteSuffixes::Decode(back_to[k * t->switch_rows() + d.row], &back);
      unsure = b == RouteSuffixes::Lookup::kUnknown ||
               (d.kind == WholePrdbPlan::kSwitch && b == RouteSuffixes::Lookup::kNoRoute);
      flags[k] = b == RouteSuffixes::Lookup::kReached && back.hops <= kMaxPathHops &&
                 a->state == PkeyAnswer::kBoth;
    }
    if (unsure) {
      solve(d.lid);
      continue;
    }
    x.PutGid(d.guid, path.dgid.data());
    path.dlid = d.lid;
    path.pkey = a->pkey;
    path.sl = a->sl & 0xF;
    path.mtu = mtu & 0x3F;
    for (uint32_t k = 0; k < lids; ++k) {
      const bool reversible = flags[k] != 0;
      path.slid = static_cast<uint16_t>(s.base_lid + k);
      path.rate = SaFinalRate(rate, original_rates, s.rate_caps, d.rate_caps, reversible) & 0x3F;
      path.flags = static_cast<uint8_t>((reversible ? kPathReversible : 0) | marks);
      emit(path);
    }
  }
}

// Every record from `src`, in key order: ForEachLocalRecord's, and the
// prefix rows (prefix_rows.h) before and after them by their DGIDs.
template <class Emit>
void ForEachRecord(const PathEngine& engine, uint32_t src, const std::vector<PrdbPath>& prefix_rows,
                   Emit&& emit) {
  uint8_t local[16];
  engine.index().PutGid(0, local);
  auto before = [&local](const PrdbPath& p) { return std::memcmp(p.dgid.data(), local, 16) < 0; };
  for (const PrdbPath& p : prefix_rows)
    if (before(p)) emit(p);
  ForEachLocalRecord(engine, src, emit);
  for (const PrdbPath& p : prefix_rows)
    if (!before(p)) emit(p);
}

// The source port of a whole PRDB, or ENOENT.
Status FindSource(const SmdbIndex& x, uint64_t port_guid, uint32_t* src) {
  *src = x.PortByGuid(port_guid);
  if (*src != SmdbIndex::kNone && x.port(*src).base_lid != 0) return Status::Ok();
  char b[64];
  snprintf(b, sizeof(b), "no port with a LID has GUID 0x%016llx",
           static_cast<unsigned long long>(port_guid));
  return Status::Error(ENOENT, b);
}

PrdbSource SourceRecord(const SmdbIndex& x, uint32_t src, uint64_t smdb_epoch) {
  const SmdbIndex::Port& s = x.port(src);
  PrdbSource so;
  so.port_guid = s.port_guid;
  so.subnet_prefix = x.subnet().subnet_prefix;
  so.base_lid = s.base_lid;
  so.lmc = s.lmc;
  so.smdb_epoch = smdb_epoch;
  return so;
}

}  // namespace

Status BuildPrdb(const PathEngine& engine, uint64_t port_guid, uint64_t smdb_epoch, Prdb* out) {
  const SmdbIndex& x = engine.index();
  uint32_t src;
  Status st = FindSource(x, port_guid, &src);
  if (!st.ok()) return st;
  Prdb db;
  db.global_epoch = smdb_epoch;
  db.source.records[0] = SourceRecord(x, src, smdb_epoch);
  std::vector<PrdbPath> prefix_rows;
  BuildPrefixRows(engine, src, &prefix_rows);
  db.paths.records.reserve((x.assigned_lids().size() << x.port(src).lmc) + prefix_rows.size());
  ForEachRecord(engine, src, prefix_rows,
                [&db](const PrdbPath& p) { db.paths.records.push_back(p); });
  *out = std::move(db);
  return Status::Ok();
}

Status WritePrdbImage(const PathEngine& engine, uint64_t port_guid, uint64_t smdb_epoch,
                      std::string* out, size_t* paths, uint32_t* digest) {
  const SmdbIndex& x = engine.index();
  uint32_t src;
  Status st = FindSource(x, port_guid, &src);
  if (!st.ok()) {
    out->clear();
    return st;
  }
  using I = PrdbImage;
  const DbSchema& schema = Prdb::Schema();
  std::vector<PrdbPath> prefix_rows;
  BuildPrefixRows(engine, src, &prefix_rows);
  const size_t most = (x.assigned_lids().size() << x.port(src).lmc) + prefix_rows.size();
  st = CheckTableSize(schema, schema.tables[1], most);
  if (!st.ok()) {
    out->clear();
    return st;
  }
  out->resize(I::kHeadSize + most * I::kPathSize);
  uint8_t* b = reinterpret_cast<uint8_t*>(&(*out)[0]);
  uint8_t* p = b + I::kHeadSize;
  // Serialize's check that keys ascend, made on each record as it is
  // written (a second pass over the bytes cost as much as a CRC), on the
  // encoded key bytes (they order as the key does): a record out of key
  // order is a bug here, not data.
  constexpr size_t kKeySize = KeySize<PrdbPath>();
  const uint8_t* const first = p;
  bool ordered = true;
  ForEachRecord(engine, src, prefix_rows, [&p, first, &ordered](const PrdbPath& r) {
    EncodeRecord(r, p);
    ordered = ordered && (p == first || std::memcmp(p - I::kPathSize, p, kKeySize) < 0);
    p += I::kPathSize;
  });
  const uint32_t n = static_cast<uint32_t>((p - (b + I::kHeadSize)) / I::kPathSize);
  if (!ordered) {
    out->clear();
    return Status::Error(EINVAL, "whole PRDB: path records out of key order");
  }
  out->resize(I::kHeadSize + size_t{n} * I::kPathSize);
  b = reinterpret_cast<uint8_t*>(&(*out)[0]);
  const uint32_t paths_crc = Crc32(b + I::kHeadSize, size_t{n} * I::kPathSize);
  EncodeDbHeader(schema, smdb_epoch, b);
  EncodeRecord(SourceRecord(x, src, smdb_epoch), b + I::kSourceRecord);
  EncodeTableHeader(schema.tables[0], 1, Crc32(b + I::kSourceRecord, I::kSourceSize), 0,
                    b + I::kSourceHeader);
  EncodeTableHeader(schema.tables[1], n, paths_crc, 0, b + I::kPathsHeader);
  *paths = n;
  // The whole serialization's CRC from the head's and the paths' (no
  // second pass over the paths).
  if (digest) *digest = Crc32Combine(Crc32(b, I::kHeadSize), paths_crc, size_t{n} * I::kPathSize);
  return Status::Ok();
}

}  // namespace smdb
}  // namespace ssa
