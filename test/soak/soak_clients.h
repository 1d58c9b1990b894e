// soak_clients.h: the soak's steady clients. Each resolves every LID of
// the fabric in turn, for ever, from one daemon's port, and hands each
// answer (or its absence) to the oracle. Two kinds ask the same daemon:
// one through the acm.h socket as librdmacm does, one through
// libibssa_path (the shared-memory tables the ssa provider publishes, the
// socket for what they do not hold), so that the tables are judged against
// the SA through every fault too.
//
// Threads: each loop runs on a thread of its own until `stop` is set.
#ifndef IBACM_SSA_TEST_SOAK_SOAK_CLIENTS_H
#define IBACM_SSA_TEST_SOAK_SOAK_CLIENTS_H

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "test/soak/soak_oracle.h"

namespace ssa {
namespace soak {

struct ClientSpec {
  int daemon = 0;      // the oracle's index of the daemon
  std::string socket;  // its acm.h socket
  uint16_t slid = 0;   // its port
  std::vector<uint16_t> dlids;
  int think_us = 0;  // pause between two requests
};

// What the loops did, for the summary.
struct ClientTotals {
  std::atomic<uint64_t> sent{0};
  std::atomic<uint64_t> table_answers{0};  // libibssa_path answers from the tables
};

void SocketClientLoop(ClientSpec spec, const std::atomic<bool>* stop, Oracle* oracle,
                      ClientTotals* totals);
void TableClientLoop(ClientSpec spec, const std::atomic<bool>* stop, Oracle* oracle,
                     ClientTotals* totals);

}  // namespace soak
}  // namespace ssa

#endif
