// acmp_datagram_io.cc: one acmp endpoint's datagram I/O (see
// acmp_datagram_io.h).
#include "providers/acmp/acmp_datagram_io.h"

#include <cstdio>
#include <utility>

#include <ibacm_ssa/provider.h>
#include "common/base/rate_limit.h"

namespace ssa {
namespace acmp {

namespace {

// Datagrams handled per wake-up (see the header).
constexpr int kDrainBatch = 64;

}  // namespace

DatagramIo::DatagramIo(Reactor* reactor, ProviderLog* log, Callbacks callbacks, std::string name,
                       int send_depth)
    : reactor_(reactor),
      log_(log),
      cb_(std::move(callbacks)),
      name_(std::move(name)),
      send_depth_(send_depth),
      sends_(kSendQueueBound) {}

int DatagramIo::Start(std::unique_ptr<dgram::DatagramEndpoint> ud) {
  ud_ = std::move(ud);
  int rc = cb_.watch(ud_->fd());
  if (rc < 0) return rc;
  fd_watched_ = true;
  stats_logged_ = StatsText();
  return 0;
}

void DatagramIo::Rebind(std::unique_ptr<dgram::DatagramEndpoint> ud) {
  if (fd_watched_) cb_.unwatch(ud_->fd());
  fd_watched_ = false;
  if (ud) ud_ = std::move(ud);
  fd_watched_ = cb_.watch(ud_->fd()) == 0;
}

void DatagramIo::Close() {
  if (drain_timer_) reactor_->CancelTimer(drain_timer_);
  drain_timer_ = 0;
  if (fd_watched_) cb_.unwatch(ud_->fd());
  fd_watched_ = false;
}

void DatagramIo::Drain() {
  dgram::Datagram dg;
  int handled = 0;
  while (handled < kDrainBatch && ud_->Receive(&dg)) {
    cb_.on_datagram(dg);
    ++handled;
  }
  NoteRejects();
  FlushSends();  // a send completion may have made room
  if (handled < kDrainBatch || drain_timer_) return;
  // Perhaps more: continue at the next turn of the loop. Close() cancels
  // the timer, so `this` is alive when it fires.
  drain_timer_ = reactor_->AddTimer(std::chrono::milliseconds(0), [this] {
    drain_timer_ = 0;
    Drain();
  });
}

void DatagramIo::NoteRejects() {
  const dgram::EndpointStats& t = ud_->stats();
  for (int i = 0; i < static_cast<int>(dgram::RejectReason::kCount); ++i) {
    uint64_t before = rejects_seen_[i], now = t.rejected_by[i];
    if (now <= before) continue;
    rejects_seen_[i] = now;
    if (ShouldLogCountSince(before, now))
      log_->Log(SSA_LOG_WARN,
                "endpoint %s: %llu datagram%s rejected by the transport (%s); %llu so far",
                name_.c_str(), static_cast<unsigned long long>(now - before),
                now - before == 1 ? "" : "s",
                dgram::RejectReasonName(static_cast<dgram::RejectReason>(i)),
                static_cast<unsigned long long>(now));
  }
}

void DatagramIo::SendResponse(const dgram::UnicastTarget& to, const uint8_t* data, size_t len,
                              const std::string& to_name) {
  Status st;
  switch (sends_.Send(ud_.get(), to, data, len, &st)) {
    case SendQueue::Result::kSent: ++stats_.responses_sent; break;
    case SendQueue::Result::kQueued:
      log_->Log(SSA_LOG_DEBUG, "endpoint %s: response to %s waits for the send queue (%zu waiting)",
                name_.c_str(), to_name.c_str(), sends_.size());
      break;
    case SendQueue::Result::kDropped:
      if (ShouldLogCount(sends_.dropped()))
        log_->Log(SSA_LOG_WARN,
                  "endpoint %s: response to %s dropped: %zu responses already wait for the send "
                  "queue (send_depth %d); %llu dropped so far",
                  name_.c_str(), to_name.c_str(), sends_.size(), send_depth_,
                  static_cast<unsigned long long>(sends_.dropped()));
      break;
    case SendQueue::Result::kFailed:
      log_->Log(SSA_LOG_WARN, "endpoint %s: response to %s: %s", name_.c_str(), to_name.c_str(),
                st.ToString().c_str());
      break;
  }
}

void DatagramIo::FlushSends() {
  if (!sends_.size()) return;
  uint64_t failed = sends_.failed();
  Status st;
  stats_.responses_sent += sends_.Flush(ud_.get(), &st);
  if (sends_.failed() != failed)
    log_->Log(SSA_LOG_WARN, "endpoint %s: %llu queued response%s refused: %s", name_.c_str(),
              static_cast<unsigned long long>(sends_.failed() - failed),
              sends_.failed() - failed == 1 ? "" : "s", st.ToString().c_str());
}

bool DatagramIo::SendToGroup(const dgram::Group& group, const uint8_t* data, size_t len) {
  Status st = ud_->SendToGroup(group, data, len);
  if (!st.ok())
    log_->Log(SSA_LOG_DEBUG, "endpoint %s: multicast send: %s", name_.c_str(),
              st.ToString().c_str());
  return st.ok();
}

std::string DatagramIo::StatsText() const {
  const ProtocolStats& s = stats_;
  const dgram::EndpointStats& t = ud_->stats();
  auto u = [](uint64_t v) { return static_cast<unsigned long long>(v); };
  char buf[768];
  snprintf(buf, sizeof(buf),
           "%llu requests and %llu responses received, %llu responses sent, %llu requesters "
           "cached; dropped: %llu malformed, %llu unexpected responses, %llu without a GRH, "
           "%llu with no shared group, %llu for a full cache; datagrams: %llu sent, %llu send "
           "errors, %llu undeliverable, %llu received, %llu rejected",
           u(s.requests_received), u(s.responses_received), u(s.responses_sent),
           u(s.requesters_cached), u(s.malformed_total), u(s.unexpected_responses), u(s.no_grh),
           u(s.no_shared_group), u(s.cache_full), u(t.sent), u(t.send_errors), u(t.undeliverable),
           u(t.received), u(t.rejected));
  std::string text = buf;
  const char* sep = " (";
  for (int i = 0; i < static_cast<int>(dgram::RejectReason::kCount); ++i) {
    if (!t.rejected_by[i]) continue;
    text += sep;
    text += dgram::RejectReasonName(static_cast<dgram::RejectReason>(i));
    text += " " + std::to_string(t.rejected_by[i]);
    sep = ", ";
  }
  if (*sep == ',') text += ")";
  snprintf(buf, sizeof(buf),
           "; responses: %llu waited for the send queue, %llu dropped (queue full)",
           u(sends_.queued()), u(sends_.dropped()));
  return text + buf;
}

void DatagramIo::LogStatsIfChanged() {
  std::string text = StatsText();
  if (text == stats_logged_) return;
  log_->Log(SSA_LOG_INFO, "endpoint %s statistics: %s", name_.c_str(), text.c_str());
  stats_logged_ = std::move(text);
}

}  // namespace acmp
}  // namespace ssa
