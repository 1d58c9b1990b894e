// path_compare.cc: the field comparison (see path_compare.h).
#include "util/ib_acme/path_compare.h"

#include <arpa/inet.h>

#include <cstdio>
#include <cstring>

#include "common/base/big_endian.h"

namespace ssa {
namespace acme {

namespace {

std::string Dec(unsigned v) { return std::to_string(v); }
std::string Hex(unsigned v) {
  char buf[16];
  snprintf(buf, sizeof(buf), "0x%x", v);
  return buf;
}

void Check(std::vector<FieldDifference>* out, const char* field, const std::string& daemon,
           const std::string& sa) {
  if (daemon != sa) out->push_back({field, daemon, sa});
}

}  // namespace

std::string GidToText(const ibv_gid& gid) {
  char text[INET6_ADDRSTRLEN];
  inet_ntop(AF_INET6, gid.raw, text, sizeof(text));
  return text;
}

std::vector<FieldDifference> ComparePaths(const ibv_path_record& d, const ibv_path_record& s) {
  std::vector<FieldDifference> out;
  uint32_t d_fl = FromBe32(d.flowlabel_hoplimit), s_fl = FromBe32(s.flowlabel_hoplimit);
  Check(&out, "dgid", GidToText(d.dgid), GidToText(s.dgid));
  Check(&out, "sgid", GidToText(d.sgid), GidToText(s.sgid));
  Check(&out, "dlid", Dec(FromBe16(d.dlid)), Dec(FromBe16(s.dlid)));
  Check(&out, "slid", Dec(FromBe16(d.slid)), Dec(FromBe16(s.slid)));
  Check(&out, "flow label", Hex((d_fl >> 8) & 0xfffff), Hex((s_fl >> 8) & 0xfffff));
  Check(&out, "hop limit", Dec(d_fl & 0xff), Dec(s_fl & 0xff));
  Check(&out, "tclass", Dec(d.tclass), Dec(s.tclass));
  Check(&out, "reversible", Dec(d.reversible_numpath >> 7), Dec(s.reversible_numpath >> 7));
  Check(&out, "pkey", Hex(FromBe16(d.pkey)), Hex(FromBe16(s.pkey)));
  Check(&out, "sl", Dec(FromBe16(d.qosclass_sl) & 0xf), Dec(FromBe16(s.qosclass_sl) & 0xf));
  Check(&out, "mtu", Dec(d.mtu & 0x3f), Dec(s.mtu & 0x3f));
  Check(&out, "rate", Dec(d.rate & 0x3f), Dec(s.rate & 0x3f));
  Check(&out, "packet lifetime", Dec(d.packetlifetime & 0x3f), Dec(s.packetlifetime & 0x3f));
  return out;
}

std::string DescribeDifferences(const std::vector<FieldDifference>& diffs,
                                const std::string& source) {
  std::string out;
  for (const FieldDifference& f : diffs) {
    if (!out.empty()) out += "; ";
    out += f.field + " " + f.daemon + " != " + f.expected + " (" + source + ")";
  }
  return out;
}

}  // namespace acme
}  // namespace ssa
