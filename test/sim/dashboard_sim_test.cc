// dashboard_sim_test.cc: the metrics end to end through the parts a site
// runs (issue 47): a small tree on the simulated fabric (the core in
// OpenSM, an ibssa distribution and an access node, ibacm with provider =
// ssa, and ibacm with provider = sa for the dashboard's "other providers"
// line) writes its metrics files; Debian's prometheus-node-exporter reads
// them with its textfile collector, a prometheus server scrapes it every
// second, and every query of the Grafana dashboard
// (examples/grafana/ibacm-ssa.json, read by test/sim/dashboard_queries.py,
// not copied here) returns series on this healthy, quiet tree. A failure
// names each query that returned none.
//
// The files are in two directories, each read by its own exporter, as two
// hosts would be: one host runs at most one ibacm and one ibssa, whose
// daemon-wide series (ibacm_up, ibssa_up, ...) carry no label that tells
// two of them apart, so the exporter would drop the second's and log an
// error at every scrape. The exporters must log no error.
//
// The servers run on this machine (not as nodes), each on a free port of
// 127.0.0.1 with its files in the test's directory, and are stopped in
// teardown however the test ends (and, as every child of the harness,
// killed if the test program dies). Without them installed the test says
// so in one line and passes. Waits poll until a bound; none paces the test.
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "common/base/big_endian.h"
#include "test/sim/ibacm_node.h"
#include "test/sim/osm_plugin_util.h"
#include "test/sim/sim_child.h"
#include "test/sim/sim_test_util.h"
#include "test/sim/sim_util.h"
#include "test/sim/tree_fixture.h"
#include "test/sim/tree_harness.h"
#include "test/support/check_ok.h"
#include "test/support/loopback.h"
#include "test/support/poll.h"

#include "CppUTest/TestHarness.h"

using namespace std::chrono_literals;
using ssa::Status;
using ssa::test::IbacmNode;
using ssa::test::TreeHarness;

namespace {

const char kExporter[] = "prometheus-node-exporter";
const char kPrometheus[] = "prometheus";

// A port of 127.0.0.1 nobody listens on now (the kernel's choice); the
// server given it may still lose it to another program, which Serve()
// notices and retries.
int FreeLoopbackPort() {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in a = {};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = ssa::ToBe32(INADDR_LOOPBACK);
  socklen_t len = sizeof(a);
  int port = -1;
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ssa::FromBe16(a.sin_port);
  close(fd);
  return port;
}

// One server (the exporter, prometheus) run as a child of the test: its
// output in `log`, stopped by Stop() or the destructor.
class Server {
 public:
  Server(std::string name, std::string log) : name_(std::move(name)), log_(std::move(log)) {}
  ~Server() { Stop(); }
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Runs `argv` plus `listen_flag`=127.0.0.1:PORT on a free port; returns
  // once it accepts connections there. A port taken by someone else in
  // between is tried again with another one.
  Status Serve(const std::vector<std::string>& argv, const std::string& listen_flag) {
    for (int attempt = 0; attempt < 3; ++attempt) {
      port_ = FreeLoopbackPort();
      if (port_ <= 0) return Status::Error(EADDRNOTAVAIL, "no free port on 127.0.0.1");
      ssa::test::LaunchSpec spec;
      spec.argv = argv;
      spec.argv.push_back(listen_flag + "=127.0.0.1:" + std::to_string(port_));
      spec.output_path = log_;
      Status st = ssa::test::LaunchChild(spec, &pid_);
      if (!st.ok()) return st;
      int wait_status = 0;
      bool exited = false;
      bool up = ssa::test::PollUntil(30s, [&] {
        int fd = ssa::test::ConnectLoopback(port_);
        if (fd >= 0) close(fd);
        exited = fd < 0 && ssa::test::TryReap(pid_, &wait_status);
        return fd >= 0 || exited;
      });
      if (up && !exited) return Status::Ok();
      std::string said = ssa::test::TailOfFile(log_);
      if (!exited) {
        Stop();
        return Status::Error(ETIMEDOUT, name_ + " did not listen on port " + std::to_string(port_) +
                                            " in time:\n" + said);
      }
      pid_ = -1;
      if (said.find("address already in use") == std::string::npos)
        return Status::Error(
            EIO, name_ + " " + ssa::test::DescribeWaitStatus(wait_status) + ":\n" + said);
    }
    return Status::Error(EADDRINUSE, name_ + ": every port tried was taken");
  }
  void Stop() {
    if (pid_ > 0) ssa::test::TerminateChild(pid_, true, 10s);
    pid_ = -1;
  }
  std::string Address() const { return "127.0.0.1:" + std::to_string(port_); }

 private:
  std::string name_;
  std::string log_;
  pid_t pid_ = -1;
  int port_ = -1;
};

}  // namespace

TEST_GROUP_BASE(DashboardSim, ssa::test::TreeFixture) {
  std::unique_ptr<IbacmNode> sa_ibacm;  // provider = sa, on Hca7
  std::unique_ptr<Server> exporters[2], prometheus;

  void teardown() override {
    // The servers first (they only read), then the daemons, then the tree.
    prometheus.reset();
    for (auto& e : exporters) e.reset();
    Status sa_st = sa_ibacm ? sa_ibacm->Stop() : Status::Ok();
    sa_ibacm.reset();
    TreeFixture::teardown();
    CHECK_OK(sa_st);
  }

  // Host `h`'s (0, 1) directory of metrics files, which its exporter reads.
  std::string MetricsDir(int h) { return dir.path() + "/metrics" + std::to_string(h); }

  // An ibacm on `node` serving its port with `provider` (whose module is in
  // providers/<provider>/.libs), its metrics in `file`.
  std::unique_ptr<IbacmNode> StartIbacm(const std::string& node, const std::string& provider,
                                        const std::string& file, const std::string& more) {
    IbacmNode::Options io;
    io.node = node;
    const std::string n = node.substr(3);  // "Hca6" -> "6"
    io.addr_cfg = "node" + n + " ibsim0 1 default\n10.0.0." + n + " ibsim0 1 default\n";
    io.opts_cfg = "[core]\nlog_level = info\nprovider = " + provider +
                  " default\nsupport_ips_in_addr_cfg = yes\nmetrics_file = " + file +
                  "\nmetrics_interval = 1\n" + more;
    io.provider_dir = std::string(ABS_TOP_BUILDDIR) + "/providers/" + provider + "/.libs";
    auto daemon = std::make_unique<IbacmNode>(tree->fabric(), io);
    CHECK_OK(daemon->Start());
    return daemon;
  }
};

TEST(DashboardSim, EveryQueryOfTheGrafanaDashboardReturnsSeriesThroughNodeExporterAndPrometheus) {
  const std::string exporter_bin = ssa::test::FindProgram(kExporter);
  const std::string prometheus_bin = ssa::test::FindProgram(kPrometheus);
  if (exporter_bin.empty() || prometheus_bin.empty()) {
    UT_PRINT("prometheus-node-exporter or prometheus not installed: skipped");
    return;
  }
  CHECK_OK(dir.status());
  for (int h : {0, 1}) CHECK_EQUAL(0, mkdir(MetricsDir(h).c_str(), 0755));

  // The tree, every part writing its metrics every second: the core, the
  // distribution node and ibacm with ssa on host 0, the access node and
  // ibacm with sa on host 1.
  TreeHarness::Options o;
  CHECK_OK(TreeHarness::FatTree(12, 0, &o));
  o.extra_plugin_options = " metrics_file=" + MetricsDir(0) + "/ibssa_osm.prom metrics_interval=1";
  CHECK_OK(tree->Start(o));
  CHECK_OK(
      tree->StartIbssa("Hca2", "distribution",
                       "metrics_file = " + MetricsDir(0) + "/ibssa.prom\nmetrics_interval = 1\n"));
  CHECK_OK(tree->StartIbssa(
      "Hca4", "access", "metrics_file = " + MetricsDir(1) + "/ibssa.prom\nmetrics_interval = 1\n"));
  ibacm = StartIbacm("Hca6", "ssa", MetricsDir(0) + "/ibacm.prom", "[ssa]\nfallback = sa\n");
  sa_ibacm = StartIbacm("Hca7", "sa", MetricsDir(1) + "/ibacm.prom", "");
  CHECK_OK(ibacm->WaitPrdbEpoch(tree->smdb().global_epoch, 30s));

  // The exporters: the textfile collector only.
  std::string targets;
  for (int h : {0, 1}) {
    exporters[h] = std::make_unique<Server>(
        kExporter, dir.path() + "/node-exporter" + std::to_string(h) + ".log");
    CHECK_OK(
        exporters[h]->Serve({exporter_bin, "--collector.disable-defaults", "--collector.textfile",
                             "--collector.textfile.directory=" + MetricsDir(h),
                             "--web.disable-exporter-metrics", "--log.level=warn"},
                            "--web.listen-address"));
    targets += std::string(h ? ", " : "") + "'" + exporters[h]->Address() + "'";
  }
  // Prometheus scraping them every second, its storage in the test's directory.
  const std::string config = dir.path() + "/prometheus.yml";
  CHECK_OK(ssa::test::WriteStringToFile(config,
                                        "global:\n"
                                        "  scrape_interval: 1s\n"
                                        "  evaluation_interval: 1s\n"
                                        "scrape_configs:\n"
                                        "  - job_name: ibacm-ssa\n"
                                        "    static_configs:\n"
                                        "      - targets: [" +
                                            targets + "]\n"));
  prometheus = std::make_unique<Server>(kPrometheus, dir.path() + "/prometheus.log");
  CHECK_OK(prometheus->Serve({prometheus_bin, "--config.file=" + config,
                              "--storage.tsdb.path=" + dir.path() + "/tsdb", "--log.level=warn"},
                             "--web.listen-address"));

  // Every query, until each returns series (rate() and increase() need two
  // samples of a series: two scrapes after the files are there).
  const std::vector<std::string> run = {"/usr/bin/python3", DASHBOARD_QUERIES, DASHBOARD_JSON,
                                        "http://" + prometheus->Address()};
  std::string out;
  int rc = -1;
  bool all = ssa::test::PollUntil(90s, [&] {
    CHECK_OK(ssa::test::RunLocal(run, {}, &out, &rc));
    return rc == 0;
  });
  CHECK_TEXT(all, ("queries without series, as the last pass found them:\n" + out).c_str());
  UT_PRINT(out.c_str());
  // Every file read, every series kept: the exporters logged no error.
  for (int h : {0, 1}) {
    std::string log =
        ssa::test::ReadFileText(dir.path() + "/node-exporter" + std::to_string(h) + ".log");
    CHECK_TEXT(log.find("level=error") == std::string::npos, log.c_str());
  }
}
