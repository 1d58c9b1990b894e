// route_preload.cc: the opensm_full_v1 path-record dump reader (see
// route_preload.h). One pass: every block header feeds the LID -> GUID
// table, and only the lines of the caller's own block are parsed further,
// so a dump of a large fabric costs little more than reading it.
#include "providers/shared/route_preload.h"

#include <arpa/inet.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <unordered_map>
#include <vector>

#include "common/base/big_endian.h"
#include "common/base/text_util.h"

namespace ssa {
namespace provider_shared {

namespace {

constexpr uint16_t kFirstMulticastLid = 0xc000;
// OpenSM's default subnet_timeout, which it also puts in PathRecords'
// PacketLifeTime; the dump does not carry it.
constexpr uint8_t kDefaultPacketLifeTime = 18;
constexpr uint8_t kSelectorExactly = 2;

bool StartsWith(const std::string& s, const char* prefix) {
  return s.compare(0, strlen(prefix), prefix) == 0;
}

// Parses an unsigned number (decimal or 0x hex) that must fill `text`.
bool ParseNumber(const std::string& text, unsigned long max, unsigned long* out) {
  if (text.empty()) return false;
  errno = 0;
  char* end = nullptr;
  unsigned long v = strtoul(text.c_str(), &end, 0);
  if (errno || *end || v > max) return false;
  *out = v;
  return true;
}

// "Channel Adapter 0x..., base LID 5, ..." -> guid, lid. False if the line
// is a header but malformed (`why` says how).
bool ParseHeader(const std::string& line, uint64_t* guid, uint16_t* lid, std::string* why) {
  size_t at = line.find("0x");
  size_t comma = line.find(',');
  if (at == std::string::npos || comma == std::string::npos || comma < at) {
    *why = "block header without a port GUID";
    return false;
  }
  errno = 0;
  char* end = nullptr;
  std::string guid_text = line.substr(at, comma - at);
  *guid = strtoull(guid_text.c_str(), &end, 16);
  if (errno || *end || !*guid) {
    *why = "bad port GUID '" + guid_text + "'";
    return false;
  }
  size_t base = line.find("base LID", comma);
  if (base == std::string::npos) {
    *why = "block header without 'base LID'";
    return false;
  }
  std::string rest = line.substr(base + strlen("base LID"));
  std::string lid_text = Trim(rest.substr(0, rest.find(',')));
  unsigned long v = 0;
  if (!ParseNumber(lid_text, 0xffff, &v)) {
    *why = "bad base LID '" + lid_text + "'";
    return false;
  }
  *lid = static_cast<uint16_t>(v);
  return true;
}

// "0x0003 : 0  : 4   : 3" or "0x0007 : UNREACHABLE". Returns false with
// `why` for a malformed line; sets *unreachable for the second form.
bool ParseRoute(const std::string& line, PreloadedRoute* r, bool* unreachable, std::string* why) {
  std::vector<std::string> f;
  size_t start = 0;
  for (;;) {
    size_t colon = line.find(':', start);
    f.push_back(
        Trim(line.substr(start, colon == std::string::npos ? std::string::npos : colon - start)));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  unsigned long dlid = 0, sl = 0, mtu = 0, rate = 0;
  if (!ParseNumber(f[0], 0xffff, &dlid) || dlid == 0 || dlid >= kFirstMulticastLid) {
    *why = "bad destination LID '" + f[0] + "'";
    return false;
  }
  *unreachable = f.size() == 2 && f[1] == "UNREACHABLE";
  if (*unreachable) return true;
  if (f.size() != 4) {
    *why = "expected 'LID : SL : MTU : RATE'";
    return false;
  }
  if (!ParseNumber(f[1], 15, &sl)) {
    *why = "bad SL '" + f[1] + "'";
    return false;
  }
  if (!ParseNumber(f[2], 5, &mtu) || mtu == 0) {
    *why = "bad MTU code '" + f[2] + "'";
    return false;
  }
  if (!ParseNumber(f[3], 63, &rate) || rate < 2) {
    *why = "bad rate code '" + f[3] + "'";
    return false;
  }
  r->dlid = static_cast<uint16_t>(dlid);
  r->sl = static_cast<uint8_t>(sl);
  r->mtu = static_cast<uint8_t>(mtu);
  r->rate = static_cast<uint8_t>(rate);
  return true;
}

}  // namespace

void ParseOpensmFullV1(std::istream& in, uint64_t port_guid, uint16_t lid, PreloadResult* out) {
  *out = PreloadResult();
  std::unordered_map<uint16_t, uint64_t> lid_to_guid;
  std::string line;
  int line_no = 0;
  bool in_own_block = false;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty() || line[0] == '#') continue;
    std::string t = Trim(line);
    if (t.empty() || t[0] == '#') continue;
    if (StartsWith(t, "Channel Adapter") || StartsWith(t, "Switch") || StartsWith(t, "Router")) {
      uint64_t guid = 0;
      uint16_t base = 0;
      std::string why;
      in_own_block = false;
      if (!ParseHeader(t, &guid, &base, &why)) {
        out->issues.push_back({line_no, why});
        continue;
      }
      if (base && base < kFirstMulticastLid) {
        auto ins = lid_to_guid.emplace(base, guid);
        if (!ins.second && ins.first->second != guid)
          out->issues.push_back(
              {line_no, "LID " + std::to_string(base) + " already belongs to another port"});
      }
      if (guid == port_guid && base == lid) {
        in_own_block = !out->found_source;  // a repeated block of ours is ignored
        out->found_source = true;
      }
      continue;
    }
    if (!in_own_block) continue;  // other ports' routes: not ours to parse
    PreloadedRoute r;
    bool unreachable = false;
    std::string why;
    if (!ParseRoute(t, &r, &unreachable, &why)) {
      out->issues.push_back({line_no, why});
    } else if (unreachable) {
      ++out->unreachable;
    } else {
      out->routes.push_back(r);
    }
  }
  for (auto& r : out->routes) {
    auto it = lid_to_guid.find(r.dlid);
    r.dest_guid = it == lid_to_guid.end() ? 0 : it->second;
  }
}

Status ParseOpensmFullV1File(const std::string& path, uint64_t port_guid, uint16_t lid,
                             PreloadResult* out) {
  std::ifstream in(path);
  if (!in) return Status::FromErrno("cannot read route data file " + path);
  ParseOpensmFullV1(in, port_guid, lid, out);
  return Status::Ok();
}

ibv_path_record PreloadedPathRecord(const PreloadedRoute& route, const uint8_t sgid[16],
                                    const uint8_t dgid[16], uint16_t slid, uint16_t pkey) {
  ibv_path_record p{};
  memcpy(p.sgid.raw, sgid, 16);
  memcpy(p.dgid.raw, dgid, 16);
  p.slid = ToBe16(slid);
  p.dlid = ToBe16(route.dlid);
  p.reversible_numpath = IBV_PATH_RECORD_REVERSIBLE;
  p.pkey = ToBe16(pkey);
  p.qosclass_sl = ToBe16(route.sl & 0xf);
  p.mtu = static_cast<uint8_t>(kSelectorExactly << 6 | route.mtu);
  p.rate = static_cast<uint8_t>(kSelectorExactly << 6 | route.rate);
  // A path to the port itself crosses no link: OpenSM answers lifetime 0.
  uint8_t life = route.dlid == slid ? 0 : kDefaultPacketLifeTime;
  p.packetlifetime = static_cast<uint8_t>(kSelectorExactly << 6 | life);
  return p;
}

}  // namespace provider_shared
}  // namespace ssa
