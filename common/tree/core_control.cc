// core_control.cc: see core_control.h.
#include "common/tree/core_control.h"

#include <sys/epoll.h>

#include <cinttypes>

namespace ssa {
namespace tree {

CoreControlServer::CoreControlServer(Reactor* reactor, MadTransport* transport,
                                     Membership* membership, Logger* log, ChangeFn on_change,
                                     JoinFn on_join)
    : reactor_(reactor),
      transport_(transport),
      membership_(membership),
      log_(log),
      limited_(log, std::chrono::seconds(5)),
      on_change_(std::move(on_change)),
      on_join_(std::move(on_join)) {}

CoreControlServer::~CoreControlServer() { Stop(); }

Status CoreControlServer::Start() {
  Status st = reactor_->WatchFd(transport_->fd(), EPOLLIN, [this](uint32_t) { OnReadable(); });
  if (!st.ok()) return st;
  started_ = true;
  ScheduleExpiry();
  return Status::Ok();
}

void CoreControlServer::Stop() {
  if (!started_) return;
  started_ = false;
  reactor_->UnwatchFd(transport_->fd());
  if (expiry_timer_) reactor_->CancelTimer(expiry_timer_);
  expiry_timer_ = 0;
}

void CoreControlServer::ScheduleExpiry() {
  expiry_timer_ = reactor_->AddTimer(std::chrono::seconds(1), [this] {
    expiry_timer_ = 0;
    size_t n = membership_->Expire(Membership::Clock::now());
    if (n) {
      counters_.expired += n;
      log_->Log(LogLevel::kInfo, "%zu member(s) expired (lease ran out); %zu left", n,
                membership_->size());
      if (on_change_) on_change_();
    }
    ScheduleExpiry();
  });
}

void CoreControlServer::OnReadable() {
  ReceivedMad in;
  // Bounded, so one flood cannot starve the rest of the loop.
  for (int i = 0; i < 256; ++i) {
    Status st = transport_->Receive(&in);
    if (st.code() == -EAGAIN) return;
    if (!st.ok()) {
      limited_.Log(LogLevel::kWarn, "receive", "SSA MAD receive failed: %s", st.ToString().c_str());
      return;
    }
    if (in.transport_status != 0) continue;  // our own answer bounced; nothing to do
    Handle(in);
  }
}

void CoreControlServer::Reply(const uint8_t* mad, uint16_t dlid) {
  MadAddress to;
  to.dlid = dlid;
  Status st = transport_->Send(mad, mad::kMadSize, to, 0);
  if (!st.ok())
    limited_.Log(LogLevel::kWarn, "send", "answer to LID %u not sent: %s", dlid,
                 st.ToString().c_str());
}

void CoreControlServer::Handle(const ReceivedMad& in) {
  mad::MadHeader h;
  Status st = DecodeSsaHeader(in.data, in.len, &h);
  uint8_t out[mad::kMadSize];
  if (!st.ok()) {
    ++counters_.bad_mads;
    limited_.Log(LogLevel::kWarn, "bad-mad", "bad SSA MAD from LID %u: %s", in.slid,
                 st.ToString().c_str());
    if (st.code() == -EPROTONOSUPPORT && in.len >= mad::kMadHeaderSize && !(h.method & 0x80)) {
      EncodeStatusAnswer(h.attr_id, h.tid, kStatusBadVersion, out);
      Reply(out, in.slid);
    }
    return;
  }
  if (h.method & 0x80) {  // a response: the core asks nothing
    ++counters_.bad_mads;
    limited_.Log(LogLevel::kWarn, "bad-mad", "unsolicited SSA response from LID %u ignored",
                 in.slid);
    return;
  }
  auto invalid = [&](const Status& why) {
    ++counters_.bad_mads;
    limited_.Log(LogLevel::kWarn, "bad-mad", "malformed SSA MAD from LID %u: %s", in.slid,
                 why.ToString().c_str());
    EncodeStatusAnswer(h.attr_id, h.tid, kStatusInvalidField, out);
    Reply(out, in.slid);
  };
  auto now = Membership::Clock::now();
  if (h.method == mad::kMethodSet && h.attr_id == kAttrJoin) {
    JoinRequest r;
    st = DecodeJoin(in.data, &r);
    if (!st.ok()) return invalid(st);
    JoinAnswer a;
    std::string why;
    const Member* before = membership_->Find(r.port_guid);
    bool renewal = before && before->token == r.token;
    uint64_t old_parent = before ? before->parent : 0;
    uint16_t status = membership_->Join(r, in.slid, now, &a, &why);
    EncodeJoinAnswer(a, h.tid, status, out);
    Reply(out, in.slid);
    if (status != 0) {
      ++counters_.refused;
      limited_.Log(status == kStatusRetry ? LogLevel::kInfo : LogLevel::kWarn,
                   "refused-" + why.substr(0, why.find(':')),
                   "join of %s 0x%016" PRIx64 " from LID %u refused: %s",
                   RolesName(r.roles).c_str(), r.port_guid, in.slid, why.c_str());
      return;
    }
    ++counters_.joins;
    if (!renewal || old_parent != a.parent.guid)
      log_->Log(LogLevel::kInfo, "%s %s 0x%016" PRIx64 " (LID %u): parent LID %u, backup LID %u%s",
                renewal ? "moved" : "joined", RolesName(r.roles).c_str(), r.port_guid, in.slid,
                a.parent.lid, a.backup.lid, r.lost_parent ? " (after losing its parent)" : "");
    if (on_join_) on_join_(r);
    if (on_change_) on_change_();
    return;
  }
  if (h.method == mad::kMethodSet && h.attr_id == kAttrLeave) {
    LeaveRequest r;
    st = DecodeLeave(in.data, &r);
    if (!st.ok()) return invalid(st);
    uint16_t status = membership_->Leave(r);
    EncodeStatusAnswer(kAttrLeave, h.tid, status, out);
    Reply(out, in.slid);
    if (status == 0) {
      ++counters_.leaves;
      log_->Log(LogLevel::kInfo, "0x%016" PRIx64 " (LID %u) left the tree", r.port_guid, in.slid);
      if (on_change_) on_change_();
    }
    return;
  }
  if (h.method == mad::kMethodGet && h.attr_id == kAttrTokenCheck) {
    TokenCheckRequest r;
    st = DecodeTokenCheck(in.data, &r);
    if (!st.ok()) return invalid(st);
    // Only the parent itself may ask about its children.
    const Member* asker = membership_->Find(r.parent_guid);
    TokenCheckAnswer a;
    if (asker && asker->lid == in.slid)
      a = membership_->CheckToken(r, now);
    else
      a.reason = kCheckWrongParent;
    ++counters_.token_checks;
    EncodeTokenCheckAnswer(a, h.tid, out);
    Reply(out, in.slid);
    return;
  }
  if (h.method == mad::kMethodGet && h.attr_id == kAttrCoreInfo) {
    CoreInfoAnswer a = membership_->CoreInfo();
    EncodeCoreInfoAnswer(a, h.tid, out);
    Reply(out, in.slid);
    return;
  }
  invalid(Status::Error(EBADMSG, "method 0x" + std::to_string(h.method) + " attribute 0x" +
                                     std::to_string(h.attr_id) + " is not an SSA request"));
}

}  // namespace tree
}  // namespace ssa
