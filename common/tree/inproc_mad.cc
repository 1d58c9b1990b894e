// inproc_mad.cc: see inproc_mad.h.
#include "common/tree/inproc_mad.h"
#include "common/base/mutex.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <map>
#include <vector>

#include "common/mad/mad_wire.h"

namespace ssa {
namespace tree {

class InprocMadTransport;

struct InprocMadFabric::State {
  explicit State(size_t max_queue) : max_queue(max_queue) {}
  const size_t max_queue;
  // Also guards every transport's fields (see InprocMadTransport).
  mutable Mutex mu;
  std::map<uint16_t, std::vector<InprocMadTransport*>> by_lid
      GUARDED_BY(mu);                                            // open ones, in open order
  std::map<uint32_t, InprocMadTransport*> by_id GUARDED_BY(mu);  // open ones
  uint32_t next_id GUARDED_BY(mu) = 1;
  InprocMadCounters counters GUARDED_BY(mu);
};

// One port's transport, or a gateway's (many LIDs, see inproc_mad.h).
class InprocMadTransport : public MadTransport {
 public:
  InprocMadTransport(std::shared_ptr<InprocMadFabric::State> state, std::vector<uint16_t> lids,
                     bool gateway)
      : state_(std::move(state)), lids_(std::move(lids)), gateway_(gateway) {}
  ~InprocMadTransport() override { Close(); }

  // Only the class picks the receiver (the version is the protocol's to
  // check: the core answers a wrong one).
  Status Open(uint8_t mgmt_class, uint8_t) override {
    if (efd_ >= 0) return Status::Error(EBUSY, "in-process MAD transport already open");
    int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (fd < 0) return Status::Error(errno, std::string("eventfd: ") + strerror(errno));
    MutexLock lock(&state_->mu);
    efd_ = fd;
    mgmt_class_ = mgmt_class;
    id_ = state_->next_id++;
    for (uint16_t lid : lids_) state_->by_lid[lid].push_back(this);
    state_->by_id[id_] = this;
    return Status::Ok();
  }

  void Close() override {
    MutexLock lock(&state_->mu);
    if (efd_ < 0) return;
    for (uint16_t lid : lids_) {
      auto it = state_->by_lid.find(lid);
      if (it == state_->by_lid.end()) continue;
      auto& v = it->second;
      for (size_t i = 0; i < v.size(); ++i)
        if (v[i] == this) {
          v.erase(v.begin() + static_cast<long>(i));
          break;
        }
      if (v.empty()) state_->by_lid.erase(it);
    }
    state_->by_id.erase(id_);
    queue_.clear();
    close(efd_);
    efd_ = -1;
  }

  int fd() const override {
    MutexLock lock(&state_->mu);
    return efd_;
  }

  Status Send(const uint8_t* mad, size_t len, const MadAddress& to, int) override {
    return SendAs(lids_.empty() ? 0 : lids_[0], mad, len, to.dlid);
  }

  Status SendAs(uint16_t slid, const uint8_t* mad, size_t len, uint16_t dlid) {
    if (len < mad::kMadHeaderSize || len > mad::kMadSize)
      return Status::Error(EINVAL, "MAD of " + std::to_string(len) + " bytes");
    Queued q;
    memcpy(q.mad.data, mad, len);
    q.mad.len = len;
    q.mad.slid = slid;
    q.dlid = dlid;
    const uint8_t mgmt_class = mad[1];
    const bool response = (mad[3] & 0x80) != 0;
    MutexLock lock(&state_->mu);
    if (efd_ < 0) return Status::Error(EBADF, "in-process MAD transport not open");
    ++state_->counters.sent;
    InprocMadTransport* dest = nullptr;
    auto at = state_->by_lid.find(dlid);
    if (response) {
      // To a gateway's LID: the far fabric routes it on by the TID.
      if (at != state_->by_lid.end())
        for (InprocMadTransport* t : at->second)
          if (t->gateway_ && t->mgmt_class_ == mgmt_class) dest = t;
      // The kernel routes an answer to the agent whose id it put in the
      // request's TID bits 63..32.
      auto it = state_->by_id.find(static_cast<uint32_t>(mad::MadTid(mad) >> 32));
      if (!dest && it != state_->by_id.end() && !it->second->gateway_ &&
          it->second->lids_[0] == dlid && it->second->mgmt_class_ == mgmt_class)
        dest = it->second;
    } else {
      if (!gateway_)
        mad::SetMadTid(q.mad.data, (uint64_t{id_} << 32) | (mad::MadTid(mad) & 0xffffffffu));
      if (at != state_->by_lid.end())
        for (InprocMadTransport* t : at->second)
          if (t->mgmt_class_ == mgmt_class) {
            dest = t;
            break;
          }
    }
    if (!dest) {
      ++state_->counters.lost_no_receiver;
      return Status::Ok();  // lost on the wire: the sender's timer notices
    }
    if (dest->queue_.size() >= state_->max_queue) {
      ++state_->counters.lost_queue_full;
      return Status::Ok();
    }
    dest->queue_.push_back(q);
    ++state_->counters.delivered;
    if (dest->queue_.size() == 1) {
      uint64_t one = 1;
      ssize_t n = write(dest->efd_, &one, sizeof(one));
      (void)n;  // cannot overflow: read back to 0 whenever the queue empties
    }
    return Status::Ok();
  }

  Status Receive(ReceivedMad* out) override { return ReceiveTo(out, nullptr); }

  Status ReceiveTo(ReceivedMad* out, uint16_t* dlid) {
    MutexLock lock(&state_->mu);
    if (efd_ < 0) return Status::Error(EBADF, "in-process MAD transport not open");
    if (queue_.empty()) return Status::Error(EAGAIN, "no MAD waiting");
    *out = queue_.front().mad;
    if (dlid) *dlid = queue_.front().dlid;
    queue_.pop_front();
    if (queue_.empty()) {
      // Readable exactly while something waits.
      uint64_t v;
      ssize_t n = read(efd_, &v, sizeof(v));
      (void)n;
    }
    return Status::Ok();
  }

 private:
  struct Queued {
    ReceivedMad mad;
    uint16_t dlid = 0;
  };
  std::shared_ptr<InprocMadFabric::State> state_;
  const std::vector<uint16_t> lids_;  // one for a port; a gateway's many
  const bool gateway_;
  // Guarded by state_->mu (fd() is read by the owner only, but Send from
  // other threads reads efd_ of the destination). Not GUARDED_BY: a sender
  // holds the one State::mu and writes another transport's queue_, which
  // the analysis would name dest->state_->mu.
  int efd_ = -1;
  uint8_t mgmt_class_ = 0;
  uint32_t id_ = 0;
  std::deque<Queued> queue_;
};

namespace {
class Gateway : public InprocMadGateway {
 public:
  explicit Gateway(std::unique_ptr<InprocMadTransport> t) : t_(std::move(t)) {}
  int fd() const override { return t_->fd(); }
  Status SendFrom(uint16_t slid, const uint8_t* mad, size_t len, uint16_t dlid) override {
    return t_->SendAs(slid, mad, len, dlid);
  }
  Status Receive(ReceivedMad* out, uint16_t* dlid) override { return t_->ReceiveTo(out, dlid); }

 private:
  std::unique_ptr<InprocMadTransport> t_;
};
}  // namespace

InprocMadFabric::InprocMadFabric(size_t max_queue) : state_(std::make_shared<State>(max_queue)) {}
InprocMadFabric::~InprocMadFabric() = default;

std::unique_ptr<MadTransport> InprocMadFabric::NewTransport(uint16_t lid) {
  return std::make_unique<InprocMadTransport>(state_, std::vector<uint16_t>{lid}, false);
}

Status InprocMadFabric::NewGateway(const std::vector<uint16_t>& lids, uint8_t mgmt_class,
                                   std::unique_ptr<InprocMadGateway>* out) {
  if (lids.empty()) return Status::Error(EINVAL, "a gateway without LIDs");
  auto t = std::make_unique<InprocMadTransport>(state_, lids, true);
  Status st = t->Open(mgmt_class, 0);
  if (!st.ok()) return st;
  *out = std::make_unique<Gateway>(std::move(t));
  return Status::Ok();
}

InprocMadCounters InprocMadFabric::counters() const {
  MutexLock lock(&state_->mu);
  return state_->counters;
}

size_t InprocMadFabric::open_count() const {
  MutexLock lock(&state_->mu);
  return state_->by_id.size();
}

}  // namespace tree
}  // namespace ssa
