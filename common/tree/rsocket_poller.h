// rsocket_poller.h: readiness of rsockets as eventfds an event loop can
// watch. rsocket descriptors are not kernel fds: epoll cannot watch them,
// only librdmacm's rpoll() understands them. A poller runs one thread that
// blocks in rpoll() over every registered rsocket (and an eventfd of its
// own that wakes it when the set changes) and, when an rsocket becomes
// ready for what its owner wants, makes the owner's eventfd readable. It
// only signals: every rrecv/rsend/raccept runs on the owner's thread.
//
// Level-triggered like epoll: once it has signalled an rsocket it stops
// polling it until the owner says again what it wants (Want, after
// draining its eventfd), so a ready rsocket does not spin the thread.
//
// Lifetime: shared by every rsocket stream and listener of the process
// (Acquire); the first one starts the thread and the last one to let go
// stops and joins it, so no thread outlives the last rsocket, and none is
// left running when the module it was linked into (the ssa provider,
// inside ibacm) is unloaded. A test makes its own poller over poll().
//
// Threads: Add, Want and Remove from any thread (the owners' loops); they
// lock `mu_`, which the poller thread holds only while it reads the set
// and signals. Remove returns only once the thread no longer polls the
// rsocket, so the owner may close it (and its eventfd) right after.
#ifndef IBACM_SSA_COMMON_TREE_RSOCKET_POLLER_H
#define IBACM_SSA_COMMON_TREE_RSOCKET_POLLER_H

#include <poll.h>

#include <cstdint>
#include <map>
#include <memory>
#include <thread>

#include "common/base/mutex.h"

namespace ssa {
namespace tree {

class RsocketPoller {
 public:
  using PollFn = int (*)(pollfd* fds, nfds_t count, int timeout_ms);

  // The process's poller over rpoll(): the one in use, or a new one.
  static std::shared_ptr<RsocketPoller> Acquire();

  // Starts the thread, which polls with `poll` (rpoll, or poll in tests).
  explicit RsocketPoller(PollFn poll);
  // Stops and joins the thread.
  ~RsocketPoller();
  RsocketPoller(const RsocketPoller&) = delete;
  RsocketPoller& operator=(const RsocketPoller&) = delete;

  // Signals `efd` when `fd` has any of `events` (POLLIN/POLLOUT); errors
  // and hang-ups signal too.
  void Add(int fd, int efd, short events);
  // What `fd` waits for from now on (0: nothing).
  void Want(int fd, short events);
  // Forgets `fd`; see above.
  void Remove(int fd);

  // Times the thread came back from poll (tests: proof that it blocks).
  uint64_t rounds() const;

 private:
  struct Entry {
    int efd;
    short events;
  };
  void Run();
  void Wake() REQUIRES(mu_);

  const PollFn poll_;
  const int wake_fd_;  // eventfd: the set changed, or stop
  mutable Mutex mu_;
  CondVar round_done_;
  std::map<int, Entry> entries_ GUARDED_BY(mu_);  // by rsocket
  bool stop_ GUARDED_BY(mu_) = false;
  bool polling_ GUARDED_BY(mu_) = false;  // the thread is in poll_() with the set of round_
  uint64_t round_ GUARDED_BY(mu_) = 0;
  std::thread thread_;  // last: started once the rest is set up
};

}  // namespace tree
}  // namespace ssa

#endif
