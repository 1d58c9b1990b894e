// startup_sim_test.cc: what an operator meets before a daemon serves, run
// on this machine as an operator would, without a fabric:
//   - every mistake fails the command in daemon mode (no -P): a missing
//     options file, an unknown option, section, provider or role, a bad
//     value, a lock another instance holds, a run directory that cannot be
//     made; the message names the file and line, the allowed values and
//     the nearest known name, on the starting command's stderr;
//   - ibacm --check-config, ibssa --check-config and ibssa
//     --check-plugin-config print every option's value and where it came
//     from, exit 0, and 1 on any error;
//   - off the fabric (no umad2sim here, no HCA on the machine) every
//     program says there is no InfiniBand device and what to do instead.
// The programs run as local processes with LD_PRELOAD cleared.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/base/daemon_util.h"
#include "test/sim/sim_test_util.h"
#include "test/sim/sim_util.h"
#include "test/support/check_ok.h"
#include "test/support/temp_dir.h"

// Last: CppUTest redefines new for leak checking.
#include <CppUTest/TestHarness.h>

namespace {

std::string Built(const std::string& path) { return std::string(ABS_TOP_BUILDDIR) + "/" + path; }

struct Outcome {
  int rc = -1;
  std::string out;  // stdout and stderr
};

Outcome RunOffFabric(const std::vector<std::string>& argv) {
  Outcome o;
  ssa::Status st = ssa::test::RunLocal(argv, {{"LD_PRELOAD", ""}}, &o.out, &o.rc);
  CHECK_OK(st);
  return o;
}

// The line of a --check-config listing that sets `key`.
std::string ListedLine(const std::string& listing, const std::string& key) {
  size_t at = listing.find("\n" + key + " ");
  if (at == std::string::npos) return "";
  return listing.substr(at + 1, listing.find('\n', at + 1) - at - 1);
}

void CheckListed(const std::string& listing, const std::string& key, const std::string& value,
                 const std::string& source) {
  std::string line = ListedLine(listing, key);
  CHECK_TEXT(line.find("= " + value + " ") != std::string::npos, (key + ": " + listing).c_str());
  CHECK_TEXT(line.find("# " + source) != std::string::npos, (key + ": " + listing).c_str());
}

}  // namespace

TEST_GROUP(Startup) {
  ssa::test::TempDir tmp{"startup."};
  std::string dir;
  void setup() override {
    CHECK_OK(tmp.status());
    dir = tmp.path();
  }
  std::string File(const std::string& name, const std::string& text) {
    std::string path = dir + "/" + name;
    ssa::Status st = ssa::test::WriteStringToFile(path, text);
    CHECK_OK(st);
    return path;
  }
  // ibacm in daemon mode (no -P) with `opts` as its options file.
  Outcome Ibacm(const std::string& opts, std::vector<std::string> more = {}) {
    std::vector<std::string> argv = {Built("core/ibacm"),
                                     "-O",
                                     opts,
                                     "-A",
                                     "/dev/null",
                                     "-L",
                                     dir + "/ibacm.log",
                                     "--provider-dir",
                                     Built("providers/sa/.libs")};
    if (std::find(more.begin(), more.end(), "-R") == more.end())
      more.insert(more.end(), {"-R", dir + "/run"});
    argv.insert(argv.end(), more.begin(), more.end());
    return RunOffFabric(argv);
  }
  Outcome Ibssa(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {Built("distrib/ibssa"), "-L", dir + "/ibssa.log", "-R",
                                     dir + "/ibssa-run"};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunOffFabric(argv);
  }
  void Fails(const Outcome& o, const std::vector<std::string>& words) {
    CHECK_TEXT(o.rc != 0, o.out.c_str());
    for (const std::string& w : words)
      CHECK_TEXT(o.out.find(w) != std::string::npos, o.out.c_str());
  }
};

TEST(Startup, IbacmMistakesFailTheCommandInDaemonModeNamingFileLineAndTheNearestName) {
  // Each used to exit 0 with nothing said (the daemon had detached), or to
  // start with a warning in the log.
  Fails(Ibacm(dir + "/missing.cfg"), {"ibacm: ", "missing.cfg", "No such file"});
  std::string typo = File("typo.cfg", "[core]\nprovder = sa default\n");
  Fails(Ibacm(typo), {typo + ":2: unknown option 'provder' in [core]; did you mean 'provider'?"});
  std::string mode = File("mode.cfg", "server_mode tcp\n");
  Fails(Ibacm(mode),
        {mode + ":1: bad value for 'server_mode': 'tcp' is not one of unix|loop|open"});
  std::string prov = File("prov.cfg", "[core]\nprovider = sab default\n");
  Fails(Ibacm(prov), {prov + ":2: unknown provider 'sab' (loaded from ", "did you mean 'sa'?"});
  std::string section = File("section.cfg", "[core]\nlog_level = 1\n[sab]\ncache_size = 10\n");
  Fails(Ibacm(section), {section + ":4: unknown section [sab]", "did you mean 'sa'?"});
  std::string inner = File("inner.cfg", "[sa]\nroute_timout = 5\n");
  Fails(Ibacm(inner), {inner + ":2: [sa] unknown option 'route_timout' in [sa]; did you mean "
                               "'route_timeout'?"});

  // Another instance holds the lock (this process plays it).
  std::string ok = File("ok.cfg", "[core]\nlog_level = 1\n");
  mkdir((dir + "/run").c_str(), 0755);
  std::string error;
  int lock = ssa::TakeLockFile(dir + "/run/ibacm.pid", "ibacm", &error);
  CHECK_TEXT(lock >= 0, error.c_str());
  Fails(Ibacm(ok), {"another ibacm holds " + dir + "/run/ibacm.pid"});
  close(lock);
  // A run directory that cannot be made; one whose parents are missing is.
  Fails(Ibacm(ok, {"-R", "/dev/null/run"}), {"cannot create directory /dev/null/run"});
  Ibacm(ok, {"-R", dir + "/a/b/run"});
  struct stat st;
  CHECK_EQUAL(0, stat((dir + "/a/b/run").c_str(), &st));
}

TEST(Startup, IbssaRefusesAnUnknownRoleAndAMissingFileInDaemonMode) {
  // role = distrib used to make an access node, "keeping the default".
  std::string role = File("role.cfg", "role = distrib\n");
  Fails(Ibssa({"-O", role}), {role + ":1: bad value for 'role': 'distrib' is not distribution, "
                                     "access or distribution,access; did you mean "
                                     "'distribution'?"});
  Fails(Ibssa({"-O", dir + "/missing.cfg"}), {"ibssa: ", "missing.cfg"});
  std::string section = File("section.cfg", "[ibsa]\nrole = access\n");
  Fails(Ibssa({"-O", section}), {section + ":2: unknown section [ibsa]"});
}

TEST(Startup, CheckConfigPrintsEveryOptionWithWhereItCameFromAndExits0Or1) {
  std::string opts = File("acm_opts.cfg",
                          "[core]\nserver_mode = loop\nprovider = sa default\n[sa]\n"
                          "route_timeout = 5\n");
  Outcome o = RunOffFabric({Built("core/ibacm"), "--check-config", "-O", opts, "-A", "/dev/null",
                            "-R", dir + "/run", "--provider-dir", Built("providers/sa/.libs")});
  LONGS_EQUAL_TEXT(0, o.rc, o.out.c_str());
  CheckListed(o.out, "server_mode", "loop", opts + ":2");
  CheckListed(o.out, "timeout", "2000", "default");
  CheckListed(o.out, "unix_socket", dir + "/run/ibacm-unix.sock", "command line -R");
  CHECK_TEXT(o.out.find("\n[sa]\n") != std::string::npos, o.out.c_str());
  CheckListed(o.out, "route_timeout", "5", opts + ":5");
  // A check takes no lock and writes no log: nothing is made.
  CHECK(access((dir + "/run").c_str(), F_OK) != 0);
  std::string bad = File("bad.cfg", "[sa]\nroute_timeout = soon\n");
  o = RunOffFabric({Built("core/ibacm"), "--check-config", "-O", bad, "-A", "/dev/null",
                    "--provider-dir", Built("providers/sa/.libs")});
  Fails(o, {bad + ":2: [sa] bad value for 'route_timeout': 'soon' is not a number"});

  std::string ibssa_opts = File("ibssa_opts.cfg", "role = distribution\n");
  o = RunOffFabric({Built("distrib/ibssa"), "--check-config", "-O", ibssa_opts});
  LONGS_EQUAL_TEXT(0, o.rc, o.out.c_str());
  CheckListed(o.out, "role", "distribution", ibssa_opts + ":1");
  CheckListed(o.out, "max_children", "1024", "default");
  std::string bad_role = File("bad_role.cfg", "role = acess\n");
  Fails(RunOffFabric({Built("distrib/ibssa"), "--check-config", "-O", bad_role}),
        {"did you mean 'access'?"});

  // The plugin's options, without OpenSM: the string, or OpenSM's file.
  o = RunOffFabric({Built("distrib/ibssa"), "--check-plugin-config", "keep=4 log_level=debug"});
  LONGS_EQUAL_TEXT(0, o.rc, o.out.c_str());
  CheckListed(o.out, "keep", "4", "event_plugin_options:1");
  CheckListed(o.out, "lease_s", "30", "default");
  std::string plugin_file = File("ibssa_osm.conf", "fanout_acess 5\n");
  std::string opensm_conf = File(
      "opensm.conf",
      "event_plugin_name ibssa_osm\nevent_plugin_options config=" + plugin_file + " lease_s=10\n");
  Fails(RunOffFabric({Built("distrib/ibssa"), "--check-plugin-config", opensm_conf}),
        {plugin_file + ":1: unknown option 'fanout_acess'; did you mean 'fanout_access'?"});
  // The federation file and its key files, as the plugin reads them.
  std::string key = File("fed.key", std::string(64, 'a') + "\n");
  CHECK_EQUAL(0, chmod(key.c_str(), 0644));
  std::string fed = File(
      "fed.conf", "listen 0.0.0.0:7475\npeer b 10.0.0.2:7475 0xfec0000000000002 " + key + "\n");
  Fails(RunOffFabric({Built("distrib/ibssa"), "--check-plugin-config", "federation_file=" + fed}),
        {fed + ":2: key file " + key + ": mode 0644"});
  CHECK_EQUAL(0, chmod(key.c_str(), 0600));
  o = RunOffFabric({Built("distrib/ibssa"), "--check-plugin-config", "federation_file=" + fed});
  LONGS_EQUAL_TEXT(0, o.rc, o.out.c_str());
}

TEST(Startup, OffTheFabricEveryProgramSaysThereIsNoPortAndWhatToDo) {
  if (access("/sys/class/infiniband_mad", F_OK) == 0) {
    printf("\nskipped: this host has InfiniBand devices\n");
    return;
  }
  std::string ok = File("ok.cfg", "[core]\nlog_level = 1\n");
  const std::vector<std::pair<Outcome, std::string>> runs = {
      {Ibacm(ok), "run it on a node of the fabric (ib_acme --verify daemon"},
      {Ibssa({"-O", "/dev/null"}), "ssa-tree --state FILE shows the tree from anywhere"},
      {RunOffFabric({Built("util/ssa_tree/ssa-tree")}), "ssa-tree --state FILE"},
      {RunOffFabric({Built("util/ssa_tree/ssa-consumer"), "-R", dir + "/consumer"}),
       "run it on a node of the fabric"},
      {RunOffFabric({Built("util/ib_acme/ib_acme"), "-A", "-D", dir}),
       "ib_acme -A lists this node's ports: run it on a node of the fabric"},
  };
  for (const auto& run : runs) {
    const Outcome& o = run.first;
    CHECK_TEXT(o.out.find("no InfiniBand device on this host") != std::string::npos, o.out.c_str());
    CHECK_TEXT(o.out.find(run.second) != std::string::npos, o.out.c_str());
    CHECK_TEXT(o.out.find("mthca0") == std::string::npos, o.out.c_str());
  }
  for (size_t i = 0; i < 4; ++i) CHECK_TEXT(runs[i].first.rc != 0, runs[i].first.out.c_str());
}
