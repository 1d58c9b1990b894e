// rsocket_poller_test.cc: the rsocket poller's thread (common/tree/
// rsocket_poller.h) over poll() and pipes, since rsockets need an RDMA
// device: it signals the owner's eventfd when what the owner wants is
// ready, level-triggered; it blocks instead of waking on a timer; Remove
// returns once the fd is no longer polled; destroying it joins the thread.
#include "common/tree/rsocket_poller.h"

#include <dirent.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <chrono>
#include <thread>

// Last: CppUTest redefines new for leak checking.
#include <CppUTest/TestHarness.h>

using ssa::tree::RsocketPoller;

namespace {

// True when `efd` becomes readable within `ms`; drains it.
bool Signalled(int efd, int ms) {
  pollfd p = {efd, POLLIN, 0};
  if (poll(&p, 1, ms) != 1) return false;
  uint64_t v;
  return read(efd, &v, sizeof(v)) == sizeof(v);
}

size_t Threads() {
  size_t n = 0;
  DIR* d = opendir("/proc/self/task");
  while (dirent* e = readdir(d)) n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

}  // namespace

TEST_GROUP(RsocketPoller) {
  int pipe_fds[2] = {-1, -1};
  int efd = -1;
  void setup() override {
    CHECK_EQUAL(0, pipe(pipe_fds));
    efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    CHECK(efd >= 0);
  }
  void teardown() override {
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    close(efd);
  }
};

TEST(RsocketPoller, SignalsWhatTheOwnerWantsOnceUntilAskedAgain) {
  RsocketPoller poller(poll);
  poller.Add(pipe_fds[0], efd, POLLIN);
  CHECK_FALSE(Signalled(efd, 50));  // nothing to read yet
  CHECK_EQUAL(1, write(pipe_fds[1], "x", 1));
  CHECK_TRUE(Signalled(efd, 5000));
  // Still readable, but not signalled again until the owner wants more.
  CHECK_FALSE(Signalled(efd, 50));
  poller.Want(pipe_fds[0], POLLIN);
  CHECK_TRUE(Signalled(efd, 5000));
  // Writable: signalled for POLLOUT once asked for it.
  poller.Want(pipe_fds[0], 0);
  CHECK_FALSE(Signalled(efd, 50));
  poller.Add(pipe_fds[1], efd, POLLOUT);
  CHECK_TRUE(Signalled(efd, 5000));
  poller.Remove(pipe_fds[1]);
  poller.Remove(pipe_fds[0]);
}

TEST(RsocketPoller, BlocksUntilSomethingHappens) {
  RsocketPoller poller(poll);
  poller.Add(pipe_fds[0], efd, POLLIN);
  CHECK_FALSE(Signalled(efd, 20));
  uint64_t before = poller.rounds();
  // A poller that woke every 10 ms would come back ~20 times meanwhile.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  LONGS_EQUAL(before, poller.rounds());
  CHECK_EQUAL(1, write(pipe_fds[1], "x", 1));
  CHECK_TRUE(Signalled(efd, 5000));
  CHECK(poller.rounds() > before);
  poller.Remove(pipe_fds[0]);
}

TEST(RsocketPoller, RemoveLetsGoBeforeTheOwnerClosesAndDestroyingJoins) {
  size_t threads = Threads();
  {
    RsocketPoller poller(poll);
    LONGS_EQUAL(threads + 1, Threads());
    int other[2];
    CHECK_EQUAL(0, pipe(other));
    poller.Add(other[0], efd, POLLIN);
    poller.Add(pipe_fds[0], efd, POLLIN);
    // The thread is in poll() with other[0] in its set; once Remove
    // returns it is not, and closing it cannot disturb the next round.
    poller.Remove(other[0]);
    close(other[0]);
    close(other[1]);
    CHECK_EQUAL(1, write(pipe_fds[1], "x", 1));
    CHECK_TRUE(Signalled(efd, 5000));
  }
  LONGS_EQUAL(threads, Threads());  // stopped and joined, not detached
}
