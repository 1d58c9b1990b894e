// bridge_inbox.h: how an upstream provider's own threads reach the core's
// loop. Upstream providers call the daemon (acm_write,
// acm_resolve_response, acm_send_sa_mad, ...) from whatever thread they
// like, while every core op must be called on the core's loop thread. The
// exported functions push what they were asked into this queue and wake
// the loop through an eventfd the bridge watches there (ops->fd_watch);
// Drain() then hands each item to the bridge, in order, on the loop.
//
// Threads: Push*() from any thread (one mutex guards the queue); Drain()
// and the fd on the loop thread only. Owned by the bridge.
#ifndef IBACM_SSA_PROVIDERS_UPSTREAM_BRIDGE_INBOX_H
#define IBACM_SSA_PROVIDERS_UPSTREAM_BRIDGE_INBOX_H

#include <infiniband/verbs.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>

#include "providers/upstream/acm_prov_abi.h"

namespace ssa {
namespace upstream {

struct InboxItem {
  enum class Kind { kLog, kAnswer, kCounter, kSaSend };
  Kind kind = Kind::kLog;
  int level = 0;              // kLog: upstream's level (0 .. 2)
  std::string text;           // kLog
  uint64_t id = 0;            // kAnswer: the request id
  uint8_t status = 0;         // kAnswer: ACM_STATUS_*
  bool has_path = false;      // kAnswer
  ibv_path_record path{};     // kAnswer
  int counter = 0;            // kCounter: ACM_CNTR_*
  acm_sa_mad* mad = nullptr;  // kSaSend
};

class BridgeInbox {
 public:
  BridgeInbox() = default;
  ~BridgeInbox();
  BridgeInbox(const BridgeInbox&) = delete;
  BridgeInbox& operator=(const BridgeInbox&) = delete;

  // Creates the eventfd; 0 or -errno.
  int Open();
  int fd() const { return fd_; }

  // Queues an item and wakes the loop. False if the queue is full (a
  // provider flooding the loop): the caller drops the item and counts it.
  bool Push(InboxItem item);
  // Takes every queued item, in order, and calls `fn` for each (loop only).
  void Drain(const std::function<void(InboxItem&)>& fn);

  static constexpr size_t kMaxQueued = 1 << 16;

 private:
  int fd_ = -1;
  std::mutex mu_;  // guards queue_
  std::deque<InboxItem> queue_;
};

}  // namespace upstream
}  // namespace ssa

#endif
