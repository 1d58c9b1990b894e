// service_query.cc: upstream ib_acme's service queries over AcmClient (see
// service_query.h). The step order and every message follow upstream's
// ib_acme and libibacm, so both programs print the same for one request.
#include "util/ib_acme/service_query.h"

#include <arpa/inet.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/base/big_endian.h"
#include "util/ib_acme/acme_address.h"
#include "util/ib_acme/acme_output.h"
#include "util/ib_acme/range_list.h"

namespace ssa {
namespace acme {

namespace {

// Upstream blocks forever on a silent daemon; we give up after this long.
constexpr int kRequestTimeoutMs = 60000;

std::string Format(const char* fmt, const std::string& a, unsigned b) {
  char buf[512];
  snprintf(buf, sizeof(buf), fmt, a.c_str(), b);
  return buf;
}

}  // namespace

int ServiceQuery::Fail(int err) {
  last_errno_ = err;
  return -1;
}

int ServiceQuery::Run() {
  std::vector<std::string> services = ExpandRangeList(options_.svc_arg);
  int ret = -1;
  for (const std::string& svc : services) {
    client_.set_timeout_ms(kRequestTimeoutMs);
    Status st = client_.Connect(svc);
    if (!st.ok()) {
      Print(svc + ",unable to contact service: " + strerror(-st.code()) + "\n");
      // libibacm returns connect()'s errno for a unix socket, -1 otherwise.
      ret = svc[0] == '/' ? -st.code() : -1;
      continue;
    }
    ret = 0;
    if (options_.shm && options_.has_dest) {
      st = shm_.Open(svc, kRequestTimeoutMs);
      if (!st.ok()) {
        Print(svc + ",unable to open its path tables: " + st.ToString() + "\n");
        ret = -1;
        client_.Close();
        continue;
      }
      // On stderr: what is answered on stdout stays the stock ib_acme's.
      std::string why;
      if (!shm_.TablesUsable(&why))
        fprintf(stderr,
                "ib_acme: %s: the path tables cannot be used (%s); answers come "
                "through the socket\n",
                svc.c_str(), why.c_str());
    }
    if (options_.has_dest) ret = ResolveAll(svc);
    shm_.Close();
    if (options_.perf != PerfMode::kNone) QueryPerf(svc);
    if (options_.enum_ep) EnumerateEndpoints(svc);
    client_.Close();
  }
  return ret;
}

// ---- Resolve.

int ServiceQuery::ResolveAll(const std::string& svc) {
  std::vector<std::string> dests = ExpandRangeList(options_.dest_arg);
  std::vector<std::string> srcs;
  if (options_.has_src) srcs = ExpandRangeList(options_.src_arg);
  // Upstream keeps `ret` and `path` across destinations: with -C below 1 a
  // destination shows what the previous one left.
  int ret = -1;
  ibv_path_record path;
  memset(&path, 0, sizeof(path));
  Print("Service: " + svc + "\n");
  for (const std::string& dest_arg : dests) {
    ClassifiedAddress dest = ClassifyAddress(dest_arg, options_.addr_format);
    size_t s = 0;
    const std::string* src = srcs.empty() ? nullptr : &srcs[0];
    do {
      Print("Destination: " + dest.text + "\n");
      if (src) Print("Source: " + *src + "\n");
      for (int i = 0; i < options_.repetitions; ++i)
        ret = ResolveOnce(dest.format, dest.text, src, &path);
      if (ret == 0) Print(FormatPathInformation(path));
      if (ret == 0 && options_.verify) ret = VerifyWithSa(&path);
      Print("\n");
      src = (!srcs.empty() && ++s < srcs.size()) ? &srcs[s] : nullptr;
    } while (src);
  }
  return ret;
}

int ServiceQuery::ResolveOnce(AddrFormat format, const std::string& dest, const std::string* src,
                              ibv_path_record* path) {
  switch (format) {
    case AddrFormat::kIp: return ResolveIp(dest, src, path);
    case AddrFormat::kName: return ResolveName(dest, src, path);
    case AddrFormat::kLid: memset(path, 0, sizeof(*path)); return ResolveLid(dest, src, path);
    case AddrFormat::kGid: memset(path, 0, sizeof(*path)); return ResolveGid(dest, src, path);
    default: return -1;
  }
}

int ServiceQuery::ResolveIp(const std::string& dest, const std::string* src,
                            ibv_path_record* path) {
  acm::EpAddr src_addr, dest_addr;
  if (src && !ParseIpAddress(*src, &src_addr)) {
    Print(Format("inet_pton error on source address (%s): 0x%x\n", *src, 0));
    return -1;
  }
  if (!ParseIpAddress(dest, &dest_addr)) {
    Print(Format("inet_pton error on destination address (%s): 0x%x\n", dest, 0));
    return -1;
  }
  if (src && src_addr.type != dest_addr.type) {
    Print("source and destination address families don't match\n");
    return -1;
  }
  return AddressResolve(src ? &src_addr : nullptr, dest_addr, "ib_acm_resolve_ip", path);
}

int ServiceQuery::ResolveName(const std::string& dest, const std::string* src,
                              ibv_path_record* path) {
  // libibacm copies at most 64 bytes of a name (strncpy into the entry).
  acm::EpAddr src_addr, dest_addr;
  if (src) src_addr.SetName(src->substr(0, acm::kMaxAddress));
  dest_addr.SetName(dest.substr(0, acm::kMaxAddress));
  return AddressResolve(src ? &src_addr : nullptr, dest_addr, "ib_acm_resolve_name", path);
}

int ServiceQuery::AddressResolve(const acm::EpAddr* src, acm::EpAddr dest, const char* what,
                                 ibv_path_record* path) {
  std::vector<acm::EpAddr> entries;
  if (src) {
    entries.push_back(*src);
    entries.back().flags = acm::kEpFlagSource;
  }
  dest.flags = acm::kEpFlagDest | ResolveFlags();
  entries.push_back(dest);
  acm::ResolveResponse resp;
  Status st = Send(entries, &resp);
  int ret = 0;
  if (!st.ok())
    ret = FailStatus(st);
  else if (resp.hdr.status != acm::kStatusSuccess)
    ret = Fail(AcmStatusToErrno(resp.hdr.status));
  if (ret != 0) {
    Print(std::string(what) + " failed: " + strerror(last_errno_) + "\n");
    return ret;
  }
  // libibacm prints the source the daemon chose, but only when not timing
  // repetitions.
  if (options_.repetitions == 1 && resp.has_source)
    Print("Source: " + SourceAddressText(resp.source) + "\n");
  *path = resp.paths[0].path;
  return 0;
}

int ServiceQuery::PathResolve(ibv_path_record* path, uint32_t flags) {
  acm::EpAddr entry;
  entry.flags = flags;
  entry.SetPath(*path);
  acm::ResolveResponse resp;
  Status st = Send({entry}, &resp);
  if (!st.ok()) return FailStatus(st);
  if (resp.hdr.status != acm::kStatusSuccess) return Fail(AcmStatusToErrno(resp.hdr.status));
  *path = resp.paths[0].path;
  return 0;
}

Status ServiceQuery::Send(const std::vector<acm::EpAddr>& entries, acm::ResolveResponse* resp) {
  if (shm_.open() && ShmResolver::Takes(entries)) return shm_.Resolve(entries, resp);
  return client_.Resolve(entries, resp);
}

int ServiceQuery::ResolveLid(const std::string& dest, const std::string* src,
                             ibv_path_record* path) {
  if (src) path->slid = ToBe16(static_cast<uint16_t>(CAtoi(*src)));
  path->dlid = ToBe16(static_cast<uint16_t>(CAtoi(dest)));
  path->reversible_numpath = IBV_PATH_RECORD_REVERSIBLE | 1;
  int ret = PathResolve(path, ResolveFlags());
  if (ret) Print(std::string("ib_acm_resolve_path failed: ") + strerror(last_errno_) + "\n");
  return ret;
}

int ServiceQuery::ResolveGid(const std::string& dest, const std::string* src,
                             ibv_path_record* path) {
  if (src && !ParseGid(*src, &path->sgid)) {
    Print(Format("inet_pton error on source address (%s): 0x%x\n", *src, 0));
    return -1;
  }
  if (!ParseGid(dest, &path->dgid)) {
    Print(Format("inet_pton error on dest address (%s): 0x%x\n", dest, 0));
    return -1;
  }
  path->reversible_numpath = IBV_PATH_RECORD_REVERSIBLE | 1;
  int ret = PathResolve(path, ResolveFlags());
  if (ret) Print(std::string("ib_acm_resolve_path failed: ") + strerror(last_errno_) + "\n");
  return ret;
}

int ServiceQuery::VerifyWithSa(ibv_path_record* path) {
  int ret = PathResolve(path, acm::kFlagQuerySa);
  if (ret)
    Print(std::string("SA verification: failed ") + strerror(last_errno_) + "\n");
  else
    Print("SA verification: success\n");
  return ret;
}

// ---- Performance counters.

void ServiceQuery::QueryPerf(const std::string& svc) {
  if (options_.perf != PerfMode::kAllEndpoints) {
    QueryPerfOne(svc, options_.ep_index);
    return;
  }
  for (int index = 1; QueryPerfOne(svc, index) == 0; ++index) {
  }
}

int ServiceQuery::QueryPerfOne(const std::string& svc, int index) {
  std::vector<uint64_t> counters;
  int ret;
  if (options_.perf == PerfMode::kEndpointAddress) {
    ret = QueryPerfByAddress(&counters);
  } else {
    acm::PerfResponse resp;
    Status st = client_.PerfQuery(static_cast<uint8_t>(index), &resp);
    if (!st.ok())
      ret = FailStatus(st);
    else if (resp.hdr.status != acm::kStatusSuccess)
      ret = Fail(AcmStatusToErrno(resp.hdr.status));
    else {
      ret = 0;
      counters = resp.counters;
    }
  }
  if (ret) {
    if (options_.perf != PerfMode::kAllEndpoints)
      Print(svc + ": Failed to query perf data: " + strerror(last_errno_) + "\n");
    return ret;
  }
  if (options_.perf != PerfMode::kColumn) {
    if (!perf_header_printed_) Print(FormatPerfHeader(counters.size()));
    perf_header_printed_ = true;
    Print(FormatPerfRow(svc, counters));
  } else {
    Print(FormatPerfColumns(svc, counters));
  }
  return 0;
}

int ServiceQuery::QueryPerfByAddress(std::vector<uint64_t>* counters) {
  ClassifiedAddress src = ClassifyAddress(options_.src_arg, options_.addr_format);
  acm::EpAddr addr;
  if (src.format == AddrFormat::kIp) {
    Verbose("query_perf_ip: src_addr " + src.text + "\n");
    if (!ParseIpAddress(src.text, &addr)) {
      Print(Format("inet_pton error on src address (%s): 0x%x\n", src.text, 0));
      return Fail(EINVAL);
    }
  } else if (src.format == AddrFormat::kName) {
    Verbose("query_perf_name: src_addr " + src.text + "\n");
    addr.SetName(src.text.substr(0, acm::kMaxAddress));
  } else {
    // Upstream's next line then shows whatever errno was left behind (on
    // Debian, ENOENT from library start-up); we say what is wrong.
    Print("Unsupported src_type " + std::to_string(static_cast<int>(src.format)) + "\n");
    return Fail(EINVAL);
  }
  acm::PerfResponse resp;
  Status st = client_.PerfQueryByAddress(addr, &resp);
  int ret = 0;
  if (!st.ok())
    ret = FailStatus(st);
  else if (resp.hdr.status != acm::kStatusSuccess)
    ret = Fail(AcmStatusToErrno(resp.hdr.status));
  if (ret) {
    Print(std::string("ib_acm_query_perf failed: ") + strerror(last_errno_) + "\n");
    return ret;
  }
  *counters = resp.counters;
  return 0;
}

// ---- Endpoints.

void ServiceQuery::EnumerateEndpoints(const std::string& svc) {
  if (options_.ep_index > 0) {
    if (EnumerateEndpoint(svc, options_.ep_index))
      Print(" Endpoint " + std::to_string(options_.ep_index) + " is not available\n");
    return;
  }
  for (int index = 1; EnumerateEndpoint(svc, index) == 0; ++index) {
  }
}

// Endpoint `index` of every port: upstream asks port 1 up to the port count
// the first answer reports (255 until then), the index counting endpoints
// of that port only.
int ServiceQuery::EnumerateEndpoint(const std::string& svc, int index) {
  int port_count = 255;
  bool found = false;
  for (int port = 1; port <= port_count; ++port) {
    acm::EpQueryResponse resp;
    Status st = client_.EpQuery(static_cast<uint8_t>(index), static_cast<uint8_t>(port), &resp);
    if (!st.ok() || resp.hdr.status != acm::kStatusSuccess) continue;
    found = true;
    if (!endpoint_header_printed_) Print(FormatEndpointHeader());
    endpoint_header_printed_ = true;
    Print(FormatEndpointRow(svc, index, resp.config));
    port_count = resp.config.phys_port_cnt;
  }
  return found ? 0 : 1;
}

}  // namespace acme
}  // namespace ssa
