// sa_client.cc: SA request queue, TID matching, timers and retries (see
// sa_client.h for the rules).
#include "common/mad/sa_client.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <random>

#include "common/base/rate_limit.h"
#include "common/mad/umad_transport.h"

namespace ssa {

int SubnetTimeoutToMs(uint8_t code) {
  code &= 0x1f;
  uint64_t ns = 4096ULL << code;  // 4.096 us * 2^code
  return static_cast<int>((ns + 999999) / 1000000);
}

SaClient::SaClient(EventLoop* loop, Logger* logger, const UmadPort& port,
                   const SaClientOptions& options)
    : SaClient(loop, logger, port, options,
               std::make_unique<UmadTransport>(port.ca_name, port.port_num, logger)) {}

SaClient::SaClient(EventLoop* loop, Logger* logger, const UmadPort& port,
                   const SaClientOptions& options, std::unique_ptr<MadTransport> transport)
    : loop_(loop),
      logger_(logger),
      ca_name_(port.ca_name),
      port_num_(port.port_num),
      transport_(std::move(transport)),
      sm_lid_(port.sm_lid),
      sm_sl_(port.sm_sl),
      alive_(std::make_shared<char>(0)) {
  ApplyOptions(options);
  // Start TIDs somewhere random so that a restarted daemon does not reuse
  // the TIDs of its previous life while their answers may still be around.
  std::random_device rd;
  next_tid_ = rd();
  if (next_tid_ == 0) next_tid_ = 1;
}

SaClient::~SaClient() {
  alive_.reset();
  for (auto& entry : active_)
    if (entry.second->timer) loop_->CancelTimer(entry.second->timer);
  queue_.ForEach([this](std::unique_ptr<Request>& req) {
    if (req->timer) loop_->CancelTimer(req->timer);
  });
  if (watched_fd_ >= 0) loop_->UnwatchFd(watched_fd_);
  if (transport_) transport_->Close();
}

void SaClient::ApplyOptions(const SaClientOptions& o) {
  depth_ = o.sa_depth;
  if (depth_ > kSaMaxDepth) {
    SSA_LOG(*logger_, kWarn, "SA client %s/%d: sa_depth %d clamped to %d", ca_name_.c_str(),
            port_num_, depth_, kSaMaxDepth);
    depth_ = kSaMaxDepth;
  } else if (depth_ < 1) {
    SSA_LOG(*logger_, kWarn, "SA client %s/%d: sa_depth %d raised to 1", ca_name_.c_str(),
            port_num_, depth_);
    depth_ = 1;
  }
  int timeout = o.timeout_ms;
  if (timeout <= 0) {
    SSA_LOG(*logger_, kWarn, "SA client %s/%d: timeout %d ms invalid, using 2000", ca_name_.c_str(),
            port_num_, timeout);
    timeout = 2000;
  }
  // Capped at 10 minutes so that the doubled kernel timeout stays an int.
  int64_t total = static_cast<int64_t>(timeout) + std::max(0, o.subnet_timeout_ms);
  try_timeout_ms_ = static_cast<int>(std::min<int64_t>(total, 600000));
  retries_ = std::max(0, o.retries);
  pkey_index_ = o.pkey_index;
}

Status SaClient::Open() {
  if (open_) return Status::Ok();
  if (!transport_) return Status::Error(EINVAL, "SA client has no transport");
  std::string where = ca_name_ + "/" + std::to_string(port_num_);
  Status st = transport_->Open(mad::kClassSubnAdm, mad::kSaClassVersion);
  if (!st.ok()) return st.WithContext("SA client " + where);
  int fd = transport_->fd();
  std::weak_ptr<char> alive = alive_;
  st = loop_->WatchFd(fd, EPOLLIN, [this, alive](uint32_t) {
    if (!alive.expired()) OnReadable();
  });
  if (!st.ok()) {
    transport_->Close();
    return st.WithContext("SA client " + where);
  }
  watched_fd_ = fd;
  open_ = true;
  SSA_LOG(*logger_, kInfo, "SA client %s: SM LID %u SL %u, depth %d, %d ms x %d tries",
          where.c_str(), sm_lid_, sm_sl_, depth_, try_timeout_ms_, retries_ + 1);
  return Status::Ok();
}

void SaClient::UpdateSm(uint16_t sm_lid, uint8_t sm_sl) {
  if (sm_lid == sm_lid_ && sm_sl == sm_sl_) return;
  SSA_LOG(*logger_, kInfo, "SA client %s/%d: SM moved from LID %u SL %u to LID %u SL %u",
          ca_name_.c_str(), port_num_, sm_lid_, sm_sl_, sm_lid, sm_sl);
  sm_lid_ = sm_lid;
  sm_sl_ = sm_sl;
}

uint32_t SaClient::NextTid() {
  // Skip 0 and TIDs still owned by a pending try (after 2^32 requests).
  do {
    ++next_tid_;
  } while (next_tid_ == 0 || tid_to_request_.count(next_tid_));
  return next_tid_;
}

Status SaClient::Send(const uint8_t* mad_bytes, size_t len, Callback done, uint64_t flow) {
  if (!open_) return Status::Error(ENOTCONN, "SA client not open");
  if (!done) return Status::Error(EINVAL, "SA request without a callback");
  if (!mad_bytes || len < mad::kMadHeaderSize || len > mad::kMadSize)
    return Status::Error(EINVAL, "SA request of " + std::to_string(len) + " bytes (need 24..256)");
  if (mad_bytes[1] != mad::kClassSubnAdm || mad::ResponseMethodFor(mad_bytes[3]) == 0) {
    char what[80];
    snprintf(what, sizeof(what), "not an SA request: class 0x%02x method 0x%02x", mad_bytes[1],
             mad_bytes[3]);
    return Status::Error(EINVAL, what);
  }
  auto req = std::make_unique<Request>();
  req->id = next_request_id_++;
  req->flow = flow;
  memcpy(req->mad, mad_bytes, len);
  req->done = std::move(done);
  req->deadline = EventLoop::Clock::now() +
                  std::chrono::milliseconds(static_cast<int64_t>(try_timeout_ms_) * (retries_ + 1));

  if (queue_.empty() && active_.size() < static_cast<size_t>(depth_)) {
    Status st = StartTry(req.get());
    if (!st.ok()) return st;
    uint64_t id = req->id;
    active_.emplace(id, std::move(req));
    stats_.outstanding_peak = std::max<uint64_t>(stats_.outstanding_peak, active_.size());
  } else {
    std::weak_ptr<char> alive = alive_;
    uint64_t id = req->id;
    req->timer = loop_->AddTimer(req->deadline - EventLoop::Clock::now(), [this, alive, id, flow] {
      if (!alive.expired()) OnQueuedTimeout(id, flow);
    });
    queue_.Push(flow, std::move(req));
    stats_.queued_peak = std::max<uint64_t>(stats_.queued_peak, queue_.size());
    stats_.queued_flows_peak = std::max<uint64_t>(stats_.queued_flows_peak, queue_.owners());
  }
  ++stats_.requests;
  return Status::Ok();
}

Status SaClient::StartTry(Request* req) {
  if (sm_lid_ == 0)
    return Status::Error(EHOSTUNREACH,
                         "no SM known on " + ca_name_ + "/" + std::to_string(port_num_));
  uint32_t tid = NextTid();
  // The high half goes out as 0; the layer underneath owns it.
  mad::SetMadTid(req->mad, tid);
  MadAddress to;
  to.dlid = sm_lid_;
  to.sl = sm_sl_;
  to.pkey_index = pkey_index_;
  // Let the kernel hold the request (and so accept its answer) well past
  // our own timer; its eventual timeout notice is then stale and dropped.
  Status st = transport_->Send(req->mad, mad::kMadSize, to, 2 * try_timeout_ms_);
  if (!st.ok()) {
    ++stats_.errors;
    SSA_LOG(*logger_, kWarn, "SA client %s/%d: send failed: %s", ca_name_.c_str(), port_num_,
            st.ToString().c_str());
    return st;
  }
  ++stats_.sent;
  if (req->tries > 0) ++stats_.retries;
  ++req->tries;
  req->tid = tid;
  req->tids.push_back(tid);
  tid_to_request_[tid] = req->id;
  std::weak_ptr<char> alive = alive_;
  uint64_t id = req->id;
  // A try ends after its timeout or at the request's budget, whichever
  // comes first.
  auto left = req->deadline - EventLoop::Clock::now();
  auto wait =
      std::min<EventLoop::Clock::duration>(std::chrono::milliseconds(try_timeout_ms_), left);
  if (wait < std::chrono::milliseconds(1)) wait = std::chrono::milliseconds(1);
  req->timer = loop_->AddTimer(wait, [this, alive, id, tid] {
    if (!alive.expired()) OnTryTimeout(id, tid);
  });
  return Status::Ok();
}

void SaClient::Pump() {
  while (!queue_.empty() && active_.size() < static_cast<size_t>(depth_)) {
    std::unique_ptr<Request> req = queue_.Pop();
    if (req->timer) loop_->CancelTimer(req->timer);  // its budget timer: tries have their own
    req->timer = 0;
    Status st = EventLoop::Clock::now() < req->deadline
                    ? StartTry(req.get())
                    : Status::Error(ETIMEDOUT, "budget spent while queued");
    if (st.ok()) {
      uint64_t id = req->id;
      active_.emplace(id, std::move(req));
      stats_.outstanding_peak = std::max<uint64_t>(stats_.outstanding_peak, active_.size());
      continue;
    }
    if (st.code() == -ETIMEDOUT) ++stats_.timeouts;
    Callback done = std::move(req->done);
    req.reset();
    std::weak_ptr<char> alive = alive_;
    done(st.code(), nullptr, 0);
    if (alive.expired()) return;
  }
}

void SaClient::OnReadable() {
  // Level-triggered: stop after a batch so one busy port cannot starve the
  // rest of the loop; the fd stays readable and we come back.
  for (int i = 0; i < 256; ++i) {
    ReceivedMad rx;  // on the stack: stays valid if a callback destroys us
    Status st = transport_->Receive(&rx);
    if (st.code() == -EAGAIN) {
      receive_errors_in_a_row_ = 0;
      return;
    }
    if (!st.ok()) {
      ++stats_.errors;
      if (ShouldLogCount(stats_.errors))
        SSA_LOG(*logger_, kError, "SA client %s/%d: receive failed: %s", ca_name_.c_str(),
                port_num_, st.ToString().c_str());
      // A transport that fails every time would keep the fd readable and
      // spin the loop: stop listening. Pending requests then time out.
      if (++receive_errors_in_a_row_ >= kMaxReceiveErrorsInARow && watched_fd_ >= 0) {
        SSA_LOG(*logger_, kError,
                "SA client %s/%d: %d receive errors in a row, no longer receiving",
                ca_name_.c_str(), port_num_, receive_errors_in_a_row_);
        loop_->UnwatchFd(watched_fd_);
        watched_fd_ = -1;
      }
      return;
    }
    receive_errors_in_a_row_ = 0;
    if (!HandleMad(rx)) return;
  }
}

bool SaClient::HandleMad(const ReceivedMad& rx) {
  if (rx.transport_status != 0) {
    // The layer underneath gave a request back (kernel timeout, send error).
    if (rx.len >= mad::kMadHeaderSize) {
      uint32_t tid = static_cast<uint32_t>(mad::MadTid(rx.data));
      auto it = tid_to_request_.find(tid);
      if (it != tid_to_request_.end()) {
        Request* req = active_.at(it->second).get();
        if (req->tid == tid) {
          ++stats_.errors;
          SSA_LOG(*logger_, kDebug, "SA client %s/%d: TID 0x%08x failed below us: %s",
                  ca_name_.c_str(), port_num_, tid, strerror(rx.transport_status));
          if (req->timer) loop_->CancelTimer(req->timer);
          req->timer = 0;
          return RetryOrFail(req->id, -rx.transport_status);
        }
      }
    }
    ++stats_.stale_responses;
    return true;
  }
  mad::MadHeader h;
  Status st = mad::DecodeMadHeader(rx.data, rx.len, &h);
  const char* bad = nullptr;
  if (!st.ok())
    bad = "shorter than a MAD header";
  else if (h.mgmt_class != mad::kClassSubnAdm)
    bad = "not of the SA class";
  else if (!(h.method & mad::kMethodResponseBit))
    bad = "not a response";
  if (bad) {
    ++stats_.malformed;
    if (ShouldLogCount(stats_.malformed))
      SSA_LOG(
          *logger_, kWarn,
          "SA client %s/%d: dropped a MAD from LID %u (%zu bytes, class 0x%02x method 0x%02x): %s",
          ca_name_.c_str(), port_num_, rx.slid, rx.len, rx.len > 1 ? rx.data[1] : 0,
          rx.len > 3 ? rx.data[3] : 0, bad);
    return true;
  }
  uint32_t tid = static_cast<uint32_t>(h.tid);
  auto it = tid_to_request_.find(tid);
  if (it == tid_to_request_.end()) {
    ++stats_.stale_responses;
    SSA_LOG(*logger_, kDebug, "SA client %s/%d: stale answer TID 0x%016llx dropped",
            ca_name_.c_str(), port_num_, static_cast<unsigned long long>(h.tid));
    return true;
  }
  Request* req = active_.at(it->second).get();
  uint8_t want_method = mad::ResponseMethodFor(req->mad[3]);
  uint16_t want_attr = static_cast<uint16_t>((req->mad[16] << 8) | req->mad[17]);
  if (h.method != want_method || h.attr_id != want_attr) {
    ++stats_.malformed;
    if (ShouldLogCount(stats_.malformed))
      SSA_LOG(*logger_, kWarn,
              "SA client %s/%d: answer to TID 0x%08x has method 0x%02x attribute 0x%04x, expected "
              "0x%02x/0x%04x; dropped",
              ca_name_.c_str(), port_num_, tid, h.method, h.attr_id, want_method, want_attr);
    return true;
  }
  ++stats_.received;
  if (h.status != 0) {
    ++stats_.sa_status_errors;
    SSA_LOG(*logger_, kDebug, "SA client %s/%d: TID 0x%08x answered %s", ca_name_.c_str(),
            port_num_, tid, mad::DescribeMadStatus(h.status).c_str());
  }
  return Finish(req->id, 0, rx.data, rx.len);
}

void SaClient::OnTryTimeout(uint64_t id, uint32_t tid) {
  auto it = active_.find(id);
  if (it == active_.end() || it->second->tid != tid) return;  // already done or retried
  it->second->timer = 0;
  ++stats_.try_timeouts;
  RetryOrFail(id, -ETIMEDOUT);
}

void SaClient::OnQueuedTimeout(uint64_t id, uint64_t flow) {
  std::unique_ptr<Request> req;
  if (!queue_.Remove(
          flow, [id](const std::unique_ptr<Request>& r) { return r->id == id; }, &req))
    return;
  req->timer = 0;
  ++stats_.timeouts;
  SSA_LOG(*logger_, kDebug,
          "SA client %s/%d: request %llu timed out while queued behind %zu in flight",
          ca_name_.c_str(), port_num_, static_cast<unsigned long long>(id), active_.size());
  Callback done = std::move(req->done);
  req.reset();
  done(-ETIMEDOUT, nullptr, 0);
}

bool SaClient::RetryOrFail(uint64_t id, int err) {
  Request* req = active_.at(id).get();
  if (req->tries <= retries_ && EventLoop::Clock::now() < req->deadline) {
    Status st = StartTry(req);
    if (st.ok()) return true;
    err = st.code();
  }
  if (err == -ETIMEDOUT) ++stats_.timeouts;
  SSA_LOG(*logger_, kDebug, "SA client %s/%d: request %llu failed after %d tries: %s",
          ca_name_.c_str(), port_num_, static_cast<unsigned long long>(id), req->tries,
          strerror(-err));
  return Finish(id, err, nullptr, 0);
}

void SaClient::Forget(Request* req) {
  if (req->timer) loop_->CancelTimer(req->timer);
  req->timer = 0;
  for (uint32_t tid : req->tids) tid_to_request_.erase(tid);
}

bool SaClient::Finish(uint64_t id, int status, const uint8_t* resp, size_t len) {
  auto it = active_.find(id);
  std::unique_ptr<Request> req = std::move(it->second);
  active_.erase(it);
  Forget(req.get());
  Callback done = std::move(req->done);
  req.reset();
  std::weak_ptr<char> alive = alive_;
  done(status, resp, len);
  if (alive.expired()) return false;
  Pump();
  return !alive.expired();
}

void SaClient::CancelAll() {
  // Take everything out first: callbacks may Send() anew meanwhile.
  std::vector<std::unique_ptr<Request>> victims;
  victims.reserve(active_.size() + queue_.size());
  for (auto& entry : active_) {
    Forget(entry.second.get());
    victims.push_back(std::move(entry.second));
  }
  active_.clear();
  for (auto& req : queue_.TakeAll()) {
    if (req->timer) loop_->CancelTimer(req->timer);
    req->timer = 0;
    victims.push_back(std::move(req));
  }
  // Oldest first, whichever flow each waited in.
  std::sort(victims.begin(), victims.end(),
            [](const std::unique_ptr<Request>& a, const std::unique_ptr<Request>& b) {
              return a->id < b->id;
            });
  if (!victims.empty())
    SSA_LOG(*logger_, kInfo, "SA client %s/%d: cancelling %zu requests", ca_name_.c_str(),
            port_num_, victims.size());
  std::weak_ptr<char> alive = alive_;
  for (auto& req : victims) {
    ++stats_.cancelled;
    Callback done = std::move(req->done);
    req.reset();
    done(-ECANCELED, nullptr, 0);
    if (alive.expired()) return;  // the rest are freed with `victims`
  }
}

}  // namespace ssa
