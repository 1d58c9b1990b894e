// bridge_inbox.cc: see bridge_inbox.h.
#include "providers/upstream/bridge_inbox.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>

#include "common/base/raw_fd.h"

namespace ssa {
namespace upstream {

BridgeInbox::~BridgeInbox() {
  if (fd_ >= 0) RawClose(fd_);
}

int BridgeInbox::Open() {
  fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  return fd_ < 0 ? -errno : 0;
}

bool BridgeInbox::Push(InboxItem item) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (queue_.size() >= kMaxQueued) return false;
    queue_.push_back(std::move(item));
  }
  uint64_t one = 1;
  // A full counter (never in practice) still leaves the fd readable.
  ssize_t n = write(fd_, &one, sizeof(one));
  (void)n;
  return true;
}

void BridgeInbox::Drain(const std::function<void(InboxItem&)>& fn) {
  uint64_t count;
  ssize_t n = read(fd_, &count, sizeof(count));
  (void)n;
  std::deque<InboxItem> items;
  {
    std::lock_guard<std::mutex> lock(mu_);
    items.swap(queue_);
  }
  for (InboxItem& item : items) fn(item);
}

}  // namespace upstream
}  // namespace ssa
