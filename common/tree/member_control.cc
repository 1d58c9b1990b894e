// member_control.cc: see member_control.h.
#include "common/tree/member_control.h"

#include <sys/epoll.h>

#include <algorithm>
#include <cinttypes>
#include <cstring>

namespace ssa {
namespace tree {

MemberControlClient::MemberControlClient(Reactor* reactor, MadTransport* transport, Logger* log,
                                         MemberControlOptions options, AssignedFn on_assigned,
                                         RefusedFn on_refused)
    : reactor_(reactor),
      transport_(transport),
      log_(log),
      limited_(log, std::chrono::seconds(10)),
      options_(std::move(options)),
      on_assigned_(std::move(on_assigned)),
      on_refused_(std::move(on_refused)),
      rng_((options_.port_guid ^
            static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count())) |
           1) {}

std::chrono::milliseconds MemberControlClient::Jitter(int ms) {
  rng_ ^= rng_ << 13;
  rng_ ^= rng_ >> 7;
  rng_ ^= rng_ << 17;
  if (ms <= 1) return std::chrono::milliseconds(ms);
  return std::chrono::milliseconds(ms / 2 + static_cast<int>(rng_ % static_cast<uint64_t>(ms)));
}

MemberControlClient::~MemberControlClient() {
  *alive_ = false;
  for (auto& kv : pending_)
    if (kv.second.timer) reactor_->CancelTimer(kv.second.timer);
  if (join_timer_) reactor_->CancelTimer(join_timer_);
  if (started_) reactor_->UnwatchFd(transport_->fd());
}

Status MemberControlClient::Start(bool join) {
  Status st = reactor_->WatchFd(transport_->fd(), EPOLLIN, [this](uint32_t) { OnReadable(); });
  if (!st.ok()) return st;
  started_ = true;
  if (join) SendJoin();
  return Status::Ok();
}

void MemberControlClient::Stop() {
  if (!started_) return;
  if (joined_) {
    LeaveRequest r;
    r.port_guid = options_.port_guid;
    r.token = assignment_.token;
    uint8_t mad[256];
    EncodeLeave(r, next_tid_++, mad);
    MadAddress to;
    to.dlid = SmLid();
    transport_->Send(mad, sizeof(mad), to, options_.timeout_ms);  // best effort
  }
  joined_ = false;
  for (auto& kv : pending_)
    if (kv.second.timer) reactor_->CancelTimer(kv.second.timer);
  pending_.clear();
  if (join_timer_) reactor_->CancelTimer(join_timer_);
  join_timer_ = 0;
  reactor_->UnwatchFd(transport_->fd());
  started_ = false;
}

void MemberControlClient::Send(uint16_t attr, const uint8_t* mad,
                               std::function<void(Status, const uint8_t*)> done) {
  uint32_t tid = next_tid_++;
  Pending& p = pending_[tid];
  p.attr = attr;
  memcpy(p.mad, mad, sizeof(p.mad));
  // The TID goes in bytes 8..15; only the low 32 bits come back unchanged
  // (umad2sim rewrites the high half).
  for (int i = 0; i < 4; ++i) p.mad[12 + i] = static_cast<uint8_t>(tid >> (24 - 8 * i));
  for (int i = 8; i < 12; ++i) p.mad[i] = 0;
  p.done = std::move(done);
  Transmit(tid);
}

void MemberControlClient::Transmit(uint32_t tid) {
  auto it = pending_.find(tid);
  if (it == pending_.end()) return;
  Pending& p = it->second;
  ++p.tries;
  MadAddress to;
  to.dlid = SmLid();
  Status st = to.dlid ? transport_->Send(p.mad, sizeof(p.mad), to, options_.timeout_ms)
                      : Status::Error(ENETUNREACH, "no SM LID known");
  if (!st.ok()) {
    auto done = std::move(p.done);
    pending_.erase(it);
    done(st, nullptr);
    return;
  }
  p.timer = reactor_->AddTimer(std::chrono::milliseconds(options_.timeout_ms), [this, tid] {
    auto it2 = pending_.find(tid);
    if (it2 == pending_.end()) return;
    it2->second.timer = 0;
    ++timeouts_;
    if (it2->second.tries <= options_.retries) {
      Transmit(tid);
      return;
    }
    auto done = std::move(it2->second.done);
    pending_.erase(it2);
    done(Status::Error(ETIMEDOUT, "no answer from the core after " +
                                      std::to_string(options_.retries + 1) + " tries"),
         nullptr);
  });
}

void MemberControlClient::OnReadable() {
  ReceivedMad in;
  for (int i = 0; i < 64; ++i) {
    Status st = transport_->Receive(&in);
    if (st.code() == -EAGAIN) return;
    if (!st.ok()) return;
    if (in.transport_status != 0) continue;  // a send the kernel gave up on: our timer handles it
    mad::MadHeader h;
    st = DecodeSsaHeader(in.data, in.len, &h);
    if (!st.ok() || !(h.method & 0x80)) {
      limited_.Log(LogLevel::kWarn, "bad-mad", "unexpected MAD from LID %u ignored: %s", in.slid,
                   st.ok() ? "not a response" : st.ToString().c_str());
      continue;
    }
    auto it = pending_.find(static_cast<uint32_t>(h.tid));
    if (it == pending_.end() || it->second.attr != h.attr_id) continue;  // late duplicate
    if (it->second.timer) reactor_->CancelTimer(it->second.timer);
    auto done = std::move(it->second.done);
    pending_.erase(it);
    done(Status::Ok(), in.data);
  }
}

void MemberControlClient::SendJoin() {
  if (join_in_flight_ || !started_) return;
  if (options_.counters) counters_ = options_.counters();
  if (options_.epoch) epoch_ = options_.epoch();
  JoinRequest r;
  if (options_.digest) r.digest = options_.digest();
  if (options_.addr_epoch) r.addr_epoch = options_.addr_epoch();
  if (options_.addr_digest) r.addr_digest = options_.addr_digest();
  r.roles = options_.roles;
  r.port_guid = options_.port_guid;
  r.port_gid = options_.port_gid;
  r.epoch = epoch_;
  epoch_reported_ = epoch_;
  r.token = joined_ ? assignment_.token : Token{};
  r.lost_parent = lost_parent_;
  lost_in_flight_ = lost_parent_;
  report_next_early_ = false;  // this join reports the epoch
  r.data_address = options_.data_address;
  r.software = options_.software;
  r.counters = counters_;
  uint8_t mad[256];
  EncodeJoin(r, 0, mad);
  join_in_flight_ = true;
  ++joins_sent_;
  Send(kAttrJoin, mad, [this](Status st, const uint8_t* answer) { OnJoinAnswer(st, answer); });
}

void MemberControlClient::SetEpoch(uint64_t epoch) {
  epoch_ = epoch;
  if (!joined_ || join_in_flight_ || options_.epoch_report_ms <= 0 || epoch == epoch_reported_)
    return;
  if (epoch_reported_ != 0 && !options_.report_every_epoch && !report_next_early_) return;
  // Spread over the window by the port GUID and the epoch: no shared
  // random state, and a tier's members pick different moments.
  uint64_t h = (options_.port_guid ^ (epoch * 0x9e3779b97f4a7c15ULL)) * 0xff51afd7ed558ccdULL;
  ScheduleJoin(std::chrono::milliseconds((h >> 33) % (options_.epoch_report_ms + 1)));
}

void MemberControlClient::ScheduleJoin(std::chrono::milliseconds delay) {
  if (join_timer_) reactor_->CancelTimer(join_timer_);
  join_timer_ = reactor_->AddTimer(delay, [this] {
    join_timer_ = 0;
    SendJoin();
  });
}

void MemberControlClient::Rejoin(uint64_t lost_parent) {
  if (lost_parent != lost_answered_) lost_parent_ = lost_parent;
  if (join_in_flight_) return;  // its answer comes soon; the next join carries it
  ScheduleJoin(std::chrono::milliseconds(0));
}

void MemberControlClient::RejoinAfterRefusal() {
  refusal_backoff_ms_ =
      std::min(options_.max_backoff_ms, refusal_backoff_ms_ ? refusal_backoff_ms_ * 2 : 500);
  if (join_in_flight_) return;  // its answer reconnects us
  ScheduleJoin(Jitter(refusal_backoff_ms_));
}

void MemberControlClient::OnJoinAnswer(Status st, const uint8_t* mad) {
  join_in_flight_ = false;
  auto backoff = [this] {
    backoff_ms_ = std::min(options_.max_backoff_ms, backoff_ms_ ? backoff_ms_ * 2 : 500);
    return Jitter(backoff_ms_);
  };
  if (!st.ok()) {
    limited_.Log(LogLevel::kWarn, "unreachable", "core unreachable (SM LID %u): %s; still trying",
                 SmLid(), st.ToString().c_str());
    ScheduleJoin(backoff());
    ProbeSm();
    return;
  }
  last_answer_at_ = std::chrono::steady_clock::now();
  // The core heard the report (whatever it answers): not again.
  if (lost_in_flight_) {
    lost_answered_ = lost_in_flight_;
    if (lost_parent_ == lost_in_flight_) lost_parent_ = 0;
    lost_in_flight_ = 0;
  }
  uint16_t status = mad::MadStatus(mad, mad::kMadSize);
  JoinAnswer a;
  if (status == 0) st = DecodeJoinAnswer(mad, &a);
  if (status == 0 && st.ok() && a.parent.guid == 0)
    st = Status::Error(EBADMSG, "join answer without a parent");
  if (status != 0 || !st.ok()) {
    ++(status == kStatusRetry ? joins_retry_ : joins_refused_);
    if (status == kStatusRetry)
      limited_.Log(LogLevel::kInfo, "retry", "join: %s; trying again",
                   DescribeSsaStatus(status).c_str());
    else
      limited_.Log(LogLevel::kWarn, "refused", "join refused: %s",
                   st.ok() ? DescribeSsaStatus(status).c_str() : st.ToString().c_str());
    // A renewal the core does not know (it restarted): join afresh.
    joined_ = false;
    if (on_refused_ && status != kStatusRetry) on_refused_(status);
    // "Retry" (no SMDB or no parent yet) comes to many members at once:
    // they come back spread over a second, not together.
    ScheduleJoin(status == kStatusRetry ? Jitter(1000) : backoff());
    return;
  }
  ++joins_accepted_;
  backoff_ms_ = 0;
  lost_parent_ = 0;
  lost_answered_ = 0;  // a new assignment: its parent's loss is news again
  if (a.core_epoch != 0 && a.core_epoch < epoch_reported_) report_next_early_ = true;
  bool changed = !joined_ || a.parent.guid != assignment_.parent.guid ||
                 !(a.parent.address == assignment_.parent.address) ||
                 a.backup.guid != assignment_.backup.guid || a.token != assignment_.token;
  assignment_ = a;
  joined_ = true;
  ScheduleJoin(std::chrono::seconds(a.renew_s));
  if (on_assigned_) on_assigned_(assignment_, changed);
}

uint16_t MemberControlClient::SmLid() const {
  uint16_t cached = options_.sm_lid ? options_.sm_lid() : 0;
  if (probed_sm_lid_ && cached == cached_at_probe_) return probed_sm_lid_;
  return cached;
}

// The core did not answer: maybe the SM moved (a standby took over). The
// port's PortInfo says where the master is now; a new LID is tried at once.
void MemberControlClient::ProbeSm() {
  if (!options_.probe_sm_lid || probing_) return;
  probing_ = true;
  std::weak_ptr<bool> alive = alive_;
  options_.probe_sm_lid([this, alive](uint16_t lid) {
    if (!alive.lock()) return;
    probing_ = false;
    uint16_t before = SmLid();
    if (!started_ || lid == 0 || lid == before) return;
    log_->Log(LogLevel::kInfo,
              "the master SM moved: LID %u -> %u (the port's PortInfo); joining the core there",
              before, lid);
    ++sm_moves_;
    probed_sm_lid_ = lid;
    cached_at_probe_ = options_.sm_lid ? options_.sm_lid() : 0;
    backoff_ms_ = 0;
    if (!join_in_flight_) ScheduleJoin(std::chrono::milliseconds(0));
  });
}

void MemberControlClient::CheckToken(uint64_t child_guid, const Token& token, CheckFn done) {
  auto now = std::chrono::steady_clock::now();
  auto it = valid_tokens_.find({child_guid, token});
  if (it != valid_tokens_.end() && it->second.until > now) {
    TokenCheckAnswer a;
    a.valid = true;
    a.key = it->second.key;
    done(Status::Ok(), a);
    return;
  }
  TokenCheckRequest r;
  r.child_guid = child_guid;
  r.token = token;
  r.parent_guid = options_.port_guid;
  uint8_t mad[256];
  EncodeTokenCheck(r, 0, mad);
  Send(kAttrTokenCheck, mad, [this, child_guid, token, done](Status st, const uint8_t* answer) {
    TokenCheckAnswer a;
    if (st.ok()) st = DecodeTokenCheckAnswer(answer, &a);
    if (st.ok() && a.valid)
      valid_tokens_[{child_guid, token}] = {
          std::chrono::steady_clock::now() + std::chrono::seconds(a.lease_left_s), a.key};
    done(st, a);
  });
}

void MemberControlClient::AskCoreInfo(CoreInfoFn done) {
  uint8_t mad[256];
  EncodeCoreInfo(0, mad);
  Send(kAttrCoreInfo, mad, [done](Status st, const uint8_t* answer) {
    CoreInfoAnswer a;
    if (st.ok()) st = DecodeCoreInfoAnswer(answer, &a);
    done(st, a);
  });
}

}  // namespace tree
}  // namespace ssa
