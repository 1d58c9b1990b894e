// tool_output.cc: see tool_output.h.
#include "test/support/tool_output.h"

#include <arpa/inet.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "common/base/big_endian.h"
#include "common/base/text_util.h"

namespace ssa {
namespace test {

IbstatPort ParseIbstat(const std::string& output) {
  IbstatPort port;
  std::istringstream in(output);
  std::string line;
  bool in_port = false;
  while (std::getline(in, line)) {
    std::string t = Trim(line);
    if (t.rfind("Port ", 0) == 0 && t.back() == ':') {
      if (in_port) break;  // first port only
      in_port = true;
      continue;
    }
    size_t colon = t.find(':');
    if (colon == std::string::npos) continue;
    port.fields.emplace(t.substr(0, colon), Trim(t.substr(colon + 1)));
  }
  auto field = [&](const char* key) {
    auto it = port.fields.find(key);
    return it == port.fields.end() ? std::string() : it->second;
  };
  port.state = field("State");
  port.physical_state = field("Physical state");
  if (port.fields.count("Base lid")) port.lid = atoi(field("Base lid").c_str());
  if (port.fields.count("SM lid")) port.sm_lid = atoi(field("SM lid").c_str());
  port.port_guid = field("Port GUID");
  port.node_guid = field("Node GUID");
  return port;
}

std::string IbstatField(const std::string& output, const std::string& label) {
  IbstatPort port = ParseIbstat(output);
  auto it = port.fields.find(label);
  return it == port.fields.end() ? "" : it->second;
}

DiscoveredNodes ParseIbnetdiscover(const std::string& output) {
  DiscoveredNodes nodes;
  std::istringstream in(output);
  std::string line;
  while (std::getline(in, line)) {
    bool is_switch = line.rfind("Switch", 0) == 0;
    if (!is_switch && line.rfind("Ca", 0) != 0) continue;
    (is_switch ? nodes.switches : nodes.cas)++;
    // Switch	8 "S-0000000000200000"		# "Switch1" base port 0 lid 2 lmc 0
    size_t hash = line.find('#');
    size_t open = hash == std::string::npos ? hash : line.find('"', hash);
    size_t close = open == std::string::npos ? open : line.find('"', open + 1);
    if (close != std::string::npos)
      nodes.descriptions.push_back(line.substr(open + 1, close - open - 1));
  }
  return nodes;
}

std::map<std::string, std::string> ParseSaqueryPath(const std::string& output) {
  std::map<std::string, std::string> f;
  size_t at = output.find("PathRecord dump:");
  if (at == std::string::npos) return f;
  std::istringstream in(output.substr(at));
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    size_t b = line.find_first_not_of(" \t");
    size_t dots = b == std::string::npos ? b : line.find("..", b);
    if (dots == std::string::npos) break;  // the next record, or other output
    size_t v = line.find_first_not_of('.', dots);
    f[line.substr(b, dots - b)] = v == std::string::npos ? "" : line.substr(v);
  }
  return f;
}

std::string SaqueryDifferences(const std::map<std::string, std::string>& saquery,
                               const ibv_path_record& p) {
  std::string out;
  auto num = [&](const char* field, unsigned long long ours) {
    auto it = saquery.find(field);
    if (it == saquery.end()) {
      out += std::string(field) + ": not printed by saquery; ";
    } else if (strtoull(it->second.c_str(), nullptr, 0) != ours) {
      char buf[128];
      snprintf(buf, sizeof(buf), "%s: saquery %s, ours 0x%llx; ", field, it->second.c_str(), ours);
      out += buf;
    }
  };
  auto gid = [&](const char* field, const uint8_t* ours) {
    auto it = saquery.find(field);
    if (it == saquery.end())
      out += std::string(field) + ": not printed by saquery; ";
    else if (it->second != GidText(ours))
      out += std::string(field) + ": saquery " + it->second + ", ours " + GidText(ours) + "; ";
  };
  num("service_id", FromBe64(p.service_id));
  gid("dgid", p.dgid.raw);
  gid("sgid", p.sgid.raw);
  num("dlid", FromBe16(p.dlid));
  num("slid", FromBe16(p.slid));
  num("hop_flow_raw", FromBe32(p.flowlabel_hoplimit));
  num("tclass", p.tclass);
  num("num_path_revers", p.reversible_numpath);
  num("pkey", FromBe16(p.pkey));
  num("qos_class", FromBe16(p.qosclass_sl) >> 4);
  num("sl", FromBe16(p.qosclass_sl) & 0xf);
  num("mtu", p.mtu);
  num("rate", p.rate);
  num("pkt_life", p.packetlifetime);
  num("preference", p.preference);
  return out;
}

std::string GidText(const uint8_t gid[16]) {
  char buf[INET6_ADDRSTRLEN];
  inet_ntop(AF_INET6, gid, buf, sizeof(buf));
  return buf;
}

std::string DefaultGidText(uint64_t port_guid) {
  return PrefixedGidText(0xfe80000000000000ULL, port_guid);
}

std::string PrefixedGidText(uint64_t prefix, uint64_t port_guid) {
  uint8_t raw[16];
  for (int i = 0; i < 8; ++i) {
    raw[i] = static_cast<uint8_t>(prefix >> (56 - 8 * i));
    raw[8 + i] = static_cast<uint8_t>(port_guid >> (56 - 8 * i));
  }
  return GidText(raw);
}

}  // namespace test
}  // namespace ssa
