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
  Status st = reactor_->WatchFd(sock_, EPOLLIN, [this](uint32_t) { OnSocket(); });
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

void MadBridge::OnSocket() {
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
    if (!gateway_->Receive(&m, &dlid).ok()) return;
    if (peer_gone_) continue;  // nobody to carry it to: lost, as on a dead link
    Wire w;
    w.slid = m.slid;
    w.dlid = dlid;
    w.len = static_cast<uint16_t>(m.len);
    memcpy(w.mad, m.data, m.len);
    ssize_t n;
    do n = send(sock_, &w, sizeof(w), MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    if (n == static_cast<ssize_t>(sizeof(w)))
      ++sent_;
    else
      ++errors_;
  }
}

}  // namespace bench
}  // namespace ssa
