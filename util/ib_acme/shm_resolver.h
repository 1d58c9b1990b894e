// shm_resolver.h: ib_acme --shm: the resolve requests ib_acme would send
// to the daemon's socket, answered through libibssa_path instead (the
// daemon's shared-memory tables, the library's own socket for the rest),
// in the same shape as AcmClient::Resolve, so that the output is the same.
// Path requests with QUERY_SA (-v, --verify daemon) are the SA's to answer
// and stay on the socket (the caller's AcmClient).
//
// One thread (ib_acme's); owns its library handle.
#ifndef IBACM_SSA_UTIL_IB_ACME_SHM_RESOLVER_H
#define IBACM_SSA_UTIL_IB_ACME_SHM_RESOLVER_H

#include <string>
#include <vector>

#include "common/acm/acm_wire.h"
#include "common/base/status.h"

struct ibssa_path;

namespace ssa {
namespace acme {

class ShmResolver {
 public:
  ShmResolver() = default;
  ~ShmResolver() { Close(); }
  ShmResolver(const ShmResolver&) = delete;
  ShmResolver& operator=(const ShmResolver&) = delete;

  // `svc`: -S's unix socket path (the tables are named after it).
  Status Open(const std::string& svc, int timeout_ms);
  void Close();
  bool open() const { return h_ != nullptr; }

  // True when the library should answer `entries` (no QUERY_SA).
  static bool Takes(const std::vector<acm::EpAddr>& entries);
  Status Resolve(const std::vector<acm::EpAddr>& entries, acm::ResolveResponse* out);
  // "libibssa_path: N from the shared-memory tables (epoch E), M through
  // the socket, ..." for -T's report.
  std::string StatsLine() const;
  // Whether the daemon's tables are in use; if not, why (which file or
  // directory, and what is wrong with it). Never blocks.
  bool TablesUsable(std::string* why) const;

 private:
  ibssa_path* h_ = nullptr;
};

}  // namespace acme
}  // namespace ssa

#endif
