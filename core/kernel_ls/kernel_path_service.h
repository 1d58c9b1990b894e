// kernel_path_service.h: serves the kernel's path-record requests
// (NETLINK_RDMA, client RDMA_NL_LS) through the providers, as upstream
// ibacm does for rdma_cm users inside the kernel (NFS/RDMA, iSER, SRP...).
//
// Start() opens the socket through the NetlinkOpenFn seam, joins the
// RDMA_NL_GROUP_LS multicast group (the kernel sends its requests there,
// and only asks user space at all while someone listens, so requests made
// early in boot are not lost once the daemon is up) and tells the kernel
// how long to wait for an answer (RDMA_NL_LS_OP_SET_TIMEOUT). Each RESOLVE
// request becomes a path query to the PathResolver, each IP_RESOLVE (an
// IPv4 or IPv6 address behind an IB router, for the RDMA CM) an address
// query, answered with the address's GID; every request gets
// exactly one answer: the provider's path record (for a routed or one-way
// path, and a kernel that takes them, with its outbound and inbound
// records: kernel_ls/ls_answer.h), or RDMA_NL_LS_F_ERR when
// the request is malformed, the provider fails, or it has not answered by
// the deadline (a little before the kernel's own timeout), on which the
// kernel asks the SA itself at once. A provider answer after the deadline
// is dropped. Stop() answers what is still open with an error.
//
// When the kernel does not offer the service (no InfiniBand support, no
// ib_core), Start() says so once and the daemon runs without it.
//
// Bad input is counted by kind and logged rate-limited. Owned by the
// daemon; borrows the reactor, logger and resolver. Loop thread only.
#ifndef IBACM_SSA_CORE_KERNEL_LS_KERNEL_PATH_SERVICE_H
#define IBACM_SSA_CORE_KERNEL_LS_KERNEL_PATH_SERVICE_H

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

#include "common/base/log.h"
#include "common/base/rate_limit.h"
#include "common/base/reactor.h"
#include "core/kernel_ls/ls_codec.h"
#include "core/kernel_ls/path_resolver.h"
#include "core/netlink/netlink_msg.h"
#include "core/netlink/netlink_socket.h"

namespace ssa {

class KernelPathService {
 public:
  struct Options {
    // Sent to the kernel with SET_TIMEOUT (it accepts 100..200000 ms).
    uint32_t timeout_ms = 2000;
    // How often a summary of the counters is logged while requests come.
    uint32_t summary_interval_ms = 60000;
  };
  struct Stats {
    uint64_t requests = 0;              // RESOLVE and IP_RESOLVE requests taken to a provider
    uint64_t ip_requests = 0;           // of those: IP_RESOLVE
    uint64_t answered_path = 0;         // answered with a path record
    uint64_t answered_directional = 0;  // of those: with outbound (and inbound) records too
    uint64_t answered_error = 0;        // answered RDMA_NL_LS_F_ERR, whatever the reason
    uint64_t provider_errors = 0;       // of those: the provider's (or no endpoint's) error
    uint64_t timeouts = 0;              // of those: no provider answer by the deadline
    uint64_t bad_requests = 0;          // of those: malformed or unsupported requests
    uint64_t late_answers = 0;          // provider answers after the deadline, dropped
    uint64_t ignored = 0;               // not requests for us, or not from the kernel
    uint64_t malformed = 0;             // datagrams whose netlink framing is broken
    uint64_t kernel_errors = 0;         // NLMSG_ERROR replies to what we sent
    uint64_t overflows = 0;             // the kernel dropped messages (ENOBUFS)
    uint64_t send_failures = 0;
  };

  KernelPathService(Reactor* reactor, Logger* log, PathResolver* resolver, Options options);
  ~KernelPathService();
  KernelPathService(const KernelPathService&) = delete;
  KernelPathService& operator=(const KernelPathService&) = delete;

  // True when the service runs; false when the kernel does not offer it
  // (logged once, at warning level).
  bool Start(const NetlinkOpenFn& open);
  void Stop();
  bool active() const { return socket_ != nullptr; }
  const Stats& stats() const { return stats_; }
  size_t outstanding() const { return outstanding_.size(); }
  // One line: "N requests: N with a path, N errors (...)".
  std::string StatsText() const;
  // The deadline by which the daemon answers, a little before the kernel's.
  uint32_t answer_deadline_ms() const;

 private:
  struct Outstanding {
    kernel_ls::LsRequest request;
    Reactor::TimerId timer = 0;
  };

  void OnReadable();
  void HandleDatagram(const uint8_t* data, size_t len);
  void HandleMessage(const NlMessage& msg);
  void HandleKernelError(const NlMessage& msg);
  void OnProviderAnswer(uint64_t token, uint8_t status, const ibv_path_record* path);
  void OnDeadline(uint64_t token);
  void Send(const kernel_ls::LsRequest& req, const ibv_path_record* path);
  void NoteActivity();

  Reactor* reactor_;
  Logger* log_;
  PathResolver* resolver_;
  Options options_;
  std::unique_ptr<NetlinkSocket> socket_;
  std::unordered_map<uint64_t, Outstanding> outstanding_;
  uint64_t next_token_ = 1;
  uint32_t next_seq_ = 1;  // of the messages we originate (SET_TIMEOUT)
  Reactor::TimerId summary_timer_ = 0;
  bool summary_due_ = false;
  Stats stats_;
  RateLimitedLog bad_log_;
};

}  // namespace ssa

#endif
