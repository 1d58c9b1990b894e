// service_query.h: ib_acme's first usage, the queries of ibacm services:
// resolve (-d, -s, -v, -c, -C), performance counters (-P) and endpoints
// (-e), for each service of -S in turn, printing what upstream's ib_acme
// prints, in the same order and format, and returning what it returns.
//
// Only the client protocol is used (through AcmClient), so it works against
// our daemon and the stock one alike. -v is upstream's SA verification: the
// resolved path goes back to the daemon as a path request with QUERY_SA, and
// the daemon's provider asks the SA.
//
// Owns its connection; borrows the options and the output stream, which
// must outlive it. One thread.
#ifndef IBACM_SSA_UTIL_IB_ACME_SERVICE_QUERY_H
#define IBACM_SSA_UTIL_IB_ACME_SERVICE_QUERY_H

#include <infiniband/sa.h>

#include <cstdio>
#include <string>
#include <vector>

#include "common/acm/acm_client.h"
#include "common/acm/acm_wire.h"
#include "util/ib_acme/acme_options.h"
#include "util/ib_acme/shm_resolver.h"

namespace ssa {
namespace acme {

class ServiceQuery {
 public:
  ServiceQuery(const AcmeOptions& options, FILE* out) : options_(options), out_(out) {}
  ServiceQuery(const ServiceQuery&) = delete;
  ServiceQuery& operator=(const ServiceQuery&) = delete;

  // Upstream's query_svcs(): 0, or the last service's failure code (an
  // errno for a unix socket that cannot be reached, -1 for most failures).
  int Run();

 private:
  int ResolveAll(const std::string& svc);
  int ResolveOnce(AddrFormat format, const std::string& dest, const std::string* src,
                  ibv_path_record* path);
  int ResolveIp(const std::string& dest, const std::string* src, ibv_path_record* path);
  int ResolveName(const std::string& dest, const std::string* src, ibv_path_record* path);
  int ResolveLid(const std::string& dest, const std::string* src, ibv_path_record* path);
  int ResolveGid(const std::string& dest, const std::string* src, ibv_path_record* path);
  // An address resolve (name/IP) as libibacm's acm_resolve() does it; like
  // libibacm it prints the source the daemon selected unless -C repeats.
  // `what` names the library call in the failure message.
  int AddressResolve(const acm::EpAddr* src, acm::EpAddr dest, const char* what,
                     ibv_path_record* path);
  // A path resolve with `flags` (libibacm's ib_acm_resolve_path()).
  int PathResolve(ibv_path_record* path, uint32_t flags);
  int VerifyWithSa(ibv_path_record* path);
  // One resolve: through the library with --shm, else the socket.
  Status Send(const std::vector<acm::EpAddr>& entries, acm::ResolveResponse* resp);

  void QueryPerf(const std::string& svc);
  int QueryPerfOne(const std::string& svc, int index);
  int QueryPerfByAddress(std::vector<uint64_t>* counters);

  void EnumerateEndpoints(const std::string& svc);
  int EnumerateEndpoint(const std::string& svc, int index);

  // Records a failure the way libibacm does, in errno terms, for the
  // strerror() text upstream prints next.
  int Fail(int err);
  int FailStatus(const Status& st) { return Fail(-st.code()); }
  uint32_t ResolveFlags() const { return options_.nodelay ? acm::kFlagNoDelay : 0; }
  void Print(const std::string& text) { fputs(text.c_str(), out_); }
  void Verbose(const std::string& text) {
    if (options_.verbose) Print(text);
  }

  const AcmeOptions& options_;
  FILE* out_;
  AcmClient client_;
  ShmResolver shm_;  // --shm
  int last_errno_ = 0;
  bool perf_header_printed_ = false;  // once per run, like upstream's static
  bool endpoint_header_printed_ = false;
};

}  // namespace acme
}  // namespace ssa

#endif
