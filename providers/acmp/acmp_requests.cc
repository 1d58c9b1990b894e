// acmp_requests.cc: resolve request flow control, retries and timeouts
// (acmp_requests.h).
#include "providers/acmp/acmp_requests.h"

namespace ssa {
namespace acmp {

RequestTracker::RequestTracker(Reactor* reactor, Callbacks callbacks, int depth, int retries,
                               uint64_t first_tid)
    : reactor_(reactor),
      cb_(std::move(callbacks)),
      depth_(depth < 1 ? 1 : depth),
      retries_(retries < 0 ? 0 : retries),
      next_tid_(first_tid ? first_tid : 1) {}

RequestTracker::~RequestTracker() { Clear(); }

uint64_t RequestTracker::Start(const std::string& dest_key, AcmMessage msg) {
  Request req;
  req.dest_key = dest_key;
  req.tid = next_tid_++;
  msg.tid = req.tid;
  EncodeAcmMessage(msg, req.bytes.data());
  uint64_t tid = req.tid;
  if (static_cast<int>(active_.size()) < depth_)
    Launch(std::move(req));
  else
    queue_.push_back(std::move(req));
  return tid;
}

void RequestTracker::Launch(Request req) {
  uint64_t tid = req.tid;
  active_.emplace(tid, std::move(req));
  Try(tid);
}

void RequestTracker::Try(uint64_t tid) {
  Request& r = active_.at(tid);
  ++r.tries;
  ++tries_sent_;
  if (!cb_.send(r.bytes.data(), r.bytes.size())) ++send_failures_;
  // `send` may not call back into us, so `r` is still valid here.
  r.timer = reactor_->AddTimer(std::chrono::milliseconds(try_timeout_ms_),
                               [this, tid] { OnTimeout(tid); });
}

void RequestTracker::OnTimeout(uint64_t tid) {
  auto it = active_.find(tid);
  if (it == active_.end()) return;
  it->second.timer = 0;
  if (it->second.tries <= retries_) {
    Try(tid);
    return;
  }
  ++timeouts_;
  std::string key = it->second.dest_key;
  int tries = it->second.tries;
  Finish(tid);
  cb_.timed_out(key, tid, tries);
}

bool RequestTracker::TakeResponse(uint64_t tid, std::string* dest_key) {
  auto it = active_.find(tid);
  if (it == active_.end()) return false;
  *dest_key = it->second.dest_key;
  Finish(tid);
  return true;
}

void RequestTracker::Finish(uint64_t tid) {
  auto it = active_.find(tid);
  if (it->second.timer) reactor_->CancelTimer(it->second.timer);
  active_.erase(it);
  while (!queue_.empty() && static_cast<int>(active_.size()) < depth_) {
    Request next = std::move(queue_.front());
    queue_.pop_front();
    Launch(std::move(next));
  }
}

void RequestTracker::Clear() {
  for (auto& kv : active_)
    if (kv.second.timer) reactor_->CancelTimer(kv.second.timer);
  active_.clear();
  queue_.clear();
}

}  // namespace acmp
}  // namespace ssa
