// data_client.cc: see data_client.h.
#include "common/tree/data_client.h"

#include <sys/epoll.h>

#include <algorithm>
#include <cinttypes>
#include <cstring>

#include "common/base/text_util.h"
#include "common/tree/link_auth.h"

namespace ssa {
namespace tree {

using Clock = std::chrono::steady_clock;
namespace {
constexpr auto kKeepalive = std::chrono::seconds(5);
constexpr auto kDeadAfter = std::chrono::seconds(20);
}  // namespace

DataClient::DataClient(Reactor* reactor, StreamTransport* transport, Logger* log, Replica* replica,
                       Hello hello, LostFn on_lost)
    : reactor_(reactor),
      transport_(transport),
      log_(log),
      limited_(log, std::chrono::seconds(5)),
      replica_(replica),
      hello_(hello),
      on_lost_(std::move(on_lost)) {}

DataClient::~DataClient() { Stop(); }

void DataClient::Stop() {
  if (retry_) reactor_->CancelTimer(retry_);
  retry_ = 0;
  if (tick_) reactor_->CancelTimer(tick_);
  tick_ = 0;
  if (stream_) reactor_->UnwatchFd(stream_->fd());
  stream_.reset();
  state_ = State::kIdle;
}

void DataClient::SetParents(const ParentInfo& parent, const ParentInfo& backup,
                            const Token& token) {
  bool token_changed = token != token_;
  parent_ = parent;
  backup_ = backup;
  token_ = token;
  if (state_ != State::kIdle && !token_changed &&
      (target_.guid == parent.guid || (target_.guid == backup.guid && backup.guid != 0)))
    return;  // already served by one of them
  if (state_ != State::kIdle && target_.guid != parent.guid) ++counters_.parent_changes;
  Connect(parent);
}

void DataClient::Connect(const ParentInfo& p) {
  if (stream_) reactor_->UnwatchFd(stream_->fd());
  stream_.reset();
  reader_ = FrameReader();
  out_.clear();
  in_xfer_ = false;
  want_write_ = true;
  target_ = p;
  parent_epoch_ = 0;  // another parent's epoch says nothing of this one
  if (p.guid == 0 || p.address.empty()) {
    state_ = State::kIdle;
    return;
  }
  Status st = transport_->Connect(p.address, &stream_);
  if (st.ok())
    st = reactor_->WatchFd(stream_->fd(), EPOLLIN | EPOLLOUT, [this](uint32_t ev) { OnEvent(ev); });
  if (!st.ok()) {
    stream_.reset();
    state_ = State::kIdle;
    limited_.Log(LogLevel::kWarn, "connect", "cannot connect to parent LID %u (%s): %s", p.lid,
                 p.address.ToString().c_str(), st.ToString().c_str());
    Failover();
    return;
  }
  if (counters_.connects++) ++counters_.reconnects;
  state_ = State::kConnecting;
  last_rx_ = last_tx_ = Clock::now();
  if (!tick_) tick_ = reactor_->AddTimer(std::chrono::seconds(1), [this] { Tick(); });
}

void DataClient::OnEvent(uint32_t events) {
  if (state_ == State::kConnecting) {
    if (!(events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) return;
    Status st = stream_->FinishConnect();
    if (!st.ok()) return Disconnect(st.ToString(), true, false);
    state_ = State::kHello;
    Hello h = hello_;
    h.token = token_;
    h.epoch = replica_->epoch();
    h.digest = replica_->digest();
    RandomBytes(h.nonce.data(), h.nonce.size());
    hello_payload_ = HelloPayload(h);
    Send(EncodeFrame(FrameType::kHello, hello_payload_));
  }
  if (events & EPOLLOUT) Flush();
  if (!stream_ || !(events & (EPOLLIN | EPOLLHUP | EPOLLERR))) return;
  uint8_t buf[65536];
  // One frame object for the whole read: its payload's memory is reused
  // from frame to frame instead of allocated (and faulted in) each time.
  Frame f;
  for (int i = 0; i < 64 && stream_; ++i) {
    // A large payload (a whole PRDB) is read straight into its frame.
    size_t room = 0;
    uint8_t* direct = reader_.Direct(&room);
    ssize_t n = direct ? stream_->Read(direct, room) : stream_->Read(buf, sizeof(buf));
    if (n == -EAGAIN) return;
    if (n <= 0)
      return Disconnect(n == 0 ? "closed by the parent" : strerror(static_cast<int>(-n)), true,
                        false);
    counters_.bytes_received += static_cast<uint64_t>(n);
    Status st;
    if (direct)
      reader_.Commit(static_cast<size_t>(n));
    else
      st = reader_.Feed(buf, static_cast<size_t>(n));
    // Alive means whole frames arriving, not bytes: a length field damaged
    // in transit would otherwise keep the reader waiting for a frame that
    // never ends while the parent's keepalives look like traffic.
    while (st.ok() && stream_ && reader_.Next(&f)) {
      last_rx_ = Clock::now();
      OnFrame(&f);
    }
    if (stream_ && (!st.ok() || !reader_.error().ok()))
      return Disconnect("bad frame: " + (st.ok() ? reader_.error() : st).ToString(), true, false);
  }
}

void DataClient::OnFrame(Frame* frame) {
  const Frame& f = *frame;
  switch (f.type) {
    case FrameType::kWelcome:
      if (state_ != State::kHello) break;
      return OnWelcome(f);
    case FrameType::kRefuse: {
      Refuse r;
      DecodeRefuse(f.payload, &r);
      ++counters_.refused;
      log_->Log(LogLevel::kWarn, "parent LID %u refused us: %s (%s)", target_.lid,
                RefuseReasonName(r.reason), r.text.c_str());
      return Disconnect("refused", true, true);
    }
    case FrameType::kXferBegin: {
      if (state_ != State::kActive || in_xfer_ || !DecodeXferBegin(f.payload, &xfer_).ok()) break;
      in_xfer_ = true;
      xfer_crc_is_digest_ = false;
      parent_epoch_ = std::max(parent_epoch_, xfer_.to);
      xfer_bytes_ = std::make_shared<std::string>();
      return;
    }
    case FrameType::kXferData:
      if (!in_xfer_ || xfer_bytes_->size() + f.payload.size() > xfer_.total) break;
      // A transfer in one chunk (every PRDB but the largest) is the
      // chunk's bytes: taken, not copied.
      if (xfer_bytes_->empty() && f.payload.size() == xfer_.total) {
        xfer_bytes_->swap(frame->payload);
        // Its CRC, checked, is the whole transfer's: for a full one, the
        // digest the replica would compute again.
        xfer_crc_is_digest_ = f.crc == xfer_.digest;
        return;
      }
      xfer_crc_is_digest_ = false;
      if (xfer_bytes_->capacity() < xfer_.total)
        xfer_bytes_->reserve(static_cast<size_t>(xfer_.total));
      xfer_bytes_->append(f.payload);
      return;
    case FrameType::kXferEnd:
      if (!in_xfer_ || xfer_bytes_->size() != xfer_.total || !f.payload.empty()) break;
      in_xfer_ = false;
      return FinishTransfer();
    case FrameType::kKeepalive: return;
    default: break;
  }
  Disconnect(std::string("unexpected ") + FrameTypeName(f.type) + " frame", true, false);
}

void DataClient::OnWelcome(const Frame& f) {
  Welcome w;
  Status st = DecodeWelcome(f.payload, &w);
  if (!st.ok()) return Disconnect("bad WELCOME: " + st.ToString(), true, false);
  std::string why;
  if (w.parent_guid != target_.guid)
    why = "it answered as GUID " + GuidText(w.parent_guid) + ", not the parent the core assigned";
  else if (!TagsEqual(w.tag, WelcomeTag(target_.key, hello_payload_, WelcomeFields(w))))
    why = "it did not prove the link key the core gave us for that parent";
  if (!why.empty()) {
    // Another process on the parent's port (the parent restarting, or
    // gone): nothing it sends is taken, and the core hears the parent is
    // lost, as for a dead one.
    ++counters_.unproven_parents;
    limited_.Log(LogLevel::kWarn, "unproven",
                 "refusing the peer at parent LID %u's address %s (GUID %s) for the %s: %s",
                 target_.lid, target_.address.ToString().c_str(), GuidText(target_.guid).c_str(),
                 DbKindName(hello_.kind), why.c_str());
    return Disconnect("unproven parent", true, false);
  }
  Send(EncodeProof(ProofTag(target_.key, hello_payload_, f.payload)));
  if (!stream_) return;
  state_ = State::kActive;
  parent_epoch_ = w.epoch;
  backoff_ms_ = 0;
  fail_streak_ = 0;
  log_->Log(LogLevel::kInfo,
            "connected to parent LID %u (%s) for the %s; it holds epoch %" PRIu64
            ", we hold %" PRIu64,
            target_.lid, target_.address.ToString().c_str(), DbKindName(hello_.kind), w.epoch,
            replica_->epoch());
}

void DataClient::FinishTransfer() {
  Bytes bytes = std::move(xfer_bytes_);
  if (xfer_.to < replica_->epoch()) {
    // A parent of a new core (after an SM failover, or a core whose dump
    // directory was lost) before that core has heard of our epoch: taking
    // it would move epochs backwards for everyone below us. The core
    // renumbers after the epochs its members report (core_server.h); until
    // then we keep ours and say so.
    ++counters_.older_ignored;
    limited_.Log(LogLevel::kWarn, "older",
                 "%s epoch %" PRIu64 " offered, older than the epoch %" PRIu64
                 " we hold (a new core?); keeping ours until a newer one comes",
                 DbKindName(hello_.kind), xfer_.to, replica_->epoch());
    Ack a;
    a.epoch = replica_->epoch();
    a.digest = replica_->digest();
    Send(EncodeAck(a));
    return;
  }
  auto t0 = Clock::now();
  // Counted first: the replica tells its owner as soon as it swaps.
  uint64_t& received = xfer_.kind == 1 ? counters_.full_received : counters_.delta_received;
  ++received;
  Status st = xfer_.kind == 1
                  ? replica_->ApplyFull(bytes, xfer_.to, xfer_.digest, xfer_crc_is_digest_)
                  : replica_->ApplyDelta(bytes, xfer_.from, xfer_.to, xfer_.digest);
  double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  if (!st.ok()) {
    --received;
    if (st.code() == -EILSEQ) ++counters_.digest_mismatches;
    log_->Log(LogLevel::kWarn,
              "%s %s to epoch %" PRIu64 " rejected: %s; asking for the full database",
              DbKindName(hello_.kind), xfer_.kind == 1 ? "full transfer" : "delta", xfer_.to,
              st.ToString().c_str());
    Send(EncodeNeedFull(st.code() == -EILSEQ ? kNeedDigestMismatch : kNeedCannotApply));
    return;
  }
  log_->Log(LogLevel::kInfo, "%s epoch %" PRIu64 " %s (%s, %zu bytes, applied in %.1f ms)",
            DbKindName(hello_.kind), xfer_.to, owner_installs_ ? "verified" : "in place",
            xfer_.kind == 1 ? "full" : "delta", bytes->size(), ms);
  Ack a;
  a.epoch = replica_->epoch();
  a.digest = replica_->digest();
  Send(EncodeAck(a));
}

void DataClient::Send(const std::string& frame) {
  out_ += frame;
  Flush();
}

void DataClient::Flush() {
  if (!stream_ || state_ == State::kConnecting) return;
  while (!out_.empty()) {
    ssize_t n = stream_->Write(out_.data(), out_.size());
    if (n == -EAGAIN) break;
    if (n < 0) return Disconnect(strerror(static_cast<int>(-n)), true, false);
    out_.erase(0, static_cast<size_t>(n));
    last_tx_ = Clock::now();
  }
  bool want = !out_.empty();
  if (want != want_write_) {
    want_write_ = want;
    reactor_->ModifyFd(stream_->fd(), want ? uint32_t{EPOLLIN | EPOLLOUT} : uint32_t{EPOLLIN});
  }
}

void DataClient::Disconnect(const std::string& why, bool lost, bool refused) {
  ParentInfo was = target_;
  log_->Log(LogLevel::kWarn, "lost parent LID %u (%s): %s", was.lid, was.address.ToString().c_str(),
            why.c_str());
  if (stream_) reactor_->UnwatchFd(stream_->fd());
  stream_.reset();
  state_ = State::kIdle;
  in_xfer_ = false;
  if (lost && on_lost_) on_lost_(was.guid, refused);
  // The owner may have reconnected us from on_lost (a new assignment).
  if (state_ == State::kIdle && !refused) Failover();
}

void DataClient::Failover() {
  // The backup at once (a parent that died leaves its children there
  // within a round trip); after that, alternate with backoff until the
  // core assigns someone else.
  ParentInfo next = target_.guid == parent_.guid && backup_.guid ? backup_ : parent_;
  if (next.guid == 0) return;
  if (++fail_streak_ <= 1) {
    if (next.guid != target_.guid) ++counters_.parent_changes;
    Connect(next);
    return;
  }
  backoff_ms_ = std::min(5000, backoff_ms_ ? backoff_ms_ * 2 : 200);
  if (retry_) reactor_->CancelTimer(retry_);
  retry_ = reactor_->AddTimer(std::chrono::milliseconds(backoff_ms_), [this, next] {
    retry_ = 0;
    if (state_ != State::kIdle) return;
    if (next.guid != target_.guid) ++counters_.parent_changes;
    Connect(next);
  });
}

void DataClient::Tick() {
  tick_ = reactor_->AddTimer(std::chrono::seconds(1), [this] { Tick(); });
  if (!stream_ || state_ == State::kConnecting) return;
  auto now = Clock::now();
  if (now - last_rx_ > kDeadAfter) return Disconnect("parent silent for too long", true, false);
  if (now - last_tx_ > kKeepalive && state_ == State::kActive)
    Send(EncodeFrame(FrameType::kKeepalive, ""));
}

}  // namespace tree
}  // namespace ssa
