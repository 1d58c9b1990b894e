// fed_relay.cc: see fed_relay.h.
#include "test/soak/fed_relay.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

#include "test/support/loopback.h"

namespace ssa {
namespace soak {

RelaySet::~RelaySet() { Stop(); }

Status RelaySet::Add(int target_port, int* index, int* listen_port) {
  Relay r;
  r.target_port = target_port;
  r.listen_fd = test::ListenLoopback(0);
  if (r.listen_fd < 0) return Status::Error(errno, "relay: cannot listen on loopback");
  sockaddr_in a{};
  socklen_t len = sizeof(a);
  if (getsockname(r.listen_fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    close(r.listen_fd);
    return Status::Error(errno, "relay: getsockname");
  }
  *listen_port = ntohs(a.sin_port);
  *index = static_cast<int>(relays_.size());
  relays_.push_back(r);
  MutexLock lock(&mu_);
  wanted_.push_back(false);
  return Status::Ok();
}

Status RelaySet::Start() {
  thread_ = std::thread([this] { Loop(); });
  return Status::Ok();
}

void RelaySet::Stop() {
  if (!thread_.joinable()) return;
  stop_ = true;
  thread_.join();
  for (Relay& r : relays_) {
    for (auto& p : r.pairs) {
      close(p.first);
      close(p.second);
    }
    r.pairs.clear();
    close(r.listen_fd);
    r.listen_fd = -1;
  }
}

void RelaySet::SetCut(int index, bool cut) {
  MutexLock lock(&mu_);
  wanted_.at(index) = cut;
  uint64_t mine = ++requests_;
  // The thread applies within one poll round (100 ms).
  while (applied_ < mine && thread_.joinable())
    applied_cv_.WaitUntil(&mu_, std::chrono::steady_clock::now() + std::chrono::seconds(1));
}

void RelaySet::Apply() {
  for (size_t i = 0; i < relays_.size(); ++i) {
    Relay& r = relays_[i];
    r.cut = wanted_[i];
    if (!r.cut) continue;
    for (auto& p : r.pairs) {
      close(p.first);
      close(p.second);
    }
    r.pairs.clear();
  }
  applied_ = requests_;
  applied_cv_.NotifyAll();
}

void RelaySet::Loop() {
  while (!stop_) {
    {
      MutexLock lock(&mu_);
      if (applied_ < requests_) Apply();
    }
    // What each pollfd is: relay, and -1 for its listener or the pair
    // and side.
    struct Slot {
      size_t relay;
      int pair;  // -1: the listener
      int side;
    };
    std::vector<pollfd> fds;
    std::vector<Slot> slots;
    for (size_t i = 0; i < relays_.size(); ++i) {
      fds.push_back({relays_[i].listen_fd, POLLIN, 0});
      slots.push_back({i, -1, 0});
      for (size_t j = 0; j < relays_[i].pairs.size(); ++j) {
        fds.push_back({relays_[i].pairs[j].first, POLLIN, 0});
        slots.push_back({i, static_cast<int>(j), 0});
        fds.push_back({relays_[i].pairs[j].second, POLLIN, 0});
        slots.push_back({i, static_cast<int>(j), 1});
      }
    }
    if (poll(fds.data(), fds.size(), 100) <= 0) continue;
    std::vector<std::pair<size_t, int>> closed;  // relay, pair
    for (size_t k = 0; k < fds.size(); ++k) {
      if (!fds[k].revents) continue;
      Relay& r = relays_[slots[k].relay];
      if (slots[k].pair < 0) {
        int in = accept4(r.listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
        if (in < 0) continue;
        int out = r.cut ? -1 : test::ConnectLoopback(r.target_port);
        if (out < 0) {
          close(in);  // cut, or the peer is not listening: as a dropped link
          continue;
        }
        r.pairs.push_back({in, out});
        continue;
      }
      auto& p = r.pairs[slots[k].pair];
      int from = slots[k].side ? p.second : p.first;
      int to = slots[k].side ? p.first : p.second;
      char buf[65536];
      ssize_t n = read(from, buf, sizeof(buf));
      bool ok = n > 0;
      for (ssize_t done = 0; ok && done < n;) {
        ssize_t w = write(to, buf + done, n - done);
        ok = w > 0;
        done += ok ? w : 0;
      }
      if (!ok) closed.push_back({slots[k].relay, slots[k].pair});
    }
    // Marked first (both sides of a pair may have ended), removed after,
    // so that the indexes in `closed` stay right.
    for (const auto& c : closed) {
      auto& p = relays_[c.first].pairs[c.second];
      if (p.first < 0) continue;
      close(p.first);
      close(p.second);
      p.first = -1;
    }
    for (Relay& r : relays_) {
      std::vector<std::pair<int, int>> live;
      for (auto& p : r.pairs)
        if (p.first >= 0) live.push_back(p);
      r.pairs.swap(live);
    }
  }
}

}  // namespace soak
}  // namespace ssa
