// null_acm_server.h: the baseline for the resolve benchmark. It speaks the
// same acm.h protocol on the same kind of socket through the same
// ClientServer as ibacm, but answers every RESOLVE at once with one canned
// path record: no provider, no cache, no dispatch. What ibacm adds on top of
// this is the cost of resolving.
//
// Given a path source (bench_jobstart's stand-in daemon), it answers a
// resolve of a destination LID from it instead, the rest as before: the
// socket's cost with a lookup as cheap as the ssa provider's.
//
// Runs its own EventLoop on its own thread; Start/Stop from one thread.
#ifndef IBACM_SSA_TEST_BENCH_NULL_ACM_SERVER_H
#define IBACM_SSA_TEST_BENCH_NULL_ACM_SERVER_H

#include <time.h>

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include <infiniband/sa.h>

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

  // The record for destination LID `dlid` (host order); false: none
  // (answered ENODATA). Called on the server's thread; set before Start.
  using PathFn = std::function<bool(uint16_t dlid, ibv_path_record* out)>;
  void set_path_source(PathFn fn) { path_fn_ = std::move(fn); }
  // CPU time (user and system) of the server's thread since Start; -1
  // when the system cannot say.
  double ThreadCpuSeconds() const;

 private:
  PathFn path_fn_;
  clockid_t cpu_clock_ = 0;
  bool cpu_clock_known_ = false;
  Logger log_;
  EventLoop loop_;
  std::unique_ptr<ClientServer> server_;
  std::thread thread_;
};

}  // namespace bench
}  // namespace ssa

#endif
