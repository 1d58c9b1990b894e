// daemon_util: socket activation's LISTEN_* variables (what sd_listen_fds
// does, without libsystemd).
#include "common/base/daemon_util.h"

#include <CppUTest/TestHarness.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

TEST_GROUP(SocketActivation) {
  // Whatever the test process has at descriptor 3 is moved aside, so the
  // tests can put systemd's first socket there, and put back afterwards.
  int saved3 = -1;
  void setup() override {
    if (fcntl(3, F_GETFD) >= 0) {
      saved3 = fcntl(3, F_DUPFD_CLOEXEC, 10);
      CHECK(saved3 >= 0);
    }
  }
  void teardown() override {
    unsetenv("LISTEN_PID");
    unsetenv("LISTEN_FDS");
    unsetenv("LISTEN_FDNAMES");
    if (saved3 >= 0) {
      dup2(saved3, 3);
      close(saved3);
    } else {
      close(3);
    }
  }
  // A socket at descriptor 3, inheritable, as systemd leaves it.
  void SocketAtThree() {
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    CHECK(fd >= 0);
    if (fd != 3) {
      CHECK_EQUAL(3, dup2(fd, 3));
      close(fd);
    }
    fcntl(3, F_SETFD, 0);
  }
  void SetEnv(const std::string& pid, const char* fds) {
    setenv("LISTEN_PID", pid.c_str(), 1);
    setenv("LISTEN_FDS", fds, 1);
    setenv("LISTEN_FDNAMES", "ibacm.socket", 1);
  }
  void CheckEnvCleared() {
    CHECK(getenv("LISTEN_PID") == nullptr);
    CHECK(getenv("LISTEN_FDS") == nullptr);
    CHECK(getenv("LISTEN_FDNAMES") == nullptr);
  }
};

TEST(SocketActivation, NoVariablesNoSockets) {
  unsetenv("LISTEN_PID");
  unsetenv("LISTEN_FDS");
  std::string error = "stale";
  CHECK_TRUE(ssa::TakeSystemdSockets(&error).empty());
  STRCMP_EQUAL("", error.c_str());
}

TEST(SocketActivation, OurPidTakesDescriptorThreeCloseOnExec) {
  SocketAtThree();
  SetEnv(std::to_string(getpid()), "1");
  std::string error;
  std::vector<int> fds = ssa::TakeSystemdSockets(&error);
  STRCMP_EQUAL("", error.c_str());
  LONGS_EQUAL(1, fds.size());
  LONGS_EQUAL(3, fds[0]);
  CHECK(fcntl(3, F_GETFD) & FD_CLOEXEC);  // not handed on to our children
  CheckEnvCleared();
}

TEST(SocketActivation, AnotherPidsSocketsAreNotOurs) {
  SocketAtThree();
  SetEnv(std::to_string(getpid() + 1), "1");
  std::string error;
  CHECK_TRUE(ssa::TakeSystemdSockets(&error).empty());
  STRCMP_EQUAL("", error.c_str());
  CHECK_EQUAL(0, fcntl(3, F_GETFD) & FD_CLOEXEC);  // untouched
  CheckEnvCleared();
}

TEST(SocketActivation, MalformedVariablesAreAnErrorAndTakeNothing) {
  SocketAtThree();
  const std::string me = std::to_string(getpid());
  const char* bad[][2] = {{"", "1"},           {"12x", "1"},       {me.c_str(), "0"},
                          {me.c_str(), "one"}, {me.c_str(), "-1"}, {me.c_str(), "99999999999"}};
  for (const auto& b : bad) {
    SetEnv(b[0], b[1]);
    std::string error;
    CHECK_TRUE(ssa::TakeSystemdSockets(&error).empty());
    CHECK_FALSE_TEXT(error.empty(), (std::string(b[0]) + " / " + b[1]).c_str());
    CheckEnvCleared();
  }
}

TEST(SocketActivation, MoreDescriptorsThanAreOpenIsAnError) {
  SocketAtThree();
  // Descriptors 4..9 are not all open in a test process that opened few.
  int highest = 3;
  while (fcntl(highest + 1, F_GETFD) >= 0) ++highest;
  SetEnv(std::to_string(getpid()), std::to_string(highest - 3 + 2).c_str());
  std::string error;
  CHECK_TRUE(ssa::TakeSystemdSockets(&error).empty());
  STRCMP_CONTAINS("is not open", error.c_str());
}
