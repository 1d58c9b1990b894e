// fed_relay.h: the federated soak's federation links (doc/soak.md,
// "Federated mode"): a TCP relay between two cores on loopback that the
// soak can cut (every connection through it closed, new ones accepted and
// closed at once, as a network that drops the link) and restore. A core's
// federation file names the relay's port for its peer; the relay forwards
// to the peer's listen port.
//
// One thread relays for every Relay of a RelaySet; Cut and Restore return
// once that thread has applied them. Any thread may call them.
#ifndef IBACM_SSA_TEST_SOAK_FED_RELAY_H
#define IBACM_SSA_TEST_SOAK_FED_RELAY_H

#include <atomic>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "common/base/mutex.h"
#include "common/base/status.h"

namespace ssa {
namespace soak {

class RelaySet {
 public:
  RelaySet() = default;
  ~RelaySet();
  RelaySet(const RelaySet&) = delete;
  RelaySet& operator=(const RelaySet&) = delete;

  // A relay listening on a loopback port of its own, forwarding to
  // 127.0.0.1:`target_port`; its index. Before Start only.
  Status Add(int target_port, int* index, int* listen_port);
  Status Start();
  void Stop();

  // Closes the relay's connections and refuses new ones (`cut`), or
  // forwards again; returns once applied.
  void SetCut(int index, bool cut);

 private:
  struct Relay {
    int listen_fd = -1;
    int target_port = 0;
    std::vector<std::pair<int, int>> pairs;  // accepted, connected to the target
    bool cut = false;                        // as applied by the thread
  };
  void Loop();
  void Apply() REQUIRES(mu_);

  std::vector<Relay> relays_;  // the thread's, once started
  Mutex mu_;
  CondVar applied_cv_;
  std::vector<bool> wanted_ GUARDED_BY(mu_);
  uint64_t requests_ GUARDED_BY(mu_) = 0, applied_ GUARDED_BY(mu_) = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace soak
}  // namespace ssa

#endif
