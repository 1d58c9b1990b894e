// request_dispatcher.h: turns client messages into provider calls and
// provider answers into client replies.
//
// RESOLVE: finds the local source (given, chosen by route for IP
// destinations, or the first endpoint), hands the request to the source
// endpoint's provider with a fresh request id, and replies when the provider
// answers. PERF_QUERY and EP_QUERY are answered from the core's counters and
// model. Malformed requests get an error status, are counted and logged.
// Path queries from inside the daemon (the kernel's, through PathResolver)
// take the same way to the providers and count in the same counters.
//
// Borrows the logger, host, ports and counters; the ClientServer is set
// after construction (they point at each other). Loop thread only.
#ifndef IBACM_SSA_CORE_REQUEST_DISPATCHER_H
#define IBACM_SSA_CORE_REQUEST_DISPATCHER_H

#include <cstdint>
#include <string>
#include <vector>

#include "common/acm/acm_wire.h"
#include "common/base/log.h"
#include "core/client_server.h"
#include "core/core_model.h"
#include "core/kernel_ls/path_resolver.h"
#include "core/provider_host.h"

namespace ssa {

class PortManager;

class RequestDispatcher : public ClientServer::Handler, public PathResolver {
 public:
  struct Stats {
    uint64_t resolves = 0;
    uint64_t queries = 0;
    uint64_t perf_queries = 0;
    uint64_t ep_queries = 0;
    uint64_t bad_requests = 0;  // answered with an error status
    uint64_t answered = 0;
    uint64_t internal_paths = 0;      // ResolvePath() calls
    uint64_t internal_addresses = 0;  // ResolveAddress() calls
  };

  RequestDispatcher(Logger* log, ProviderHost* host, PortManager* ports, CounterArray* counters);
  void set_server(ClientServer* server) { server_ = server; }

  void OnMessage(ClientServer::ClientId client, const uint8_t* msg, size_t len) override;
  const Stats& stats() const { return stats_; }

  // PathResolver: a path request with no client behind it.
  void ResolvePath(const ibv_path_record& path, const std::string& device, int port_num,
                   DoneFn done) override;
  // PathResolver: an address the kernel asks about. One of our own
  // addresses is answered with its port's GID at once; any other goes to
  // the provider of the source the route picks, as a client's resolve.
  void ResolveAddress(int family, const uint8_t* addr, DoneFn done) override;

 private:
  void HandleResolve(ClientServer::ClientId client, const acm::Request& req, const uint8_t* msg,
                     size_t len);
  void HandlePerfQuery(ClientServer::ClientId client, const acm::Request& req);
  void HandleEpQuery(ClientServer::ClientId client, const acm::Request& req);
  void OnAnswer(ProviderHost::PendingRequest&& req, uint8_t status, const ibv_path_record* path);
  // Hands an internal request (no client) to the provider of `src`; the
  // core answers `done` with an error when the provider refuses it.
  void SendInternal(CoreAddress* src, CoreEndpoint* ep, ssa_resolve_request* pr, DoneFn done);
  void Reply(ClientServer::ClientId client, const std::vector<uint8_t>& bytes);
  void CountError(uint8_t status);
  void ReplyResolveError(ClientServer::ClientId client, const acm::MsgHeader& hdr, uint8_t status,
                         const char* why);

  Logger* log_;
  ProviderHost* host_;
  PortManager* ports_;
  CounterArray* counters_;
  ClientServer* server_ = nullptr;
  Stats stats_;
};

}  // namespace ssa

#endif
