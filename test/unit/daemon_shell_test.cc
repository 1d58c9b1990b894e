// daemon_shell_test.cc: the shell ibacm, ibssa and ssa-consumer run in
// (common/base/daemon_shell.h): the run directory made and the lock taken
// once per machine, a log that cannot be opened going to syslog instead of
// stopping the daemon, SIGHUP reopening the log and SIGTERM stopping the
// loop through the signalfd, the lock file removed at the end, and one
// message format for failures; detached, a daemon that cannot start fails
// the command that started it, with its message.
#include "common/base/daemon_shell.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>

#include "test/support/check_ok.h"
#include "test/support/temp_dir.h"

// Last: CppUTest redefines operator new for what follows it.
#include <CppUTest/TestHarness.h>

namespace {

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

}  // namespace

TEST_GROUP(DaemonShell) {
  ssa::test::TempDir dir{"ssa-shell-"};
  sigset_t saved;
  void setup() override {
    CHECK_OK(dir.status());
    sigprocmask(SIG_BLOCK, nullptr, &saved);
  }
  // Detach blocks the daemon signals; leave the test binary as it was.
  void teardown() override { sigprocmask(SIG_SETMASK, &saved, nullptr); }
};

TEST(DaemonShell, LockMakesTheRunDirectoryAndKeepsASecondInstanceOut) {
  std::string run = dir.path() + "/run";
  std::string lock = run + "/test.pid";
  {
    ssa::DaemonShell shell("testd");
    CHECK_TRUE(shell.Lock(run, lock, nullptr));
    CHECK_TRUE(Exists(lock));
    // Record locks are per process: a second instance is another process.
    pid_t child = fork();
    if (child == 0) {
      ssa::DaemonShell second("testd");
      _exit(second.Lock(run, lock, nullptr) ? 0 : 3);
    }
    int status = 0;
    waitpid(child, &status, 0);
    CHECK_TRUE(WIFEXITED(status));
    LONGS_EQUAL(3, WEXITSTATUS(status));
  }
  CHECK_FALSE(Exists(lock));  // the shell's end removes it
}

TEST(DaemonShell, ALogThatCannotBeOpenedGoesToSyslogAndTheDaemonGoesOn) {
  ssa::Logger log;
  ssa::DaemonShell::OpenLog(&log, "/nonexistent-dir/d.log", "testd");
  log.Log(ssa::LogLevel::kInfo, "still logging");  // to syslog: nothing to fail
  std::string path = dir.path() + "/d.log";
  ssa::DaemonShell::OpenLog(&log, path, "testd");
  log.Log(ssa::LogLevel::kError, "in the file");
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text.find("in the file") != std::string::npos);
}

TEST(DaemonShell, SignalsReachTheLoopHupReopensTheLogTermStopsIt) {
  ssa::DaemonShell shell("testd");
  CHECK_TRUE(shell.Detach(true));
  std::string run = dir.path() + "/run";
  ssa::Logger log;
  std::string path = dir.path() + "/d.log";
  ssa::DaemonShell::OpenLog(&log, path, "testd");
  CHECK_TRUE(shell.Lock(run, run + "/d.pid", &log));
  ssa::EventLoop loop;
  CHECK_OK(loop.Init());
  bool stopped = false, shut_down = false;
  // As logrotate does: move the file away, then SIGHUP; then SIGTERM.
  loop.AddTimer(std::chrono::milliseconds(1), [&] {
    CHECK_EQUAL(0, rename(path.c_str(), (path + ".1").c_str()));
    raise(SIGHUP);
    loop.AddTimer(std::chrono::milliseconds(1), [&] { raise(SIGTERM); });
  });
  int rc = shell.Run(
      &loop, &log, false, [&] { return loop.Run(); },
      [&] {
        stopped = true;
        loop.Stop();
      },
      [&] { shut_down = true; });
  LONGS_EQUAL(0, rc);
  CHECK_TRUE(stopped);
  CHECK_TRUE(shut_down);
  LONGS_EQUAL(2, shell.signals_handled());
  CHECK_TRUE(Exists(path));  // reopened: a new file
  CHECK_FALSE(Exists(run + "/d.pid"));
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text.find("signal 15: shutting down") != std::string::npos);
}

TEST(DaemonShell, ARunErrorIsReportedAndIsExitStatusOne) {
  ssa::DaemonShell shell("testd");
  CHECK_TRUE(shell.Detach(true));
  ssa::Logger log;
  std::string path = dir.path() + "/d.log";
  ssa::DaemonShell::OpenLog(&log, path, "testd");
  ssa::EventLoop loop;
  CHECK_OK(loop.Init());
  int rc = shell.Run(
      &loop, &log, false, [] { return ssa::Status::Error(EIO, "the fabric went away"); }, [] {},
      [] {});
  LONGS_EQUAL(1, rc);
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text.find("run: ") != std::string::npos);
  CHECK(text.find("the fabric went away") != std::string::npos);
}

namespace {

// Forks a process that detaches as a daemon does (without -P) and then
// runs `daemon` in the daemon; returns the exit status of the command that
// started it, with what it wrote to stderr in *err.
int StartDetached(const std::string& err_path, const std::function<int(ssa::DaemonShell*)>& daemon,
                  std::string* err) {
  pid_t child = fork();
  if (child == 0) {
    int fd = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 2);
    ssa::DaemonShell shell("testd");
    if (!shell.Detach(false)) _exit(5);
    _exit(daemon(&shell));  // the daemon, detached
  }
  int status = 0;
  waitpid(child, &status, 0);
  std::ifstream in(err_path);
  err->assign((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

// Detached, a daemon that could not start used to leave its message on
// /dev/null and the command that started it exited 0.
TEST(DaemonShell, ADetachedDaemonThatCannotStartFailsTheCommandWithItsMessage) {
  std::string err;
  int rc = StartDetached(
      dir.path() + "/err",
      [](ssa::DaemonShell* shell) {
        return shell->Fail(nullptr, "configure",
                           ssa::Status::Error(EINVAL, "t.cfg:3: unknown option 'x'"));
      },
      &err);
  LONGS_EQUAL(1, rc);
  STRCMP_CONTAINS("testd: configure: t.cfg:3: unknown option 'x'", err.c_str());
  // One that serves ends the wait with status 0, and says nothing.
  rc = StartDetached(
      dir.path() + "/err2",
      [](ssa::DaemonShell* shell) {
        ssa::EventLoop loop;
        if (!loop.Init().ok()) return 7;
        return shell->Run(
            &loop, nullptr, false, [] { return ssa::Status::Ok(); }, [] {}, [] {});
      },
      &err);
  LONGS_EQUAL(0, rc);
  STRCMP_EQUAL("", err.c_str());
}

TEST(DaemonShell, TheRunDirectoryIsMadeWithItsParentsOrTheLockFails) {
  ssa::DaemonShell shell("testd");
  std::string run = dir.path() + "/a/b/run";
  CHECK_TRUE(shell.Lock(run, run + "/d.pid", nullptr));
  CHECK_TRUE(Exists(run + "/d.pid"));
  ssa::DaemonShell other("testd");
  CHECK_FALSE(other.Lock("/dev/null/run", "/dev/null/run/d.pid", nullptr));
}
