// daemon_fixture.h: what the in-process daemon tests (daemon_test.cc,
// daemon_kernel_test.cc) share: the made-up port, settings that keep every
// file of the daemon in the test's directory, and the daemon's loop on a
// thread of its own, started and stopped.
#ifndef IBACM_SSA_TEST_UNIT_DAEMON_FIXTURE_H
#define IBACM_SSA_TEST_UNIT_DAEMON_FIXTURE_H

#include <sys/stat.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#include "core/daemon.h"
#include "test/support/check_ok.h"

#include "CppUTest/TestHarness.h"

namespace ssa {
namespace test {

// One InfiniBand port, active, with the default and a limited P_Key.
inline UmadPort FakeDaemonPort() {
  UmadPort p;
  p.ca_name = "fake0";
  p.port_num = 1;
  p.node_type = 1;
  p.node_guid = 0x0002c90300001230ULL;
  p.port_guid = 0x0002c90300001231ULL;
  p.gid_prefix = 0xfe80000000000000ULL;
  p.lid = 5;
  p.sm_lid = 1;
  p.state = kPortActive;
  p.link_layer = "InfiniBand";
  p.pkeys = {0xffff, 0x8001};
  p.pkey_indexes = {0, 1};
  return p;
}

// The whole of a file ("" when there is none).
inline std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The daemon's options are `opts` (written to dir/opts.cfg); its address
// file dir/addr.cfg (not written here), its run directory dir/run, its log
// dir/ibacm.log; the good test provider. The caller sets `discover`.
inline Daemon::Settings DaemonSettingsIn(const std::string& dir, const std::string& opts) {
  std::ofstream(dir + "/opts.cfg") << opts;
  Daemon::Settings s;
  s.opts_file = dir + "/opts.cfg";
  s.opts_file_given = true;
  s.addr_file = dir + "/addr.cfg";
  s.run_dir = dir + "/run";
  mkdir(s.run_dir.c_str(), 0755);  // as DaemonShell::Lock makes it
  s.provider_dir = TEST_PROVIDER_DIR "/good/.libs";
  s.log_target = dir + "/ibacm.log";
  return s;
}

// The name node5 on both P_Keys of FakeDaemonPort.
inline void WriteDaemonAddrFile(const std::string& dir) {
  std::ofstream(dir + "/addr.cfg") << "node5 fake0 1 default\nnode5-b fake0 1 0x8001\n";
}

// Starts a daemon with `s` and runs its loop on `loop`.
inline void StartDaemonThread(const Daemon::Settings& s, std::unique_ptr<Daemon>* daemon,
                              std::thread* loop) {
  *daemon = std::make_unique<Daemon>(s);
  Status st = (*daemon)->Start();
  CHECK_OK(st);
  Daemon* d = daemon->get();
  *loop = std::thread([d] { d->Run(); });
}

// Stops what StartDaemonThread started (nothing if it is gone already).
inline void StopDaemonThread(std::unique_ptr<Daemon>* daemon, std::thread* loop) {
  if (!*daemon) return;
  (*daemon)->RequestStop();
  if (loop->joinable()) loop->join();
  (*daemon)->Shutdown();
  daemon->reset();
}

}  // namespace test
}  // namespace ssa

#endif
