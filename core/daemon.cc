// daemon.cc: start-up order and shutdown order of the ibacm daemon.
#include "config.h"

#include "core/daemon.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>

#include "common/base/daemon_shell.h"
#include "common/base/nearest_word.h"
#include "common/base/option_registry.h"
#include "common/base/option_set.h"
#include "core/addr_watch/addr_watcher.h"
#include "core/client_server.h"
#include "core/kernel_ls/kernel_path_service.h"
#include "core/port_events.h"
#include "core/port_manager.h"
#include "core/provider_host.h"
#include "core/provider_loader.h"
#include "core/provider_metrics.h"
#include "core/provider_selector.h"
#include "core/request_dispatcher.h"

namespace ssa {

namespace {

// The address watcher's changes go to the port manager's endpoints.
class PortManagerIpoibSink : public IpoibAddressSink {
 public:
  explicit PortManagerIpoibSink(PortManager* ports) : ports_(ports) {}
  bool AddIpoib(const IpoibAddress& addr, int* endpoints) override {
    return ports_->AddIpoibAddress(addr, endpoints);
  }
  bool RemoveIpoib(int ifindex, const ssa_address& addr, int* endpoints) override {
    return ports_->RemoveIpoibAddress(ifindex, addr, endpoints);
  }
  Status RereadIpoib(int* added, int* removed) override {
    return ports_->RereadIpoibAddresses(added, removed);
  }

 private:
  PortManager* ports_;
};

// The client server's limits from the options. The log says what they
// came to and why: a connection limit nobody set is the descriptor limit
// less a reserve, which operators should know when clients are refused.
ClientServer::Limits ClientLimits(const CoreOptions& o, Logger* log) {
  ClientServer::Limits limits;
  limits.client_timeout = std::chrono::milliseconds(o.client_timeout_ms);
  limits.read_budget = static_cast<size_t>(o.client_read_budget);
  limits.max_inflight = static_cast<size_t>(o.client_max_inflight);
  struct rlimit rl = {};
  bool known = getrlimit(RLIMIT_NOFILE, &rl) == 0;
  uint64_t fd_limit = known ? static_cast<uint64_t>(rl.rlim_cur) : RLIM_INFINITY;
  size_t fits = ClientServer::DefaultMaxClients(fd_limit);
  std::string why;
  if (o.max_clients > 0) {
    limits.max_clients = static_cast<size_t>(o.max_clients);
    why = "max_clients";
    if (fits && limits.max_clients > fits)
      SSA_LOG(*log, kWarn,
              "max_clients %zu leaves the daemon fewer than %llu of its %llu descriptors "
              "(RLIMIT_NOFILE): with that many clients its own files and sockets may fail",
              limits.max_clients, static_cast<unsigned long long>(ClientServer::kReservedFds),
              static_cast<unsigned long long>(fd_limit));
  } else if (fits) {
    limits.max_clients = fits;
    why = "the descriptor limit (RLIMIT_NOFILE) " + std::to_string(fd_limit) + " less " +
          std::to_string(fd_limit - fits) + " kept for the daemon's own; max_clients sets another";
  } else {
    why = "no descriptor limit; max_clients sets one";
  }
  if (limits.max_clients)
    SSA_LOG(*log, kInfo,
            "clients: at most %zu at once (%s); each has %zu messages a turn and %zu requests "
            "in flight at most",
            limits.max_clients, why.c_str(), limits.read_budget, limits.max_inflight);
  else
    SSA_LOG(*log, kInfo,
            "clients: no limit (%s); each has %zu messages a turn and %zu requests in flight at "
            "most",
            why.c_str(), limits.read_budget, limits.max_inflight);
  return limits;
}

}  // namespace

Daemon::Daemon(Settings settings) : settings_(std::move(settings)) {}

Daemon::~Daemon() { Shutdown(); }

Status Daemon::Configure() {
  if (configured_) return configure_status_;
  configured_ = true;
  configure_status_ = ReadOptions();
  return configure_status_;
}

Status Daemon::ReadOptions() {
  std::vector<std::string> errors;
  OptionSet set;
  options_.Bind(&set);
  if (!settings_.opts_file.empty()) options_.opts_file = settings_.opts_file;
  // A file that is there but cannot be read is a mistake, like a missing
  // one named with -O; only a default file that is absent means defaults.
  if (settings_.opts_file_given || access(options_.opts_file.c_str(), F_OK) == 0) {
    Status st = ConfigFile::Load(options_.opts_file, &config_);
    if (!st.ok()) return st;
    errors = NoteTexts(options_.Read(config_, &set));
  }
  if (!settings_.run_dir.empty()) {
    options_.UseRunDir(settings_.run_dir);
    for (const char* key : {"unix_socket", "port_file", "lock_file"})
      set.SetSource(key, "command line -R");
  }
  if (!settings_.provider_dir.empty()) {
    options_.provider_lib_path = settings_.provider_dir;
    set.SetSource("provider_lib_path", "command line --provider-dir");
  }
  if (!settings_.addr_file.empty()) {
    options_.addr_file = settings_.addr_file;
    set.SetSource("addr_file", "command line -A");
  }
  if (!settings_.log_target.empty()) {
    options_.log_file = settings_.log_target;
    set.SetSource("log_file", "command line -L");
  }
  core_values_ = set.Values();

  LogLevel level;
  if (settings_.check_only) {
    log_.Open("stderr", "ibacm");  // a check writes no log file
    log_.set_level(LogLevel::kError);
  } else {
    if (ParseLogLevel(options_.log_level, &level)) log_.set_level(level);
    DaemonShell::OpenLog(&log_, options_.log_file, "ibacm");
  }
  SSA_LOG(log_, kInfo, "ibacm-ssa " PACKAGE_VERSION " starting (pid %d)",
          static_cast<int>(getpid()));
  if (config_.name().empty())
    SSA_LOG(log_, kInfo, "no options file %s; every option keeps its default",
            options_.opts_file.c_str());
  else
    SSA_LOG(log_, kInfo, "options from %s (%s format)", config_.name().c_str(),
            config_.format() == ConfigFile::Format::kUpstream ? "upstream ibacm_opts.cfg" : "INI");
  if (!errors.empty()) return OptionErrors(errors);
  if (!settings_.activation_error.empty())
    SSA_LOG(log_, kWarn, "%s", settings_.activation_error.c_str());

  Status st;
  if (access(options_.addr_file.c_str(), R_OK) == 0) {
    st = AddrConfig::Load(options_.addr_file, options_.support_ips_in_addr_cfg, &addrs_);
    if (!st.ok()) return st;
    for (const auto& w : addrs_.warnings) SSA_LOG(log_, kWarn, "%s", w.c_str());
    SSA_LOG(log_, kInfo, "%zu addresses from %s", addrs_.entries.size(),
            options_.addr_file.c_str());
  } else if (settings_.addr_file_given) {
    // -A names the file the user wants: serving host-named endpoints
    // instead would hide the mistake.
    st = Status::FromErrno("cannot read address file " + options_.addr_file);
    SSA_LOG(log_, kError, "%s", st.ToString().c_str());
    return st;
  } else {
    SSA_LOG(log_, kWarn, "cannot read address file %s (%s); endpoints are named after the host",
            options_.addr_file.c_str(), strerror(errno));
  }
  return Status::Ok();
}

Status Daemon::Listen() {
  if (!settings_.activated_fds.empty()) {
    // A descriptor we cannot serve is a mistake in the socket unit: logged
    // and closed, the others served. With none left start-up fails, rather
    // than putting a socket of our own where systemd's should be.
    size_t served = 0;
    for (int fd : settings_.activated_fds) {
      Status st = server_->AdoptUnix(fd);
      if (st.ok()) {
        ++served;
      } else {
        SSA_LOG(log_, kError, "socket activation: %s; closing it", st.ToString().c_str());
        close(fd);
      }
    }
    settings_.activated_fds.clear();  // the server owns the served ones now
    if (served == 0)
      return Status::Error(EINVAL, "socket activation: systemd passed no listening unix socket");
    if (options_.server_mode == "unix") return Status::Ok();
  } else if (options_.server_mode == "unix") {
    return server_->ListenUnix(options_.unix_socket_path,
                               options_.acme_plus_kernel_only ? "" : options_.unix_socket_link);
  }
  return server_->ListenTcp(options_.server_port, options_.server_mode == "loop",
                            options_.port_file,
                            options_.acme_plus_kernel_only ? "" : options_.port_file_link);
}

Status Daemon::Start() {
  Status st = Configure();
  if (!st.ok()) return st;
  st = loop_.Init();
  if (!st.ok()) return st;

  st = StartProviders();
  if (!st.ok()) return st;

  ports_ = std::make_unique<PortManager>(&loop_, &log_, host_.get(), selector_.get(), &options_,
                                         &addrs_);
  if (settings_.discover) ports_->set_discover_fn(settings_.discover);
  if (settings_.list_ipoib) ports_->set_list_ipoib_fn(settings_.list_ipoib);
  dispatcher_ = std::make_unique<RequestDispatcher>(&log_, host_.get(), ports_.get(), &counters_);
  server_ = std::make_unique<ClientServer>(&loop_, &log_, dispatcher_.get());
  server_->set_limits(ClientLimits(options_, &log_));
  dispatcher_->set_server(server_.get());
  NetlinkOpenFn netlink_open = settings_.netlink_open ? settings_.netlink_open : OpenNetlinkSocket;
  // Subscribed before the start-up read of the addresses, so that none
  // added in between is missed (one seen twice is added once).
  if (options_.addr_watch) {
    LinkInfoSource* links = settings_.links;
    if (!links) {
      sysfs_links_ = std::make_unique<SysfsLinkInfo>();
      links = sysfs_links_.get();
    }
    ipoib_sink_ = std::make_unique<PortManagerIpoibSink>(ports_.get());
    addr_watcher_ = std::make_unique<AddrWatcher>(&loop_, &log_, links, ipoib_sink_.get());
    addr_watcher_->Start(netlink_open);
  } else {
    SSA_LOG(log_, kInfo, "addr_watch off: IPoIB addresses are read at start-up only");
  }
  if (!settings_.discover) SetUmadDebugLevel(options_.umad_debug_level);
  st = ports_->Start();
  if (!st.ok())
    return WithOffFabricHint(st,
                             "ibacm serves the ports of the node it runs on: run it on a node of "
                             "the fabric (ib_acme --verify daemon checks a running one)");
  if (options_.kernel_path_service) {
    KernelPathService::Options kopts;
    kopts.timeout_ms = static_cast<uint32_t>(options_.kernel_path_timeout_ms);
    kernel_ = std::make_unique<KernelPathService>(&loop_, &log_, dispatcher_.get(), kopts);
    kernel_->Start(netlink_open);
  } else {
    SSA_LOG(log_, kInfo, "kernel_path_service off: the kernel's path requests go to the SA");
  }
  if (!settings_.discover) {  // real ports: hardware events trigger re-reads
    port_events_ = std::make_unique<PortEvents>(
        &loop_, &log_,
        [this](const std::vector<PortEventNote>& notes) { ports_->HandleEvents(notes); });
    port_events_->Start();
  }
  st = Listen();
  if (!st.ok()) return st;
  start_time_ = static_cast<int64_t>(time(nullptr));
  if (!options_.metrics_file.empty()) {
    provider_metrics_ = std::make_unique<ProviderMetrics>(&log_);
    metrics_ = std::make_unique<metrics::MetricsFile>(
        &loop_, &log_, options_.metrics_file, std::chrono::seconds(options_.metrics_interval_s),
        [this](metrics::PromText* out) { CollectMetrics(out); });
    metrics_->Start();
  }
  started_ = true;
  SSA_LOG(log_, kInfo, "ready: %zu endpoints, %zu providers", ports_->endpoint_count(),
          host_->instances().size());
  return Status::Ok();
}

Status Daemon::StartProviders() {
  std::vector<std::string> errors;
  loader_ = std::make_unique<ProviderLoader>(&log_);
  Status st = loader_->LoadDirectory(options_.provider_lib_path);
  if (!st.ok()) return st.WithContext("provider_lib_path");
  std::vector<const LoadedProvider*> loaded;
  std::vector<std::string> names;
  for (const auto& lp : loader_->providers()) {
    loaded.push_back(lp.get());
    names.push_back(lp->name());
  }
  if (loaded.empty())
    SSA_LOG(log_, kWarn, "no provider loaded from %s: every resolve will fail",
            options_.provider_lib_path.c_str());
  const std::string known = names.empty() ? "none" : WordList(names);

  selector_ = std::make_unique<ProviderSelector>();
  for (const ProviderRuleLine& rule : options_.provider_rules) {
    st = selector_->AddRule(rule.value);
    if (!st.ok()) {
      errors.push_back(rule.where + ": " + st.message());
      continue;
    }
    const ProviderSelector::Rule& added = selector_->rules().back();
    if (!added.upstream_name.empty())
      SSA_LOG(log_, kInfo, "%s: provider '%s' is upstream ibacm's name for our %s",
              rule.where.c_str(), added.upstream_name.c_str(), added.provider.c_str());
    if (std::find(names.begin(), names.end(), added.provider) == names.end())
      errors.push_back(rule.where + ": unknown provider '" + added.provider + "' (loaded from " +
                       options_.provider_lib_path + ": " + known + ")" +
                       DidYouMean(added.provider, names));
  }
  // An INI section nobody reads would be ignored: a typo in its name.
  if (config_.format() == ConfigFile::Format::kIni) {
    std::vector<std::string> sections = option_registry::Readers();
    sections.insert(sections.end(), names.begin(), names.end());
    for (const std::string& section : config_.SectionNames()) {
      if (section.empty() || std::find(sections.begin(), sections.end(), section) != sections.end())
        continue;
      errors.push_back(config_.name() + ":" +
                       std::to_string(config_.Section(section).front().line) +
                       ": unknown section [" + section + "] (readers: " + WordList(sections) + ")" +
                       DidYouMean(section, sections));
    }
  }

  host_ = std::make_unique<ProviderHost>(&loop_, &log_, &config_, &counters_);
  // Under socket activation systemd listens on the same configured path.
  if (options_.server_mode == "unix") host_->set_client_socket(options_.unix_socket_path);
  host_->Start(loaded);
  for (const std::string& e : host_->config_errors()) errors.push_back(e);
  if (!errors.empty()) return OptionErrors(errors);
  // Without an explicit default the first provider serves every port, as
  // upstream's first loaded provider did.
  if (selector_->default_provider().empty() && !host_->instances().empty())
    selector_->SetDefault(host_->instances().front()->name());
  return Status::Ok();
}

int Daemon::CheckConfig(FILE* out) {
  Status st = Configure();
  const std::string file =
      config_.name().empty() ? options_.opts_file + " (absent)" : config_.name();
  fprintf(out, "# ibacm --check-config: options %s, addresses %s\n", file.c_str(),
          options_.addr_file.c_str());
  if (!core_values_.empty()) PrintOptionValues(out, "core", core_values_);
  if (st.ok()) st = loop_.Init();
  if (st.ok()) {
    st = StartProviders();
    if (host_) {
      for (ProviderInstance* inst : host_->instances())
        PrintOptionValues(out, inst->name(), inst->config_values());
      host_->Stop();
    }
  }
  return FinishCheck(out, "ibacm", st, "the daemon would not start");
}

Status Daemon::Run() { return loop_.Run(); }

void Daemon::Shutdown() {
  // Clients first (no new requests), then ports (providers close their
  // endpoints), then providers (answer what is pending, fini), then unload.
  // The metrics file goes first: a stopping daemon's numbers are not current.
  if (metrics_) metrics_->Stop();
  metrics_.reset();
  if (server_) server_->Shutdown();
  // The kernel's open requests get an error now (it then asks the SA); the
  // service stays until the providers' last answers are dropped.
  if (kernel_) kernel_->Stop();
  if (addr_watcher_) addr_watcher_->Stop();
  port_events_.reset();
  if (ports_) ports_->Stop();
  if (host_) host_->Stop();
  kernel_.reset();
  addr_watcher_.reset();
  ipoib_sink_.reset();
  dispatcher_.reset();
  server_.reset();
  ports_.reset();
  host_.reset();
  loader_.reset();
  if (started_) SSA_LOG(log_, kInfo, "stopped");
  started_ = false;
}

}  // namespace ssa
