// raw_fd_test.cc: common/base/raw_fd.h. An fd closed with RawClose() on
// one thread and its number opened again on another is two files, not a
// race: under ThreadSanitizer (scripts/test.sh --tsan) the sanitizer must
// see the close, or this test ends with a data race report (exit 66). The
// threads share only a relaxed flag, which orders nothing for TSan, as
// the path tables' publisher and a reader share nothing.
#include <fcntl.h>
#include <sys/stat.h>

#include <atomic>
#include <thread>

#include "common/base/raw_fd.h"

#include "CppUTest/TestHarness.h"

TEST_GROUP(RawFd){};

TEST(RawFd, ANumberClosedRawAndOpenedOnAnotherThreadIsANewFile) {
  std::atomic<int> closed{-1};
  int reopened = -1;
  bool stat_ok = false;
  std::thread other([&] {
    while (closed.load(std::memory_order_relaxed) < 0) std::this_thread::yield();
    // openat(), as the path tables' reader opens its object: TSan does
    // not intercept it, so only the close tells it the number is free.
    reopened = openat(AT_FDCWD, "/dev/null", O_RDONLY | O_CLOEXEC);
    struct stat st;
    stat_ok = reopened >= 0 && fstat(reopened, &st) == 0;
  });
  int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  CHECK(fd >= 0);
  struct stat st;
  CHECK(fstat(fd, &st) == 0);
  LONGS_EQUAL(0, ssa::RawClose(fd));
  closed.store(fd, std::memory_order_relaxed);
  other.join();
  CHECK(stat_ok);
  // The kernel hands out the lowest free number: the same one, as a rule.
  CHECK(reopened >= 0);
  LONGS_EQUAL(0, ssa::RawClose(reopened));
}
