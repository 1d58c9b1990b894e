// daemon.h: wires one ibacm daemon together: Config -> Logger -> EventLoop ->
// ProviderLoader/ProviderHost -> PortManager -> RequestDispatcher ->
// ClientServer. main() only parses the command line and runs a Daemon;
// tests can run a Daemon in-process (two in one process is fine: no globals).
//
// Loop thread only, apart from RequestStop(), which any thread or a signal
// handler's eventfd path may call.
#ifndef IBACM_SSA_CORE_DAEMON_H
#define IBACM_SSA_CORE_DAEMON_H

#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/base/config_file.h"
#include "common/base/event_loop.h"
#include "common/base/log.h"
#include "common/base/option_set.h"
#include "common/base/status.h"
#include "common/mad/umad_ports.h"
#include "common/metrics/metrics_file.h"
#include "core/addr_config.h"
#include "core/addr_watch/ipoib_addresses.h"
#include "core/core_model.h"
#include "core/core_options.h"
#include "core/netlink/netlink_socket.h"

namespace ssa {

class AddrWatcher;
class ClientServer;
class IpoibAddressSink;
class KernelPathService;
class LinkInfoSource;
class PortEvents;
class PortManager;
class ProviderHost;
class ProviderLoader;
class ProviderMetrics;
class ProviderSelector;
class RequestDispatcher;

class Daemon {
 public:
  struct Settings {
    std::string opts_file;     // -O; missing file = defaults (logged)
    std::string addr_file;     // -A; missing file = error when addr_file_given
    std::string run_dir;       // -R: socket, port and pid files
    std::string provider_dir;  // overrides provider_lib_path
    std::string log_target;    // overrides log_file (-L / foreground)
    bool opts_file_given = false;
    bool addr_file_given = false;
    // Socket activation (TakeSystemdSockets): the listening unix sockets
    // systemd passed are served instead of the daemon's own unix socket
    // (unix_socket, its link and acme_plus_kernel_only do not apply; the
    // files are systemd's). A TCP server_mode still listens on TCP too.
    std::vector<int> activated_fds;
    std::string activation_error;  // malformed LISTEN_* variables, logged
    // --check-config: the log goes to stderr, errors only (CheckConfig).
    bool check_only = false;
    // Test seam: where ports come from (default: libibumad).
    std::function<Status(std::vector<UmadPort>*)> discover;
    // Test seams for the kernel's services: how netlink sockets are opened
    // (default: real ones), interface facts (default: sysfs; borrowed) and
    // the IPoIB addresses read at start-up (default: getifaddrs).
    NetlinkOpenFn netlink_open;
    LinkInfoSource* links = nullptr;
    std::function<Status(std::vector<IpoibAddress>*)> list_ipoib;
  };

  explicit Daemon(Settings settings);
  ~Daemon();
  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;

  // Reads the config files and opens the log (Start() does it if needed;
  // main() calls it first to learn the lock file before anything listens).
  Status Configure();
  // Loads providers, opens ports, listens. Any mistake in the options (an
  // unknown option, section or provider, a bad value; the providers' own
  // included) fails it, every one named with its file and line.
  Status Start();
  // ibacm --check-config: reads the files and starts the providers
  // (init and fini, no port) exactly as Start() would, prints every
  // option's value and where it came from to `out`, the errors to stderr.
  // Returns the exit status: 0, or 1 on any error.
  int CheckConfig(FILE* out);
  // Serves until RequestStop().
  Status Run();
  void RequestStop() { loop_.Stop(); }
  void Shutdown();

  EventLoop* loop() { return &loop_; }
  Logger* log() { return &log_; }
  const CoreOptions& options() const { return options_; }
  const ClientServer* server() const { return server_.get(); }
  const CounterArray& counters() const { return counters_; }
  const RequestDispatcher* dispatcher() const { return dispatcher_.get(); }
  PortManager* ports() { return ports_.get(); }
  // Null when switched off in the options.
  const KernelPathService* kernel_service() const { return kernel_.get(); }
  // Null unless metrics_file is set.
  const metrics::MetricsFile* metrics_file() const { return metrics_.get(); }

 private:
  Status ReadOptions();
  // Loads the providers, checks the provider rules and sections, inits
  // the providers; their option errors fail it.
  Status StartProviders();
  Status Listen();
  // One snapshot for the metrics file (daemon_metrics.cc).
  void CollectMetrics(metrics::PromText* out);

  Settings settings_;
  Logger log_;
  EventLoop loop_;
  ConfigFile config_;
  CoreOptions options_;
  AddrConfig addrs_;
  CounterArray counters_{};
  std::unique_ptr<ProviderLoader> loader_;
  std::unique_ptr<ProviderSelector> selector_;
  std::unique_ptr<ProviderHost> host_;
  std::unique_ptr<PortManager> ports_;
  std::unique_ptr<PortEvents> port_events_;
  std::unique_ptr<RequestDispatcher> dispatcher_;
  std::unique_ptr<ClientServer> server_;
  std::unique_ptr<LinkInfoSource> sysfs_links_;
  std::unique_ptr<IpoibAddressSink> ipoib_sink_;
  std::unique_ptr<AddrWatcher> addr_watcher_;
  std::unique_ptr<KernelPathService> kernel_;
  std::unique_ptr<metrics::MetricsFile> metrics_;
  std::unique_ptr<ProviderMetrics> provider_metrics_;  // with metrics_
  int64_t start_time_ = 0;                             // Unix seconds
  std::vector<OptionValue> core_values_;               // the core's options, for CheckConfig
  Status configure_status_;
  bool configured_ = false;
  bool started_ = false;
};

}  // namespace ssa

#endif
