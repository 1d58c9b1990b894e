// acme_output.cc: upstream ib_acme's output formats (see acme_output.h).
#include "util/ib_acme/acme_output.h"

#include <arpa/inet.h>

#include <cerrno>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "common/base/big_endian.h"

namespace ssa {
namespace acme {

namespace {

std::string Printf(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string Printf(const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  if (n < 0) return std::string();
  if (static_cast<size_t>(n) < sizeof(buf)) return std::string(buf, n);
  std::string big(static_cast<size_t>(n) + 1, '\0');
  va_start(ap, fmt);
  vsnprintf(&big[0], big.size(), fmt, ap);
  va_end(ap);
  big.resize(n);
  return big;
}

std::string GidText(const uint8_t* raw) {
  char text[INET6_ADDRSTRLEN];
  inet_ntop(AF_INET6, raw, text, sizeof(text));
  return text;
}

}  // namespace

std::string FormatPathInformation(const ibv_path_record& path) {
  uint32_t fl_hop = FromBe32(path.flowlabel_hoplimit);
  std::string out = "Path information\n";
  out += "  dgid: " + GidText(path.dgid.raw) + "\n";
  out += "  sgid: " + GidText(path.sgid.raw) + "\n";
  out += Printf("  dlid: %u\n", FromBe16(path.dlid));
  out += Printf("  slid: %u\n", FromBe16(path.slid));
  out += Printf("  flow label: 0x%x\n", fl_hop >> 8);
  out += Printf("  hop limit: %d\n", static_cast<uint8_t>(fl_hop));
  out += Printf("  tclass: %d\n", path.tclass);
  out += Printf("  reversible: %d\n", path.reversible_numpath >> 7);
  out += Printf("  pkey: 0x%x\n", FromBe16(path.pkey));
  out += Printf("  sl: %d\n", FromBe16(path.qosclass_sl) & 0xF);
  out += Printf("  mtu: %d\n", path.mtu & 0x1F);
  out += Printf("  rate: %d\n", path.rate & 0x1F);
  out += Printf("  packet lifetime: %d\n", path.packetlifetime & 0x1F);
  return out;
}

std::string FormatPerfHeader(size_t counter_count) {
  // Upstream names the first counter even when the answer carries none.
  std::string out = "svc";
  size_t n = counter_count ? counter_count : 1;
  for (size_t i = 0; i < n; ++i) out += std::string(",") + acm::CounterName(static_cast<int>(i));
  return out + "\n";
}

std::string FormatPerfRow(const std::string& svc, const std::vector<uint64_t>& counters) {
  std::string out = svc;
  if (counters.empty()) out += ",0";
  for (uint64_t c : counters) out += Printf(",%llu", static_cast<unsigned long long>(c));
  return out + "\n";
}

std::string FormatPerfColumns(const std::string& svc, const std::vector<uint64_t>& counters) {
  std::string out = svc + "\n";
  for (size_t i = 0; i < counters.size(); ++i)
    out += Printf("%s : %llu\n", acm::CounterName(static_cast<int>(i)),
                  static_cast<unsigned long long>(counters[i]));
  return out;
}

std::string FormatEndpointHeader() { return "svc,guid,port,pkey,ep_index,prov,addr_0,addresses\n"; }

std::string FormatEndpointRow(const std::string& svc, int index, const acm::EpConfig& ep) {
  std::string out = Printf("%s,0x%016" PRIx64 ",%d,0x%04x,%d,%s", svc.c_str(), ep.dev_guid,
                           ep.port_num, ep.pkey, index, ep.prov_name.c_str());
  for (const std::string& a : ep.addrs) out += "," + a;
  return out + "\n";
}

int AcmStatusToErrno(uint8_t status) {
  switch (status) {
    case acm::kStatusSuccess: return 0;
    case acm::kStatusENoMem: return ENOMEM;
    case acm::kStatusEInval: return EINVAL;
    case acm::kStatusENoData: return ENODATA;
    case acm::kStatusENotConn: return ENOTCONN;
    case acm::kStatusETimedOut: return ETIMEDOUT;
    case acm::kStatusESrcAddr:
    case acm::kStatusEDestAddr: return EADDRNOTAVAIL;
    default: return EINVAL;
  }
}

std::string SourceAddressText(const acm::EpAddr& source) {
  char text[INET6_ADDRSTRLEN];
  switch (source.type) {
    case acm::kAddrIp: inet_ntop(AF_INET, source.info.data(), text, sizeof(text)); return text;
    case acm::kAddrIp6: inet_ntop(AF_INET6, source.info.data(), text, sizeof(text)); return text;
    default: return source.name();
  }
}

std::string FormatReturnStatus(int ret) {
  return Printf("return status 0x%x\n", static_cast<unsigned>(ret));
}

}  // namespace acme
}  // namespace ssa
