// path_text.cc: path lines, record differences and LID lists (path_text.h).
#include "util/smdb_tool/path_text.h"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>

#include "common/base/big_endian.h"
#include "common/mad/mad_wire.h"

namespace ssa {
namespace smdb_tool {
namespace {

std::string Gid(const ibv_gid& g) { return mad::GidToString(g.raw); }

std::string Hex(uint64_t v, int digits) {
  char buf[24];
  snprintf(buf, sizeof(buf), "0x%0*" PRIx64, digits, v);
  return buf;
}

mad::PathRecord Decode(const ibv_path_record& r) {
  mad::PathRecord out;
  mad::FromIbvPathRecord(r, &out);
  return out;
}

bool ParseNumber(const std::string& s, uint64_t* out) {
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  unsigned long long v = strtoull(s.c_str(), &end, 0);
  if (errno != 0 || *end != '\0' || s[0] == '-') return false;
  *out = v;
  return true;
}

}  // namespace

std::string FormatPathLine(uint16_t slid, uint16_t dlid, smdb::PathStatus status,
                           const ibv_path_record& rec, uint8_t flags) {
  std::string line = "path slid=" + std::to_string(slid) + " dlid=" + std::to_string(dlid) +
                     " status=" + smdb::PathStatusName(status);
  if (status != smdb::PathStatus::kOk) return line;
  mad::PathRecord r = Decode(rec);
  line += " sgid=" + Gid(rec.sgid) + " dgid=" + Gid(rec.dgid);
  line += " pkey=" + Hex(r.pkey, 4) + " sl=" + std::to_string(r.sl);
  line += " mtu=" + std::to_string(r.mtu) + " rate=" + std::to_string(r.rate);
  line += " packet_life=" + std::to_string(r.packet_life_time);
  line += " hop_limit=" + std::to_string(r.hop_limit) + " tclass=" + std::to_string(r.tclass);
  line += " flow_label=" + Hex(r.flow_label, 5);
  line += " reversible=" + std::to_string(r.reversible ? 1 : 0);
  line += " preference=" + std::to_string(r.preference);
  unsigned span = smdb::PathSlSpan(flags);
  if (span > 1) line += " sl_range=" + std::to_string(r.sl) + "-" + std::to_string(r.sl + span - 1);
  if (flags & smdb::kPathInexact) line += " exact=no why=" + smdb::InexactReasons(flags);
  return line;
}

bool AdoptDrawnSl(unsigned span, const ibv_path_record& sa, ibv_path_record* mine) {
  unsigned lo = FromBe16(mine->qosclass_sl) & 0xF, got = FromBe16(sa.qosclass_sl) & 0xF;
  if (got < lo || got >= lo + span) return false;
  mine->qosclass_sl = ToBe16(static_cast<uint16_t>((FromBe16(mine->qosclass_sl) & ~0xFu) | got));
  return true;
}

std::vector<FieldDiff> DiffPathRecords(const ibv_path_record& a, const ibv_path_record& b) {
  std::vector<FieldDiff> d;
  mad::PathRecord x = Decode(a), y = Decode(b);
  auto num = [&d](const char* name, uint64_t va, uint64_t vb) {
    if (va != vb) d.push_back({name, std::to_string(va), std::to_string(vb)});
  };
  auto hex = [&d](const char* name, uint64_t va, uint64_t vb, int digits) {
    if (va != vb) d.push_back({name, Hex(va, digits), Hex(vb, digits)});
  };
  hex("service_id", x.service_id, y.service_id, 16);
  if (memcmp(a.dgid.raw, b.dgid.raw, 16) != 0) d.push_back({"dgid", Gid(a.dgid), Gid(b.dgid)});
  if (memcmp(a.sgid.raw, b.sgid.raw, 16) != 0) d.push_back({"sgid", Gid(a.sgid), Gid(b.sgid)});
  num("dlid", x.dlid, y.dlid);
  num("slid", x.slid, y.slid);
  num("raw_traffic", x.raw_traffic, y.raw_traffic);
  hex("flow_label", x.flow_label, y.flow_label, 5);
  num("hop_limit", x.hop_limit, y.hop_limit);
  num("tclass", x.tclass, y.tclass);
  num("reversible", x.reversible, y.reversible);
  num("numb_path", x.numb_path, y.numb_path);
  hex("pkey", x.pkey, y.pkey, 4);
  num("qos_class", x.qos_class, y.qos_class);
  num("sl", x.sl, y.sl);
  num("mtu_selector", x.mtu_selector, y.mtu_selector);
  num("mtu", x.mtu, y.mtu);
  num("rate_selector", x.rate_selector, y.rate_selector);
  num("rate", x.rate, y.rate);
  num("packet_life_selector", x.packet_life_time_selector, y.packet_life_time_selector);
  num("packet_life", x.packet_life_time, y.packet_life_time);
  num("preference", x.preference, y.preference);
  // Bits no field above covers: byte 44's reserved bits and bytes 58..63.
  if (d.empty() && memcmp(&a, &b, sizeof(a)) != 0) {
    const uint8_t* pa = reinterpret_cast<const uint8_t*>(&a);
    const uint8_t* pb = reinterpret_cast<const uint8_t*>(&b);
    std::string ha, hb;
    for (size_t i = 0; i < sizeof(a); ++i) {
      if (pa[i] == pb[i]) continue;
      ha += (ha.empty() ? "" : ",") + std::to_string(i) + ":" + Hex(pa[i], 2);
      hb += (hb.empty() ? "" : ",") + std::to_string(i) + ":" + Hex(pb[i], 2);
    }
    d.push_back({"reserved", ha, hb});
  }
  return d;
}

std::string DescribeDiffs(const std::vector<FieldDiff>& diffs, const char* a_name,
                          const char* b_name) {
  std::string s;
  for (const FieldDiff& f : diffs) {
    if (!s.empty()) s += "; ";
    s += f.field + " " + a_name + "=" + f.a + " " + b_name + "=" + f.b;
  }
  return s;
}

Status ParseLidList(const std::string& text, const smdb::SmdbIndex& index, bool lmc_all,
                    std::vector<uint16_t>* out) {
  using smdb::SmdbIndex;
  std::set<uint16_t> seen;
  auto add = [&](uint16_t lid) {
    if (seen.insert(lid).second) out->push_back(lid);
  };
  auto add_port = [&](uint32_t port) {
    const SmdbIndex::Port& p = index.port(port);
    uint32_t n = lmc_all ? (1u << p.lmc) : 1;
    for (uint32_t k = 0; k < n; ++k) add(static_cast<uint16_t>(p.base_lid + k));
  };
  size_t pos = 0;
  if (text.empty()) return Status::Error(EINVAL, "empty LID list");
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    std::string item =
        text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    pos = comma == std::string::npos ? text.size() + 1 : comma + 1;
    if (item == "all") {
      for (uint32_t port : index.endpoints()) add_port(port);
      continue;
    }
    size_t dash = item.find('-');
    uint64_t v = 0, w = 0;
    if (dash != std::string::npos) {
      if (!ParseNumber(item.substr(0, dash), &v) || !ParseNumber(item.substr(dash + 1), &w) ||
          v == 0 || w < v || w >= 0xC000)
        return Status::Error(EINVAL, "'" + item + "' is not a unicast LID range A-B");
      for (uint64_t lid = v; lid <= w; ++lid) add(static_cast<uint16_t>(lid));
      continue;
    }
    if (!ParseNumber(item, &v) || v == 0)
      return Status::Error(EINVAL, "'" + item + "' is neither 'all', a LID nor a port GUID");
    bool guid = v > 0xFFFF || (item.size() == 18 && item.compare(0, 2, "0x") == 0);
    if (guid) {
      uint32_t port = index.PortByGuid(v);
      if (port == SmdbIndex::kNone || index.port(port).base_lid == 0)
        return Status::Error(ENOENT, "no port with a LID has GUID " + Hex(v, 16));
      add_port(port);
    } else if (v >= 0xC000) {
      return Status::Error(EINVAL, "LID " + item + " is not a unicast LID");
    } else {
      uint32_t port = index.PortByLid(static_cast<uint16_t>(v));
      if (lmc_all && port != SmdbIndex::kNone)
        add_port(port);
      else
        add(static_cast<uint16_t>(v));
    }
  }
  return Status::Ok();
}

}  // namespace smdb_tool
}  // namespace ssa
