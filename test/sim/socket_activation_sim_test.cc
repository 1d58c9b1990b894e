// Socket activation, as systemd does it with ibacm.socket: the test plays
// systemd. It binds and listens on the unix socket itself, forks, puts the
// socket at descriptor 3 and LISTEN_FDS/LISTEN_PID (and NOTIFY_SOCKET) in
// the child's environment, and execs ibacm --systemd as a simulated node;
// the stock ib_acme then resolves through that socket.
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <string>

#include "test/sim/fabric_fixture.h"
#include "test/sim/ibacm_node.h"
#include "test/sim/netgen.h"
#include "test/sim/sim_fabric.h"
#include "test/sim/sim_util.h"
#include "test/support/check_ok.h"
#include "test/support/tool_output.h"

// Last: CppUTest redefines new for leak checking.
#include <CppUTest/TestHarness.h>

using namespace std::chrono_literals;
using ssa::test::SimFabric;

namespace {

sockaddr_un UnixAddress(const std::string& path) {
  sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
  return addr;
}

// The datagrams ibacm sends to NOTIFY_SOCKET, e.g. "READY=1".
std::string ReceiveNotify(int fd, std::chrono::milliseconds timeout) {
  std::string got;
  ssa::test::PollUntil(timeout, [&] {
    char buf[256];
    ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
    if (n > 0) got.assign(buf, n);
    return n > 0;
  });
  return got;
}

}  // namespace

TEST_GROUP_BASE(SocketActivation, ssa::test::FabricFixture) {
  std::string dir;
  int listen_fd = -1, notify_fd = -1;
  pid_t pid = -1;

  void setup() override {
    StartFabric(ssa::test::FourHcaNet());
    dir = fabric->run_dir() + "/activation";
    mkdir(dir.c_str(), 0755);
  }
  void teardown() override {
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
    if (listen_fd >= 0) close(listen_fd);
    if (notify_fd >= 0) close(notify_fd);
    FabricFixture::teardown();
  }
  // What systemd does for ibacm.service with ibacm.socket, as node `node`.
  void StartActivated(const std::string& node, const std::vector<std::string>& argv) {
    pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      for (const auto& kv : fabric->NodeEnv(node)) setenv(kv.first.c_str(), kv.second.c_str(), 1);
      if (dup2(listen_fd, 3) != 3) _exit(126);  // dup2 clears close-on-exec
      setenv("LISTEN_FDS", "1", 1);
      setenv("LISTEN_PID", std::to_string(getpid()).c_str(), 1);
      setenv("LISTEN_FDNAMES", "ibacm.socket", 1);
      setenv("NOTIFY_SOCKET", (dir + "/notify").c_str(), 1);
      int out = open((dir + "/output.log").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(out, 1);
      dup2(out, 2);
      std::vector<char*> args;
      for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      execv(args[0], args.data());
      _exit(127);
    }
  }
  std::string Log() {
    std::string text;
    ssa::test::ReadFileToString(dir + "/ibacm.log", &text);
    return text;
  }
};

TEST(SocketActivation, DaemonServesTheSocketItWasHandedAndLeavesItToSystemd) {
  // systemd's side: the listening socket and the notification socket.
  const std::string sock = dir + "/ibacm-unix.sock";
  listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr = UnixAddress(sock);
  CHECK_EQUAL(0, bind(listen_fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)));
  CHECK_EQUAL(0, listen(listen_fd, 16));
  notify_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_un notify_addr = UnixAddress(dir + "/notify");
  CHECK_EQUAL(0, bind(notify_fd, reinterpret_cast<sockaddr*>(&notify_addr), sizeof(notify_addr)));

  ssa::test::WriteStringToFile(dir + "/addr.cfg", "node2 ibsim0 1 default\n");
  ssa::test::WriteStringToFile(dir + "/opts.cfg", "[core]\nlog_level = debug\n");
  // -R: had the daemon made a socket of its own, it would be in run/.
  StartActivated("Hca2", {ssa::test::IbacmBinary(), "--systemd", "-O", dir + "/opts.cfg", "-A",
                          dir + "/addr.cfg", "-R", dir + "/run", "-L", dir + "/ibacm.log",
                          "--provider-dir", ssa::test::TestProviderDir()});

  std::string ready = ReceiveNotify(notify_fd, 20s);
  std::string output;
  ssa::test::ReadFileToString(dir + "/output.log", &output);
  STRCMP_EQUAL_TEXT("READY=1", ready.c_str(), (Log() + output).c_str());
  STRCMP_CONTAINS("descriptor 3 from systemd", Log().c_str());
  CHECK_FALSE(ssa::test::PathExists(dir + "/run/ibacm-unix.sock"));
  CHECK_FALSE(ssa::test::PathExists(dir + "/run/ibacm.sock"));

  // A resolve through the activated socket, by the stock client.
  std::string ibstat, out;
  int rc = -1;
  CHECK_OK(fabric->Run("Hca2", {"ibstat"}, &ibstat, &rc));
  int base_lid = ssa::test::ParseIbstat(ibstat).lid;
  CHECK(base_lid >= 0);  // ibstat printed one
  std::string lid = std::to_string(base_lid);
  CHECK_OK(ssa::test::RunProgram({"/usr/bin/ib_acme", "-S", sock, "-f", "l", "-s", lid, "-d", "1"},
                                 &out, &rc));
  STRCMP_CONTAINS("dlid: 1", out.c_str());
  STRCMP_CONTAINS("return status 0x0", out.c_str());

  // Stopped, it says so, and the socket stays with "systemd": its file is
  // there and a client connecting now waits in our backlog (systemd would
  // start the service again).
  CHECK_EQUAL(0, kill(pid, SIGTERM));
  int status = -1;
  CHECK_TRUE(ssa::test::PollUntil(10s, [&] { return waitpid(pid, &status, WNOHANG) == pid; }));
  pid = -1;
  CHECK_TRUE_TEXT(WIFEXITED(status) && WEXITSTATUS(status) == 0, Log().c_str());
  STRCMP_EQUAL("STOPPING=1", ReceiveNotify(notify_fd, 5s).c_str());
  CHECK_TRUE(ssa::test::PathExists(sock));
  int client = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  CHECK_EQUAL(0, connect(client, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)));
  close(client);
}

TEST(SocketActivation, ADescriptorThatIsNoListeningSocketStopsStartUpWithAReason) {
  // A socket unit gone wrong: a datagram socket where a stream listener
  // belongs. The daemon must say so and exit, not make its own socket.
  listen_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  ssa::test::WriteStringToFile(dir + "/addr.cfg", "node2 ibsim0 1 default\n");
  StartActivated("Hca2",
                 {ssa::test::IbacmBinary(), "-P", "-A", dir + "/addr.cfg", "-R", dir + "/run", "-L",
                  dir + "/ibacm.log", "--provider-dir", ssa::test::TestProviderDir()});
  int status = -1;
  CHECK_TRUE(ssa::test::PollUntil(20s, [&] { return waitpid(pid, &status, WNOHANG) == pid; }));
  pid = -1;
  CHECK_TRUE(WIFEXITED(status));
  LONGS_EQUAL(1, WEXITSTATUS(status));
  STRCMP_CONTAINS("not a listening unix stream socket", Log().c_str());
  STRCMP_CONTAINS("systemd passed no listening unix socket", Log().c_str());
  CHECK_FALSE(ssa::test::PathExists(dir + "/run/ibacm-unix.sock"));
}
