// acm_client.h: a blocking client of the ibacm socket protocol, for our
// ib_acme, the integration tests and the benchmarks.
//
// One connection, one request at a time, every call bounded by a timeout.
// Not thread-safe: one client per thread.
#ifndef IBACM_SSA_COMMON_ACM_ACM_CLIENT_H
#define IBACM_SSA_COMMON_ACM_ACM_CLIENT_H

#include <cstdint>
#include <string>
#include <vector>

#include "common/acm/acm_wire.h"
#include "common/base/status.h"

namespace ssa {

class AcmClient {
 public:
  AcmClient() = default;
  ~AcmClient() { Close(); }
  AcmClient(const AcmClient&) = delete;
  AcmClient& operator=(const AcmClient&) = delete;

  // `service` as ib_acme's -S takes it: a path starting with '/' is a unix
  // socket; otherwise a host name or address, with ":port" or else the port
  // from `port_file` (upstream's /run/ibacm-tcp.port), else 6125.
  Status Connect(const std::string& service, const std::string& port_file = "/run/ibacm-tcp.port");
  void Close();
  bool connected() const { return fd_ >= 0; }
  void set_timeout_ms(int ms) { timeout_ms_ = ms; }

  // Sends one request and reads one whole reply (framed like the server
  // frames requests). A reply of the wrong shape is an error.
  Status Transact(const std::vector<uint8_t>& request, std::vector<uint8_t>* reply);

  Status Resolve(const std::vector<acm::EpAddr>& entries, acm::ResolveResponse* out);
  Status PerfQuery(uint8_t endpoint_index, acm::PerfResponse* out);
  Status PerfQueryByAddress(const acm::EpAddr& source, acm::PerfResponse* out);
  Status EpQuery(uint8_t endpoint_index, uint8_t port_filter, acm::EpQueryResponse* out);

 private:
  Status WaitFor(short events);
  int fd_ = -1;
  int timeout_ms_ = 10000;
  uint64_t next_tid_ = 1;
};

}  // namespace ssa

#endif
