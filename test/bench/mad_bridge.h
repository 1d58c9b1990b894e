// mad_bridge.h: carries control MADs between two processes' in-process MAD
// fabrics (common/tree/inproc_mad.h), so that bench_tree can run consumers
// in child processes (one process cannot hold 10,000 consumers' descriptors)
// while the core, distribution and access nodes stay in the parent. Each
// side has a gateway on its own fabric: the parent's stands for the child's
// consumer LIDs, the child's for the core's LID. What a gateway takes goes
// over a SOCK_SEQPACKET socketpair, one MAD per message with its source and
// destination LIDs, and the other side's gateway sends it on as from that
// source. The data channel does not pass here: it stays real TCP.
//
// Nothing blocks: what the socket will not take now waits in a queue
// until it is writable (both sides writing into full sockets with blocking
// writes, each bridge's one thread stuck in its write, was a deadlock),
// and nothing is dropped.
//
// Ownership: borrows the reactor, the socket and the gateway. Loop thread
// only.
#ifndef IBACM_SSA_TEST_BENCH_MAD_BRIDGE_H
#define IBACM_SSA_TEST_BENCH_MAD_BRIDGE_H

#include <cstdint>
#include <deque>
#include <vector>

#include "common/base/reactor.h"
#include "common/base/status.h"
#include "common/tree/inproc_mad.h"

namespace ssa {
namespace bench {

class MadBridge {
 public:
  MadBridge(Reactor* reactor, int sock, tree::InprocMadGateway* gateway)
      : reactor_(reactor), sock_(sock), gateway_(gateway) {}
  ~MadBridge() { Stop(); }
  MadBridge(const MadBridge&) = delete;
  MadBridge& operator=(const MadBridge&) = delete;

  Status Start();
  void Stop();

  uint64_t sent() const { return sent_; }          // to the other process
  uint64_t received() const { return received_; }  // from it
  uint64_t errors() const { return errors_; }      // bad messages, failed writes
  bool peer_gone() const { return peer_gone_; }

 private:
  void OnSocket(uint32_t events);
  void OnGateway();
  // Writes what waits; watches for writability while something does.
  void Flush();

  Reactor* reactor_;
  int sock_;
  tree::InprocMadGateway* gateway_;
  bool started_ = false;
  bool peer_gone_ = false;
  uint64_t sent_ = 0, received_ = 0, errors_ = 0;
  std::deque<std::vector<uint8_t>> out_;  // messages not yet written
  bool want_write_ = false;
};

}  // namespace bench
}  // namespace ssa

#endif
