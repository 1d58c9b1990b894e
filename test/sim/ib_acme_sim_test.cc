// ib_acme_sim_test.cc: our ib_acme (util/ib_acme) on a 4-HCA simulated
// fabric, against our ibacm:
//   - the same arguments to our ib_acme and Debian's stock /usr/bin/ib_acme
//     give the same output and exit status (-e, -P in every form, resolves
//     by LID, GID, name and IP with ranges, -c, -C, -v, failures, usage);
//   - provider testing over every LID, checked against the SA directly (our
//     ib_acme then runs as a node) and through the daemon, with summary
//     counts and exit status, and wrong destinations that must fail;
//   - with the sa provider built, -v and provider testing where the daemon
//     really asks the SA;
//   - -A and -O.
// The only normalization: the program path (usage lines and getopt's
// complaints name argv[0]).
#include <arpa/inet.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "test/sim/fabric_fixture.h"
#include "test/sim/ibacm_node.h"
#include "test/sim/netgen.h"
#include "test/sim/sim_fabric.h"
#include "test/sim/sim_util.h"
#include "test/support/check_ok.h"
#include "test/support/tool_output.h"

// Last: CppUTest redefines new for leak checking.
#include <CppUTest/TestHarness.h>

using ssa::test::IbacmNode;
using ssa::test::IbstatField;
using ssa::test::SimFabric;

namespace {

const char kStockAcme[] = "/usr/bin/ib_acme";
const std::string kOurAcme = std::string(ABS_TOP_BUILDDIR) + "/util/ib_acme/ib_acme";

struct Outcome {
  std::string out;
  int status = -1;
};

// "fe80::10:3" for a port GUID as ibstat prints it.
std::string GidOf(const std::string& port_guid_text) {
  return ssa::test::DefaultGidText(strtoull(port_guid_text.c_str(), nullptr, 0));
}

std::string ReplaceAll(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

// Lines of `text` that start with `prefix`.
int CountLines(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line))
    if (line.compare(0, prefix.size(), prefix) == 0) ++n;
  return n;
}

std::string SaProviderDir() { return std::string(ABS_TOP_BUILDDIR) + "/providers/sa/.libs"; }
bool HaveSaProvider() { return ssa::test::PathExists(SaProviderDir() + "/sa.so"); }

}  // namespace

TEST_GROUP_BASE(IbAcme, ssa::test::FabricFixture) {
  std::unique_ptr<IbacmNode> ibacm;  // testprov, on Hca2
  std::string sock;
  std::string lid, gid;  // Hca2's

  void setup() override {
    StartFabric(ssa::test::FourHcaNet());
    ibacm = StartDaemon("Hca2", ssa::test::TestProviderDir(), "node2");
    sock = ibacm->socket_path();
    std::string ibstat = RunAsNode("Hca2", {"ibstat"}).out;
    lid = IbstatField(ibstat, "Base lid");
    gid = GidOf(IbstatField(ibstat, "Port GUID"));
    CHECK_TEXT(!lid.empty() && lid != "0", ibstat.c_str());
  }
  void teardown() override {
    if (ibacm) {
      ssa::Status st = ibacm->Stop();
      CHECK_OK(st);
    }
    ibacm.reset();
    FabricFixture::teardown();
  }

  // Names NAME and NAMEb and an IP on the node's port.
  std::unique_ptr<IbacmNode> StartDaemon(const std::string& node, const std::string& provider_dir,
                                         const std::string& name) {
    IbacmNode::Options o;
    o.node = node;
    o.addr_cfg = name + " ibsim0 1 default\n" + name + "b ibsim0 1 default\n10.0.0." +
                 node.substr(3) + " ibsim0 1 default\n";
    o.opts_cfg = "[core]\nlog_level = debug\nsupport_ips_in_addr_cfg = yes\n";
    o.provider_dir = provider_dir;
    auto daemon = std::make_unique<IbacmNode>(fabric.get(), o);
    ssa::Status st = daemon->Start();
    CHECK_OK(st);
    return daemon;
  }

  Outcome Run(const std::vector<std::string>& argv) {
    Outcome r;
    ssa::Status st = ssa::test::RunProgram(argv, &r.out, &r.status);
    CHECK_OK(st);
    return r;
  }
  Outcome RunAsNode(const std::string& node, const std::vector<std::string>& argv) {
    Outcome r;
    ssa::Status st = fabric->Run(node, argv, &r.out, &r.status);
    CHECK_OK(st);
    return r;
  }

  // Runs the stock ib_acme and ours with `args` (after "-S <service>"
  // unless `service` is empty) and expects the same output and status.
  // Returns our outcome.
  Outcome ExpectSame(const std::vector<std::string>& args, const std::string& service) {
    auto argv_for = [&](const std::string& program) {
      std::vector<std::string> argv = {program};
      if (!service.empty()) argv.insert(argv.end(), {"-S", service});
      argv.insert(argv.end(), args.begin(), args.end());
      return argv;
    };
    Outcome stock = Run(argv_for(kStockAcme));
    Outcome ours = Run(argv_for(kOurAcme));
    std::string what = "ib_acme " + ssa::test::JoinArgs(args);
    // Usage lines and getopt's messages name argv[0]; nothing else does.
    std::string stock_out = ReplaceAll(stock.out, kStockAcme, "ib_acme");
    std::string our_out = ReplaceAll(ours.out, kOurAcme, "ib_acme");
    if (stock_out != our_out)
      FAIL(("output differs for " + what + "\n--- stock:\n" + stock_out + "--- ours:\n" + our_out)
               .c_str());
    LONGS_EQUAL_TEXT(stock.status, ours.status, what.c_str());
    return ours;
  }
  Outcome ExpectSame(const std::vector<std::string>& args) { return ExpectSame(args, sock); }
};

TEST(IbAcme, EndpointsCountersAndUsageMatchStock) {
  Outcome r = ExpectSame({"-e"});
  STRCMP_CONTAINS(",testprov,node2,node2b,10.0.0.2\n", r.out.c_str());
  ExpectSame({"-e", "1"});
  ExpectSame({"-e1"});
  ExpectSame({"-e", "2"});  // " Endpoint 2 is not available"
  ExpectSame({"-e", "0"});
  // Counters move only with resolves, so each pair sees the same numbers.
  ExpectSame({"-f", "l", "-d", "1"});
  r = ExpectSame({"-P"});
  STRCMP_CONTAINS("svc,Error Count,Resolve Count", r.out.c_str());
  ExpectSame({"-P", "col"});
  ExpectSame({"-Pcol"});
  ExpectSame({"-P", "all"});
  ExpectSame({"-P", "1"});
  ExpectSame({"-P", "2"});  // no endpoint 2
  ExpectSame({"-P", "s", "-f", "n", "-s", "node2"});
  ExpectSame({"-P", "s", "-f", "i", "-s", "10.0.0.2"});
  ExpectSame({"-P", "s", "-f", "n", "-s", "nosuch"});
  ExpectSame({"-P", "-e"});  // both, in upstream's order
  // Services that cannot be reached; bad arguments: the usage text.
  ExpectSame({"-P"}, "/nonexistent/ibacm.sock");
  ExpectSame({}, "");
  ExpectSame({"-h"}, "");
  ExpectSame({"-f", "x", "-d", "1"});
  ExpectSame({"-s", "1"});
  ExpectSame({"-P", "s"});
}

TEST(IbAcme, ResolvesMatchStock) {
  // LIDs, with a range, a source, repetitions; a LID that cannot be a
  // destination (0) fails alike.
  Outcome r = ExpectSame({"-f", "l", "-d", "[1-6]"});
  LONGS_EQUAL(6, CountLines(r.out, "Path information"));
  ExpectSame({"-f", "l", "-s", lid, "-d", "[1-3,5]"});
  ExpectSame({"-f", "l", "-d", "2", "-C", "3"});
  ExpectSame({"-f", "l", "-d", "0"});
  ExpectSame({"-f", "l", "-s", "77", "-d", "1"});  // not our LID: ESRCADDR
  // -c: destinations resolved above come from the cache.
  ExpectSame({"-f", "l", "-d", "[1-2]", "-c"});
  // GIDs.
  r = ExpectSame({"-f", "g", "-d", gid});
  STRCMP_CONTAINS(("dgid: " + gid + "\n").c_str(), r.out.c_str());
  ExpectSame({"-f", "g", "-s", gid, "-d", gid});
  ExpectSame({"-f", "g", "-d", "not-a-gid"});
  // Names: the daemon picks the source and says which; ranges of names.
  r = ExpectSame({"-f", "n", "-d", "node2"});
  STRCMP_CONTAINS("Source: node2\n", r.out.c_str());
  ExpectSame({"-f", "n", "-s", "node2", "-d", "node2b"});
  ExpectSame({"-f", "n", "-d", "node2", "-C", "2"});  // no "Source:" when timing
  ExpectSame({"-f", "n", "-d", "nosuch"});
  ExpectSame({"-f", "n", "-s", "node2", "-d", "node[1-3]"});
  ExpectSame({"-f", "n", "-s", "node[2-3]", "-d", "node2"});
  // IPs, and upstream's guessing without -f.
  ExpectSame({"-f", "i", "-d", "10.0.0.[1-3]"});
  ExpectSame({"-f", "i", "-s", "10.0.0.2", "-d", "10.0.0.2"});
  ExpectSame({"-f", "i", "-s", "::1", "-d", "10.0.0.2"});
  ExpectSame({"-d", "10.0.0.2"});
  ExpectSame({"-d", "localhost"});
  ExpectSame({"-d", lid});
  // -v: the daemon asks its provider (testprov answers like a resolve).
  r = ExpectSame({"-f", "l", "-d", "[1-3]", "-v"});
  LONGS_EQUAL(3, CountLines(r.out, "SA verification: success"));
  r = ExpectSame({"-f", "l", "-s", lid, "-d", "[1-6]", "-v"});
  LONGS_EQUAL(6, CountLines(r.out, "SA verification: success"));
  ExpectSame({"-f", "l", "-d", "0", "-v"});
  ExpectSame({"-f", "n", "-d", "node2", "-v"});
}

TEST(IbAcme, CacheOnlyMissesSayNoData) {
  // NODELAY on a destination never asked for: testprov starts resolving and
  // answers ENODATA once (so stock and ours cannot both be first here).
  Outcome r = Run({kOurAcme, "-S", sock, "-f", "l", "-d", "50", "-c"});
  STRCMP_CONTAINS("ib_acm_resolve_path failed: No data available\n", r.out.c_str());
  LONGS_EQUAL(255, r.status);
  r = Run({kStockAcme, "-S", sock, "-f", "l", "-d", "50", "-c"});
  STRCMP_CONTAINS("Path information\n  dgid:", r.out.c_str());
  LONGS_EQUAL(0, r.status);
}

TEST(IbAcme, ProviderTestAgainstTheSaFindsTestprovsMadeUpPaths) {
  // testprov makes DGIDs, MTU and rate up; the SA knows better.
  int lids = static_cast<int>(fabric->node_names().size());
  LONGS_EQUAL(6, lids);  // 4 HCAs, 2 switches: LIDs 1..6
  std::string range = "1-" + std::to_string(lids);
  Outcome r = RunAsNode("Hca2", {kOurAcme, "-S", sock, "-T", "--lid-range", range});
  LONGS_EQUAL_TEXT(1, r.status, r.out.c_str());
  LONGS_EQUAL_TEXT(lids, CountLines(r.out, "lid "), r.out.c_str());
  STRCMP_CONTAINS("lid 2: MISMATCH (", r.out.c_str());
  STRCMP_CONTAINS("dgid fe80::2 != ", r.out.c_str());
  STRCMP_CONTAINS(
      "  destinations: 6\n  resolved:     6\n  matched:      0\n"
      "  mismatched:   6\n  errors:       0\n  latency:      p50 ",
      r.out.c_str());
  STRCMP_CONTAINS("  result:       FAIL\n", r.out.c_str());

  // Through the daemon (QUERY_SA), testprov agrees with itself.
  r = Run({kOurAcme, "-S", sock, "--lid-range", range, "--verify", "daemon"});
  LONGS_EQUAL_TEXT(0, r.status, r.out.c_str());
  LONGS_EQUAL_TEXT(lids, CountLines(r.out, "lid "), r.out.c_str());
  STRCMP_CONTAINS(
      "  destinations: 6\n  resolved:     6\n  matched:      6\n"
      "  mismatched:   0\n  errors:       0\n",
      r.out.c_str());
  STRCMP_CONTAINS("  result:       PASS\n", r.out.c_str());

  // A LID nobody has: testprov resolves it anyway, the SA has no path.
  r = RunAsNode("Hca2", {kOurAcme, "-S", sock, "-T", "-f", "l", "-d", "99"});
  LONGS_EQUAL_TEXT(1, r.status, r.out.c_str());
  STRCMP_CONTAINS("lid 99: MISMATCH (", r.out.c_str());
  STRCMP_CONTAINS("the SA has no such path", r.out.c_str());
}

TEST(IbAcme, ProviderTestWrongDestinationsFail) {
  std::string dir = fabric->run_dir();
  std::string dests = dir + "/dests.txt";
  CHECK_OK(ssa::test::WriteStringToFile(dests, "# names\nnode2\nnosuch node2b  # two\n"));
  Outcome r = Run({kOurAcme, "-S", sock, "-f", "n", "--dest-file", dests, "--verify", "daemon"});
  LONGS_EQUAL_TEXT(1, r.status, r.out.c_str());
  STRCMP_CONTAINS("name node2: ok (", r.out.c_str());
  STRCMP_CONTAINS(
      "name nosuch: ERROR: resolve failed: Cannot assign requested address (EDESTADDR)\n",
      r.out.c_str());
  STRCMP_CONTAINS("name node2b: ok (", r.out.c_str());
  STRCMP_CONTAINS(
      "  destinations: 3\n  resolved:     2\n  matched:      2\n"
      "  mismatched:   0\n  errors:       1\n",
      r.out.c_str());

  // A hosts file whose GIDs say where each name must lead.
  std::string hosts = dir + "/hosts";
  CHECK_OK(ssa::test::WriteStringToFile(hosts, "node2 " + gid + "\nnode2b fe80::dead\n10.0.0.2\n"));
  r = Run({kOurAcme, "-S", sock, "--hosts", hosts, "--verify", "none"});
  LONGS_EQUAL_TEXT(1, r.status, r.out.c_str());
  STRCMP_CONTAINS("name node2: resolved (", r.out.c_str());
  STRCMP_CONTAINS("name node2b: MISMATCH (", r.out.c_str());
  STRCMP_CONTAINS(("dgid " + gid + " != fe80::dead (hosts file)").c_str(), r.out.c_str());
  STRCMP_CONTAINS("ip 10.0.0.2: resolved (", r.out.c_str());
  STRCMP_CONTAINS("  matched:      - (not verified)\n", r.out.c_str());

  // Nothing to test, or no daemon: it could not test at all.
  r = Run({kOurAcme, "-S", sock, "-T"});
  LONGS_EQUAL(2, r.status);
  STRCMP_CONTAINS("provider testing needs destinations", r.out.c_str());
  r = Run({kOurAcme, "-S", dir + "/none.sock", "-T", "-d", "1", "--verify", "none"});
  LONGS_EQUAL_TEXT(2, r.status, r.out.c_str());
  STRCMP_CONTAINS("unable to contact service", r.out.c_str());
}

TEST(IbAcme, WithTheSaProviderVerificationReallyAsksTheSa) {
  if (!HaveSaProvider()) {
    UT_PRINT("providers/sa not built: skipped");
    return;
  }
  std::unique_ptr<IbacmNode> sa = StartDaemon("Hca3", SaProviderDir(), "node3");
  std::string sa_sock = sa->socket_path();
  std::string ibstat4 = RunAsNode("Hca4", {"ibstat"}).out;
  std::string gid4 = GidOf(IbstatField(ibstat4, "Port GUID"));
  std::string ibstat3 = RunAsNode("Hca3", {"ibstat"}).out;
  std::string lid3 = IbstatField(ibstat3, "Base lid");
  std::string gid3 = GidOf(IbstatField(ibstat3, "Port GUID"));

  // Stock and ours against the daemon that asks the SA, -v included; LID 7
  // exists nowhere.
  Outcome r = ExpectSame({"-f", "l", "-d", "[1-7]", "-v"}, sa_sock);
  LONGS_EQUAL(6, CountLines(r.out, "SA verification: success"));
  r = ExpectSame({"-f", "l", "-s", lid3, "-d", "[1-6]", "-v"}, sa_sock);
  LONGS_EQUAL(6, CountLines(r.out, "SA verification: success"));
  ExpectSame({"-f", "g", "-s", gid3, "-d", gid4, "-v"}, sa_sock);
  ExpectSame({"-f", "g", "-d", gid4, "-v"}, sa_sock);
  ExpectSame({"-f", "n", "-d", "node3", "-v"}, sa_sock);
  ExpectSame({"-P"}, sa_sock);
  ExpectSame({"-e"}, sa_sock);

  // Provider testing: every LID matches the SA, asked directly and through
  // the daemon.
  r = RunAsNode("Hca3", {kOurAcme, "-S", sa_sock, "--lid-range", "1-6"});
  LONGS_EQUAL_TEXT(0, r.status, r.out.c_str());
  STRCMP_CONTAINS(
      "  destinations: 6\n  resolved:     6\n  matched:      6\n"
      "  mismatched:   0\n  errors:       0\n",
      r.out.c_str());
  r = Run({kOurAcme, "-S", sa_sock, "-T", "-f", "g", "-d", gid4, "--verify", "daemon"});
  LONGS_EQUAL_TEXT(0, r.status, r.out.c_str());
  // The wrong destination.
  r = RunAsNode("Hca3", {kOurAcme, "-S", sa_sock, "--lid-range", "5-7"});
  LONGS_EQUAL_TEXT(1, r.status, r.out.c_str());
  STRCMP_CONTAINS("lid 7: ERROR: resolve failed:", r.out.c_str());
  STRCMP_CONTAINS("  matched:      2\n  mismatched:   0\n  errors:       1\n", r.out.c_str());

  ssa::Status st = sa->Stop();
  CHECK_OK(st);
}

TEST(IbAcme, WritesAddressAndOptionsFiles) {
  std::string dir = fabric->run_dir() + "/conf";
  // -A from the ports libibumad sees: run as a node.
  Outcome r = RunAsNode("Hca2", {kOurAcme, "-A", "-D", dir, "-V"});
  LONGS_EQUAL_TEXT(0, r.status, r.out.c_str());
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  std::string short_host = std::string(host).substr(0, std::string(host).find('.'));
  std::string lines = short_host + " ibsim0 1 default\n" + short_host + "-1 ibsim0 1 default\n";
  STRCMP_EQUAL(("Generating " + dir + "/ibacm_addr.cfg\n" + lines + "return status 0x0\n").c_str(),
               r.out.c_str());
  std::string text;
  CHECK_OK(ssa::test::ReadFileToString(dir + "/ibacm_addr.cfg", &text));
  STRCMP_CONTAINS(("\n" + lines).c_str(), text.c_str());

  // -O writes the shipped template, byte for byte; quiet without -V.
  r = Run({kOurAcme, "-O", "my_opts.cfg", "-D", dir});
  LONGS_EQUAL_TEXT(0, r.status, r.out.c_str());
  STRCMP_EQUAL("", r.out.c_str());
  std::string written, shipped;
  CHECK_OK(ssa::test::ReadFileToString(dir + "/my_opts.cfg", &written));
  CHECK_OK(
      ssa::test::ReadFileToString(std::string(ABS_TOP_SRCDIR) + "/etc/acm_opts.cfg", &shipped));
  CHECK_TRUE(written == shipped);

  // A directory that cannot be made: upstream's two messages.
  r = Run({kOurAcme, "-O", "-D", dir + "/my_opts.cfg/sub"});
  LONGS_EQUAL(255, r.status);
  STRCMP_CONTAINS("Failed to open directory ", r.out.c_str());
  STRCMP_CONTAINS("Failed to open option configuration file: ", r.out.c_str());
}
