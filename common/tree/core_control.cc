// core_control.cc: see core_control.h.
#include "common/tree/core_control.h"

#include <sys/epoll.h>

#include <cinttypes>
#include <cstring>

#include "common/base/text_util.h"

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
    ForgetOld(std::chrono::steady_clock::now());
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

namespace {
uint64_t HashBytes(const uint8_t* p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ULL;
  return h;
}
}  // namespace

constexpr std::chrono::seconds CoreControlServer::kAnswerMemory;
constexpr size_t CoreControlServer::kMaxAnswers;

const uint8_t* CoreControlServer::Remembered(const ReceivedMad& in, const mad::MadHeader& h) {
  auto it = answers_.find(AnswerKey{in.slid, h.tid, h.attr_id});
  if (it == answers_.end() || it->second.request_hash != HashBytes(in.data, in.len)) return nullptr;
  if (std::chrono::steady_clock::now() - it->second.at > kAnswerMemory) return nullptr;
  return it->second.mad;
}

void CoreControlServer::Remember(const ReceivedMad& in, const mad::MadHeader& h,
                                 const uint8_t* answer) {
  auto now = std::chrono::steady_clock::now();
  ForgetOld(now);
  while (answers_.size() >= kMaxAnswers && !answer_order_.empty()) {
    answers_.erase(answer_order_.front().second);
    answer_order_.pop_front();
  }
  AnswerKey key{in.slid, h.tid, h.attr_id};
  Answer& a = answers_[key];
  a.request_hash = HashBytes(in.data, in.len);
  a.at = now;
  memcpy(a.mad, answer, mad::kMadSize);
  answer_order_.emplace_back(now, key);
}

void CoreControlServer::ForgetOld(std::chrono::steady_clock::time_point now) {
  while (!answer_order_.empty() && now - answer_order_.front().first > kAnswerMemory) {
    auto it = answers_.find(answer_order_.front().second);
    // A key answered again later has a newer entry; only its own goes.
    if (it != answers_.end() && it->second.at == answer_order_.front().first) answers_.erase(it);
    answer_order_.pop_front();
  }
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
  if (!st.ok()) return RejectHeader(in, h, st);
  if (h.method & 0x80) {  // a response: the core asks nothing
    ++counters_.bad_mads;
    limited_.Log(LogLevel::kWarn, "bad-mad", "unsolicited SSA response from LID %u ignored",
                 in.slid);
    return;
  }
  const bool set = h.method == mad::kMethodSet, get = h.method == mad::kMethodGet;
  if (set && (h.attr_id == kAttrJoin || h.attr_id == kAttrLeave)) {
    if (const uint8_t* again = Remembered(in, h)) {
      ++counters_.duplicates;
      Reply(again, in.slid);
      return;
    }
  }
  if (set && h.attr_id == kAttrJoin) return HandleJoin(in, h);
  if (set && h.attr_id == kAttrLeave) return HandleLeave(in, h);
  if (get && h.attr_id == kAttrTokenCheck) return HandleTokenCheck(in, h);
  if (get && h.attr_id == kAttrCoreInfo) {
    uint8_t out[mad::kMadSize];
    EncodeCoreInfoAnswer(membership_->CoreInfo(), h.tid, out);
    Reply(out, in.slid);
    return;
  }
  Invalid(in, h,
          Status::Error(EBADMSG, "method " + HexText(h.method) + " attribute " +
                                     HexText(h.attr_id) + " is not an SSA request"));
}

// A MAD whose header does not decode: counted and logged; one of another
// class version is answered so (the protocol allows it for requests).
void CoreControlServer::RejectHeader(const ReceivedMad& in, const mad::MadHeader& h,
                                     const Status& why) {
  ++counters_.bad_mads;
  limited_.Log(LogLevel::kWarn, "bad-mad", "bad SSA MAD from LID %u: %s", in.slid,
               why.ToString().c_str());
  if (why.code() == -EPROTONOSUPPORT && in.len >= mad::kMadHeaderSize && !(h.method & 0x80)) {
    uint8_t out[mad::kMadSize];
    EncodeStatusAnswer(h.attr_id, h.tid, kStatusBadVersion, out);
    Reply(out, in.slid);
  }
}

// A request the core cannot read: counted, logged, answered "invalid field".
void CoreControlServer::Invalid(const ReceivedMad& in, const mad::MadHeader& h, const Status& why) {
  ++counters_.bad_mads;
  limited_.Log(LogLevel::kWarn, "bad-mad", "malformed SSA MAD from LID %u: %s", in.slid,
               why.ToString().c_str());
  uint8_t out[mad::kMadSize];
  EncodeStatusAnswer(h.attr_id, h.tid, kStatusInvalidField, out);
  Reply(out, in.slid);
}

void CoreControlServer::HandleJoin(const ReceivedMad& in, const mad::MadHeader& h) {
  JoinRequest r;
  Status st = DecodeJoin(in.data, &r);
  if (!st.ok()) return Invalid(in, h, st);
  JoinAnswer a;
  std::string why;
  const Member* before = membership_->Find(r.port_guid);
  bool renewal = before && before->token == r.token;
  uint64_t old_parent = before ? before->parent : 0;
  uint16_t status = membership_->Join(r, in.slid, Membership::Clock::now(), &a, &why);
  uint8_t out[mad::kMadSize];
  EncodeJoinAnswer(a, h.tid, status, out);
  Reply(out, in.slid);
  Remember(in, h, out);
  if (status != 0) {
    ++counters_.refused;
    limited_.Log(status == kStatusRetry ? LogLevel::kInfo : LogLevel::kWarn,
                 "refused-" + why.substr(0, why.find(':')),
                 "join of %s 0x%016" PRIx64 " from LID %u refused: %s", RolesName(r.roles).c_str(),
                 r.port_guid, in.slid, why.c_str());
    return;
  }
  ++counters_.joins;
  if (!renewal || old_parent != a.parent.guid)
    log_->Log(LogLevel::kInfo, "%s %s 0x%016" PRIx64 " (LID %u): parent LID %u, backup LID %u%s",
              renewal ? "moved" : "joined", RolesName(r.roles).c_str(), r.port_guid, in.slid,
              a.parent.lid, a.backup.lid, r.lost_parent ? " (after losing its parent)" : "");
  if (on_join_) on_join_(r);
  if (on_change_) on_change_();
}

void CoreControlServer::HandleLeave(const ReceivedMad& in, const mad::MadHeader& h) {
  LeaveRequest r;
  Status st = DecodeLeave(in.data, &r);
  if (!st.ok()) return Invalid(in, h, st);
  uint16_t status = membership_->Leave(r);
  uint8_t out[mad::kMadSize];
  EncodeStatusAnswer(kAttrLeave, h.tid, status, out);
  Reply(out, in.slid);
  Remember(in, h, out);
  if (status == 0) {
    ++counters_.leaves;
    log_->Log(LogLevel::kInfo, "0x%016" PRIx64 " (LID %u) left the tree", r.port_guid, in.slid);
    if (on_change_) on_change_();
  }
}

void CoreControlServer::HandleTokenCheck(const ReceivedMad& in, const mad::MadHeader& h) {
  TokenCheckRequest r;
  Status st = DecodeTokenCheck(in.data, &r);
  if (!st.ok()) return Invalid(in, h, st);
  // Only the parent itself may ask about its children.
  const Member* asker = membership_->Find(r.parent_guid);
  TokenCheckAnswer a;
  if (asker && asker->lid == in.slid)
    a = membership_->CheckToken(r, Membership::Clock::now());
  else
    a.reason = kCheckWrongParent;
  ++counters_.token_checks;
  uint8_t out[mad::kMadSize];
  EncodeTokenCheckAnswer(a, h.tid, out);
  Reply(out, in.slid);
}

}  // namespace tree
}  // namespace ssa
