// mad_bridge.cc: see mad_bridge.h.
#include "test/bench/mad_bridge.h"

#include <sys/epoll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

namespace ssa {
namespace bench {

namespace {
// One message: source LID, destination LID, the MAD's length, the MAD.
struct Wire {
  uint16_t slid;
  uint16_t dlid;
  uint16_t len;
  uint8_t mad[mad::kMadSize];
};
}  // namespace

Status MadBridge::Start() {
  Status st = reactor_->WatchFd(sock_, EPOLLIN, [this](uint32_t ev) { OnSocket(ev); });
  if (!st.ok()) return st;
  st = reactor_->WatchFd(gateway_->fd(), EPOLLIN, [this](uint32_t) { OnGateway(); });
  if (!st.ok()) {
    reactor_->UnwatchFd(sock_);
    return st;
  }
  started_ = true;
  return Status::Ok();
}

void MadBridge::Stop() {
  if (!started_) return;
  started_ = false;
  if (!peer_gone_) reactor_->UnwatchFd(sock_);
  reactor_->UnwatchFd(gateway_->fd());
}

void MadBridge::OnSocket(uint32_t events) {
  if (events & EPOLLOUT) Flush();
  if (!(events & (EPOLLIN | EPOLLHUP | EPOLLERR))) return;
  // Bounded, so the other direction gets its turn.
  for (int i = 0; i < 256; ++i) {
    Wire w;
    ssize_t n = recv(sock_, &w, sizeof(w), MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
    if (n <= 0) {  // the other process is gone
      peer_gone_ = true;
      reactor_->UnwatchFd(sock_);
      return;
    }
    if (static_cast<size_t>(n) != sizeof(w) || w.len < mad::kMadHeaderSize ||
        w.len > mad::kMadSize) {
      ++errors_;
      continue;
    }
    ++received_;
    if (!gateway_->SendFrom(w.slid, w.mad, w.len, w.dlid).ok()) ++errors_;
  }
}

void MadBridge::OnGateway() {
  for (int i = 0; i < 256; ++i) {
    ReceivedMad m;
    uint16_t dlid = 0;
    if (!gateway_->Receive(&m, &dlid).ok()) break;
    if (peer_gone_) continue;  // nobody to carry it to: lost, as on a dead link
    Wire w;
    w.slid = m.slid;
    w.dlid = dlid;
    w.len = static_cast<uint16_t>(m.len);
    memcpy(w.mad, m.data, m.len);
    const uint8_t* p = reinterpret_cast<const uint8_t*>(&w);
    out_.emplace_back(p, p + sizeof(w));
  }
  Flush();
}

void MadBridge::Flush() {
  while (!out_.empty() && !peer_gone_) {
    ssize_t n = send(sock_, out_.front().data(), out_.front().size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (n == static_cast<ssize_t>(out_.front().size()))
      ++sent_;
    else
      ++errors_;
    out_.pop_front();
  }
  if (peer_gone_) out_.clear();
  bool want = !out_.empty();
  if (want != want_write_ && !peer_gone_) {
    want_write_ = want;
    reactor_->ModifyFd(sock_, want ? uint32_t{EPOLLIN | EPOLLOUT} : uint32_t{EPOLLIN});
  }
}

}  // namespace bench
}  // namespace ssa
