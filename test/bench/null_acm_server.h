// null_acm_server.h: the baseline for the resolve benchmark. It speaks the
// same acm.h protocol on the same kind of socket through the same
// ClientServer as ibacm, but answers every RESOLVE at once with one canned
// path record: no provider, no cache, no dispatch. What ibacm adds on top of
// this is the cost of resolving.
//
// Runs its own EventLoop on its own thread; Start/Stop from one thread.
#ifndef IBACM_SSA_TEST_BENCH_NULL_ACM_SERVER_H
#define IBACM_SSA_TEST_BENCH_NULL_ACM_SERVER_H

#include <memory>
#include <string>
#include <thread>

#include "common/base/event_loop.h"
#include "common/base/log.h"
#include "core/client_server.h"

namespace ssa {
namespace bench {

class NullAcmServer : public ClientServer::Handler {
 public:
  NullAcmServer() = default;
  ~NullAcmServer() override { Stop(); }
  Status Start(const std::string& socket_path);
  void Stop();
  void OnMessage(ClientServer::ClientId client, const uint8_t* msg, size_t len) override;

 private:
  Logger log_;
  EventLoop loop_;
  std::unique_ptr<ClientServer> server_;
  std::thread thread_;
};

}  // namespace bench
}  // namespace ssa

#endif
