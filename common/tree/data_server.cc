// data_server.cc: see data_server.h.
#include "common/tree/data_server.h"

#include <sys/epoll.h>

#include <cinttypes>
#include <cstring>
#include <set>

#include "common/base/big_endian.h"
#include "common/base/text_util.h"
#include "common/tree/link_auth.h"

namespace ssa {
namespace tree {

using Clock = std::chrono::steady_clock;

DataServer::DataServer(Reactor* reactor, StreamTransport* transport, Logger* log,
                       DataServerOptions options, AuthorizeFn authorize, SubscribeFn on_subscribe,
                       QueryFn on_query)
    : reactor_(reactor),
      transport_(transport),
      log_(log),
      limited_(log, std::chrono::seconds(5)),
      options_(options),
      authorize_(std::move(authorize)),
      on_subscribe_(std::move(on_subscribe)),
      on_query_(std::move(on_query)) {}

DataServer::~DataServer() { Close(); }

Status DataServer::Listen(const DataAddress& address) {
  Status st = transport_->Listen(address, &listener_);
  if (!st.ok()) return st;
  st = reactor_->WatchFd(listener_->fd(), EPOLLIN, [this](uint32_t) { OnAccept(); });
  if (!st.ok()) return st;
  tick_ = reactor_->AddTimer(std::chrono::milliseconds(500), [this] { Tick(); });
  return Status::Ok();
}

DataAddress DataServer::address() const { return listener_ ? listener_->address() : DataAddress{}; }

void DataServer::Close() {
  if (tick_) reactor_->CancelTimer(tick_);
  tick_ = 0;
  if (accept_retry_) reactor_->CancelTimer(accept_retry_);
  accept_retry_ = 0;
  while (!children_.empty()) CloseChild(children_.begin()->first, "shutting down");
  if (listener_) reactor_->UnwatchFd(listener_->fd());
  listener_.reset();
}

void DataServer::OnAccept() {
  for (int i = 0; i < 64; ++i) {
    std::unique_ptr<Stream> s;
    Status st = listener_->Accept(&s);
    if (st.code() == -EAGAIN) return;
    if (!st.ok()) {
      // EMFILE and friends: the next child leaving frees a descriptor; the
      // tick accepts again. Never spin on it.
      limited_.Log(LogLevel::kWarn, "accept", "data channel: %s", st.ToString().c_str());
      reactor_->UnwatchFd(listener_->fd());
      accept_retry_ = reactor_->AddTimer(std::chrono::milliseconds(200), [this] {
        accept_retry_ = 0;
        if (listener_)
          reactor_->WatchFd(listener_->fd(), EPOLLIN, [this](uint32_t) { OnAccept(); });
      });
      return;
    }
    ++counters_.connections;
    auto c = std::make_unique<Child>();
    c->id = next_id_++;
    c->stream = std::move(s);
    c->last_rx = c->last_tx = c->since = Clock::now();
    uint64_t id = c->id;
    int fd = c->stream->fd();
    Child* raw = c.get();
    children_[id] = std::move(c);
    if (!reactor_->WatchFd(fd, EPOLLIN, [this, id](uint32_t ev) { OnEvent(id, ev); }).ok()) {
      CloseChild(id, "cannot watch its socket");
      continue;
    }
    if (children_.size() > options_.max_children)
      RefuseChild(raw, kRefuseTooMany, "too many children");
  }
}

void DataServer::OnEvent(uint64_t id, uint32_t events) {
  auto it = children_.find(id);
  if (it == children_.end()) return;
  Child* c = it->second.get();
  if (events & EPOLLOUT) {
    Flush(c);
    if (!children_.count(id)) return;
  }
  if (!(events & (EPOLLIN | EPOLLHUP | EPOLLERR))) return;
  uint8_t buf[65536];
  for (int i = 0; i < 16; ++i) {
    ssize_t n = c->stream->Read(buf, sizeof(buf));
    if (n == -EAGAIN) break;
    if (n <= 0) {
      CloseChild(id, n == 0 ? "closed by the child"
                            : std::string("read: ") + strerror(static_cast<int>(-n)));
      return;
    }
    if (c->state == State::kClosing) continue;  // draining a refusal: ignore what it says
    Status st = c->reader.Feed(buf, static_cast<size_t>(n));
    Frame f;
    // Alive means whole frames (see DataClient::OnEvent).
    while (st.ok() && children_.count(id) && c->reader.Next(&f)) {
      c->last_rx = Clock::now();
      OnFrame(c, f);
    }
    if (!children_.count(id)) return;
    if (!st.ok() || !c->reader.error().ok()) {
      ++counters_.bad_frames;
      Status why = st.ok() ? c->reader.error() : st;
      limited_.Log(LogLevel::kWarn, "bad-frame", "data channel: bad frame from %s: %s",
                   c->stream->peer().c_str(), why.ToString().c_str());
      CloseChild(id, "bad frame");
      return;
    }
  }
}

void DataServer::OnFrame(Child* c, const Frame& f) {
  if (c->state == State::kHello) {
    if (f.type == FrameType::kQuery) {
      std::string name;
      ++counters_.queries;
      std::string reply = DecodeQuery(f.payload, &name).ok() && on_query_ ? on_query_(name) : "";
      Queue(c, EncodeFrame(FrameType::kQueryReply, reply));
      c->state = State::kClosing;  // close once flushed
      Flush(c);
      return;
    }
    Hello h;
    Status st =
        f.type == FrameType::kHello
            ? DecodeHello(f.payload, &h)
            : Status::Error(EBADMSG, std::string("expected HELLO, got ") + FrameTypeName(f.type));
    if (!st.ok()) {
      ++counters_.bad_frames;
      return RefuseChild(c, kRefuseBadHello, st.message());
    }
    c->hello = h;
    c->hello_payload = f.payload;
    c->state = State::kAuthorizing;
    uint64_t id = c->id;
    authorize_(h, [this, id](uint16_t reason, const std::string& key, const LinkKey& link) {
      Admit(id, reason, key, link);
    });
    return;
  }
  if (c->state == State::kProving) return OnProof(c, f);
  if (c->state != State::kActive) return;  // frames while authorizing: ignored
  switch (f.type) {
    case FrameType::kAck: {
      Ack a;
      if (!DecodeAck(f.payload, &a).ok()) break;
      c->acked_epoch = a.epoch;
      return;
    }
    case FrameType::kNeedFull: {
      uint8_t reason = 0;
      DecodeNeedFull(f.payload, &reason);
      ++counters_.need_full;
      limited_.Log(LogLevel::kInfo, "need-full", "child 0x%016" PRIx64 " asks for the full %s (%s)",
                   c->hello.guid, c->key.c_str(),
                   reason == kNeedDigestMismatch ? "digest mismatch" : "cannot apply");
      c->need_full = true;
      c->sent_epoch = 0;
      Sync(c);
      return;
    }
    case FrameType::kKeepalive: return;
    default: break;
  }
  ++counters_.bad_frames;
  limited_.Log(LogLevel::kWarn, "bad-frame", "data channel: unexpected %s from 0x%016" PRIx64,
               FrameTypeName(f.type), c->hello.guid);
}

void DataServer::Admit(uint64_t id, uint16_t reason, const std::string& key, const LinkKey& link) {
  auto it = children_.find(id);
  if (it == children_.end()) return;  // gone meanwhile
  Child* c = it->second.get();
  if (reason != 0) return RefuseChild(c, reason, RefuseReasonName(reason));
  c->key = key;
  c->link = link;
  c->state = State::kProving;
  Welcome w;
  w.parent_guid = options_.guid;
  auto pub = pubs_.find(key);
  w.epoch = pub == pubs_.end() ? 0 : pub->second.current().epoch;
  RandomBytes(w.nonce.data(), w.nonce.size());
  w.tag = WelcomeTag(link, c->hello_payload, WelcomeFields(w));
  c->welcome_payload = WelcomePayload(w);
  Queue(c, EncodeFrame(FrameType::kWelcome, c->welcome_payload));
  Flush(c);
}

void DataServer::OnProof(Child* c, const Frame& f) {
  AuthTag tag{};
  Status st =
      f.type == FrameType::kProof
          ? DecodeProof(f.payload, &tag)
          : Status::Error(EBADMSG, std::string("expected PROOF, got ") + FrameTypeName(f.type));
  if (!st.ok()) {
    ++counters_.bad_frames;
    return RefuseChild(c, kRefuseBadProof, st.message());
  }
  if (!TagsEqual(tag, ProofTag(c->link, c->hello_payload, c->welcome_payload))) {
    ++counters_.bad_proofs;
    return RefuseChild(
        c, kRefuseBadProof,
        "its PROOF does not show the link key the core gave for GUID " + GuidText(c->hello.guid));
  }
  uint64_t id = c->id;
  c->state = State::kActive;
  subscribers_[c->key].insert(id);
  c->sent_epoch = c->hello.epoch;
  c->sent_digest = c->hello.digest;
  c->acked_epoch = c->hello.epoch;
  const std::string key = c->key;
  log_->Log(LogLevel::kInfo,
            "child %s 0x%016" PRIx64 " (%s) connected for %s, holding epoch %" PRIu64,
            RolesName(c->hello.roles).c_str(), c->hello.guid, c->stream->peer().c_str(),
            key.c_str(), c->hello.epoch);
  if (on_subscribe_) on_subscribe_(key, c->hello);
  if (children_.count(id)) Sync(c);
}

void DataServer::RefuseChild(Child* c, uint16_t reason, const std::string& text) {
  ++counters_.refused;
  limited_.Log(LogLevel::kWarn, "refused", "data channel: refused %s (GUID 0x%016" PRIx64 "): %s",
               c->stream->peer().c_str(), c->hello.guid, text.c_str());
  c->out.clear();
  c->queued = 0;
  Refuse r;
  r.reason = reason;
  r.text = text;
  Queue(c, EncodeRefuse(r));
  c->state = State::kClosing;
  Flush(c);
}

void DataServer::Publish(const std::string& key, const DbVersion& v, Bytes delta,
                         uint64_t delta_from) {
  pubs_[key].Publish(v, delta, delta_from);
  auto subs = subscribers_.find(key);
  if (subs == subscribers_.end()) return;
  // Ids first: a child whose socket fails while being synced is closed
  // (erased) inside Sync.
  std::vector<uint64_t> ids(subs->second.begin(), subs->second.end());
  for (uint64_t id : ids) {
    auto it = children_.find(id);
    if (it != children_.end()) Sync(it->second.get());
  }
}

void DataServer::Drop(const std::string& key) {
  auto subs = subscribers_.find(key);
  std::vector<uint64_t> ids;
  if (subs != subscribers_.end()) ids.assign(subs->second.begin(), subs->second.end());
  for (uint64_t id : ids) CloseChild(id, "its data was dropped");
  pubs_.erase(key);
}

const Publication* DataServer::Find(const std::string& key) const {
  auto it = pubs_.find(key);
  return it == pubs_.end() ? nullptr : &it->second;
}

void DataServer::Sync(Child* c) {
  auto pub = pubs_.find(c->key);
  if (pub == pubs_.end() || pub->second.empty()) return;
  if (c->queued > options_.max_queue_bytes) return;  // resumes when its queue drains
  const DbVersion& cur = pub->second.current();
  if (!c->need_full && c->sent_epoch == cur.epoch && c->sent_digest == cur.digest) return;
  // A child ahead of us (its last parent was newer, or it holds another
  // core's epoch after an SM failover) would not take an older version:
  // it waits for our next one.
  if (!c->need_full && c->sent_epoch > cur.epoch) return;
  std::vector<DeltaStep> chain;
  if (!c->need_full && c->sent_epoch != 0 && c->sent_epoch < cur.epoch &&
      pub->second.Chain(c->sent_epoch, &chain)) {
    for (const DeltaStep& s : chain) {
      QueueTransfer(c, 2, s.from, s.to, s.digest, s.bytes);
      ++counters_.delta_transfers;
    }
  } else {
    QueueTransfer(c, 1, 0, cur.epoch, cur.digest, pub->second.CurrentBytes());
    ++counters_.full_transfers;
  }
  c->need_full = false;
  c->sent_epoch = cur.epoch;
  c->sent_digest = cur.digest;
  Flush(c);
}

void DataServer::QueueTransfer(Child* c, uint8_t kind, uint64_t from, uint64_t to, uint32_t digest,
                               const Bytes& bytes) {
  XferBegin b;
  b.kind = kind;
  b.from = from;
  b.to = to;
  b.total = bytes->size();
  b.digest = digest;
  Queue(c, EncodeXferBegin(b));
  for (size_t off = 0; off < bytes->size(); off += kXferChunk) {
    size_t n = std::min(kXferChunk, bytes->size() - off);
    // The header is built here; the chunk itself is shared, not copied. A
    // full database in one chunk: its CRC is the digest (frame.h), known.
    const uint32_t crc =
        kind == 1 && n == bytes->size()
            ? digest
            : smdb::Crc32(reinterpret_cast<const uint8_t*>(bytes->data()) + off, n);
    Queue(c, EncodeFrameHeader(FrameType::kXferData, static_cast<uint32_t>(n), crc));
    c->out.push_back({bytes, off, off + n});
    c->queued += n;
  }
  Queue(c, EncodeFrame(FrameType::kXferEnd, ""));
}

void DataServer::Queue(Child* c, std::string frame) {
  auto buf = std::make_shared<const std::string>(std::move(frame));
  c->queued += buf->size();
  c->out.push_back({buf, 0, buf->size()});
}

void DataServer::Flush(Child* c) {
  uint64_t id = c->id;
  while (!c->out.empty()) {
    OutChunk& o = c->out.front();
    ssize_t n = c->stream->Write(o.buf->data() + o.off, o.end - o.off);
    if (n == -EAGAIN) break;
    if (n < 0) return CloseChild(id, std::string("write: ") + strerror(static_cast<int>(-n)));
    o.off += static_cast<size_t>(n);
    c->queued -= static_cast<size_t>(n);
    c->bytes_sent += static_cast<uint64_t>(n);
    counters_.bytes_sent += static_cast<uint64_t>(n);
    c->last_tx = Clock::now();
    if (o.off == o.end) c->out.pop_front();
  }
  if (c->out.empty() && c->state == State::kClosing) return CloseChild(id, "done");
  UpdateWatch(c);
  // A child that was held back catches up in one go once drained.
  if (c->out.empty() && c->state == State::kActive) {
    auto pub = pubs_.find(c->key);
    if (pub != pubs_.end() && !pub->second.empty() && c->sent_epoch != pub->second.current().epoch)
      Sync(c);
  }
}

void DataServer::UpdateWatch(Child* c) {
  bool want = !c->out.empty();
  if (want == c->want_write) return;
  c->want_write = want;
  reactor_->ModifyFd(c->stream->fd(), want ? uint32_t{EPOLLIN | EPOLLOUT} : uint32_t{EPOLLIN});
}

void DataServer::CloseChild(uint64_t id, const std::string& why) {
  auto it = children_.find(id);
  if (it == children_.end()) return;
  Child* c = it->second.get();
  if (c->state == State::kActive)
    log_->Log(LogLevel::kInfo, "child 0x%016" PRIx64 " (%s) disconnected: %s", c->hello.guid,
              c->stream->peer().c_str(), why.c_str());
  reactor_->UnwatchFd(c->stream->fd());
  auto subs = subscribers_.find(c->key);
  if (subs != subscribers_.end() && subs->second.erase(id) && subs->second.empty())
    subscribers_.erase(subs);
  children_.erase(it);
}

void DataServer::Tick() {
  tick_ = reactor_->AddTimer(std::chrono::milliseconds(500), [this] { Tick(); });
  auto now = Clock::now();
  std::vector<std::pair<uint64_t, std::string>> dead;
  std::vector<uint64_t> quiet;  // keepalives due
  for (auto& kv : children_) {
    Child* c = kv.second.get();
    if ((c->state == State::kHello || c->state == State::kProving) &&
        now - c->since > std::chrono::milliseconds(options_.hello_timeout_ms))
      dead.push_back(
          {kv.first, c->state == State::kHello ? "no HELLO in time" : "no PROOF in time"});
    else if (now - c->last_rx > std::chrono::milliseconds(options_.dead_after_ms))
      dead.push_back({kv.first, "silent for too long"});
    else if (c->state == State::kActive && c->out.empty() &&
             now - c->last_tx > std::chrono::milliseconds(options_.keepalive_ms))
      quiet.push_back(kv.first);
  }
  // Outside the walk: a failed write closes (erases) the child.
  for (uint64_t id : quiet) {
    auto it = children_.find(id);
    if (it == children_.end()) continue;
    Queue(it->second.get(), EncodeFrame(FrameType::kKeepalive, ""));
    Flush(it->second.get());
  }
  for (auto& d : dead) {
    limited_.Log(LogLevel::kWarn, "timeout", "data channel: closing a child: %s", d.second.c_str());
    CloseChild(d.first, d.second);
  }
}

size_t DataServer::child_count() const {
  std::set<uint64_t> members;
  for (const auto& kv : children_)
    if (kv.second->state == State::kActive) members.insert(kv.second->hello.guid);
  return members.size();
}

std::vector<ChildInfo> DataServer::Children() const {
  std::vector<ChildInfo> out;
  for (const auto& kv : children_) {
    const Child& c = *kv.second;
    if (c.state != State::kActive) continue;
    out.push_back(
        {c.hello.guid, c.hello.roles, c.key, c.stream->peer(), c.acked_epoch, c.bytes_sent});
  }
  return out;
}

}  // namespace tree
}  // namespace ssa
