// prefix_rows.cc: the PRDB's rows for remote prefixes (prefix_rows.h).
#include "common/smdb/prefix_rows.h"

#include <algorithm>
#include <cstring>
#include <set>
#include <tuple>

#include "common/base/big_endian.h"
#include "common/smdb/off_subnet.h"

namespace ssa {
namespace smdb {
namespace {

void PutPrefixGid(uint64_t prefix, uint8_t* gid) {
  const uint64_t be = ToBe64(prefix);
  std::memcpy(gid, &be, 8);
  std::memset(gid + 8, 0, 8);
}

// (port GUID, base LID, LMC) of every router node's port with a GUID.
std::vector<std::tuple<uint64_t, uint16_t, uint8_t>> RouterPorts(const Smdb& db) {
  std::set<uint64_t> routers;
  for (const SmdbNode& n : db.nodes.records)
    if (n.node_type == kNodeRouter) routers.insert(n.node_guid);
  std::vector<std::tuple<uint64_t, uint16_t, uint8_t>> out;
  if (routers.empty()) return out;
  for (const SmdbPort& p : db.ports.records)
    if (p.port_guid != 0 && routers.count(p.node_guid))
      out.emplace_back(p.port_guid, p.base_lid, p.lmc);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

bool IsPrefixRow(const PrdbPath& p) { return GidGuid(p.dgid.data()) == 0; }

void BuildPrefixRows(const PathEngine& engine, uint32_t src, std::vector<PrdbPath>* out) {
  out->clear();
  if (!engine.options().prefix_rows) return;
  const SmdbIndex& x = engine.index();
  const uint64_t subnet_prefix = x.subnet().subnet_prefix;
  const SmdbIndex::Port& s = x.port(src);
  uint8_t sgid[16];
  x.PutGid(s.port_guid, sgid);
  std::set<uint64_t> seen;
  for (const SmdbPrefixRoute& r : x.prefix_routes()) {
    PrdbPath row;
    PutPrefixGid(r.prefix, row.dgid.data());
    // Routes the SA never reaches: a prefix it takes as local, one an
    // earlier route named.
    if (!IsOffSubnetDgid(row.dgid.data(), subnet_prefix) || !seen.insert(r.prefix).second) continue;
    ibv_path_record rec;
    PathStatus st = engine.ComputeByGid(sgid, row.dgid.data(), &rec);
    if (st == PathStatus::kOk) {
      ToPrdbPath(rec, &row);
      row.flags |= engine.InexactFlags(row.slid, row.dlid);
    } else {
      std::memcpy(row.sgid.data(), sgid, 16);
      row.slid = s.base_lid;
      const uint64_t router = RouterPortFor(x, r.prefix);
      const uint32_t rp = router ? x.PortByGuid(router) : SmdbIndex::kNone;
      row.dlid = rp == SmdbIndex::kNone ? 0 : x.port(rp).base_lid;
    }
    out->push_back(row);
    if (r.prefix == 0) break;  // the wildcard: no later route is ever reached
  }
  std::sort(out->begin(), out->end(), [](const PrdbPath& a, const PrdbPath& b) {
    return std::memcmp(a.dgid.data(), b.dgid.data(), 16) < 0;
  });
}

const PrdbPath* FindPrefixRow(const PrdbPath* rows, size_t n, const uint8_t dgid[16]) {
  uint8_t key[16];
  PutPrefixGid(GidPrefix(dgid), key);
  auto find = [&](const uint8_t* k) -> const PrdbPath* {
    const PrdbPath* it = std::lower_bound(
        rows, rows + n, k,
        [](const PrdbPath& p, const uint8_t* g) { return std::memcmp(p.dgid.data(), g, 16) < 0; });
    return it != rows + n && std::memcmp(it->dgid.data(), k, 16) == 0 ? it : nullptr;
  };
  if (const PrdbPath* p = find(key)) return p;
  static const uint8_t kWildcard[16] = {};
  return find(kWildcard);
}

bool RouterPortsDiffer(const Smdb& a, const Smdb& b) {
  if (a.nodes.epoch == b.nodes.epoch && a.ports.epoch == b.ports.epoch) return false;
  return RouterPorts(a) != RouterPorts(b);
}

}  // namespace smdb
}  // namespace ssa
