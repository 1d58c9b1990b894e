// ibssa_daemon.cc: see ibssa_daemon.h.
#include "config.h"

#include "distrib/ibssa_daemon.h"

#include <cinttypes>
#include <ctime>

#include "common/base/config_file.h"
#include "common/base/daemon_shell.h"
#include "common/mad/mad_faults.h"
#include "common/mad/umad_transport.h"
#include "common/tree/ssa_mad.h"
#include "common/tree/stream_faults.h"

namespace ssa {
namespace distrib {

IbssaDaemon::IbssaDaemon(Settings settings) : settings_(std::move(settings)) {}

IbssaDaemon::~IbssaDaemon() = default;

Status IbssaDaemon::Configure() {
  std::vector<std::string> warnings;
  ConfigFile cfg;
  Status st = ConfigFile::Load(settings_.opts_file, &cfg);
  if (st.ok())
    warnings = options_.Apply(cfg);
  else if (settings_.opts_file_given)
    return st.WithContext("options file");
  if (!settings_.run_dir.empty()) options_.UseRunDir(settings_.run_dir);
  if (settings_.roles) options_.roles = settings_.roles;
  if (!settings_.listen.empty()) options_.listen = settings_.listen;
  std::string target = settings_.log_target.empty() ? options_.log_file : settings_.log_target;
  log_.set_level(options_.log_level);
  DaemonShell::OpenLog(&log_, target, "ibssa");
  for (const std::string& w : warnings) log_.Log(LogLevel::kWarn, "%s", w.c_str());
  if (!st.ok()) log_.Log(LogLevel::kInfo, "no options file (%s): defaults", st.ToString().c_str());
  log_.Log(LogLevel::kInfo, "ibssa starting: %s", options_.Describe().c_str());
  return loop_.Init();
}

Status IbssaDaemon::Start() {
  Status st = UmadInitOnce();
  if (st.ok()) st = PickActivePort(options_.port, &port_);
  if (!st.ok()) return st;
  log_.Log(LogLevel::kInfo, "port %s", port_.Describe().c_str());
  auto umad = std::make_unique<UmadTransport>(port_.ca_name, port_.port_num, &log_);
  st = umad->Open(tree::kSsaClass, tree::kSsaClassVersion);
  if (!st.ok()) return st.WithContext("SSA management class");
  mads_ = std::move(umad);
  st = tree::NewStreamTransport(options_.transport, &streams_);
  // Fault injection (tests only): the seams wrap the real transports.
  if (st.ok()) st = WrapMadFaults(options_.mad_faults, &mads_);
  if (st.ok()) st = tree::WrapStreamFaults(options_.data_faults, &streams_);
  if (!st.ok()) return st;
  if (!options_.mad_faults.empty() || !options_.data_faults.empty())
    log_.Log(LogLevel::kWarn, "FAULT INJECTION on: mad_faults '%s', data_faults '%s' (tests only)",
             options_.mad_faults.c_str(), options_.data_faults.c_str());
  // Without it an SM failover is still followed on hardware (the port's
  // cached attributes change), only later; on the simulated fabric not.
  Status probe = SmLidProbe::Open(&loop_, port_.ca_name, port_.port_num, &log_, &sm_probe_);
  if (!probe.ok())
    log_.Log(LogLevel::kWarn,
             "cannot ask the port where the SM is: %s; an SM failover is followed only when "
             "the port's cached attributes change",
             probe.ToString().c_str());
  member_ = std::make_unique<IbssaMember>(&loop_, &log_, options_);
  MemberPort p;
  p.port_guid = port_.port_guid;
  p.gid_prefix = port_.gid_prefix;
  p.sm_lid = port_.sm_lid;
  p.current_sm_lid = [this] { return CurrentSmLid(port_); };
  if (sm_probe_)
    p.probe_sm_lid = [this](std::function<void(uint16_t)> done) {
      sm_probe_->AskLid(std::move(done));
    };
  st = member_->Start(p, mads_.get(), streams_.get());
  if (!st.ok() || options_.metrics_file.empty()) return st;
  start_time_ = static_cast<int64_t>(time(nullptr));
  metrics_ = std::make_unique<metrics::MetricsFile>(
      &loop_, &log_, options_.metrics_file, std::chrono::seconds(options_.metrics_interval_s),
      [this](metrics::PromText* out) {
        metrics::AddDaemonFamilies(out, "ibssa", start_time_);
        member_->CollectMetrics(out);
        metrics::AddWriteFailures(out, "ibssa", metrics_.get());
      });
  metrics_->Start();
  return st;
}

void IbssaDaemon::Shutdown() {
  // The metrics file goes first: a stopping daemon's numbers are not current.
  if (metrics_) metrics_->Stop();
  metrics_.reset();
  if (member_) member_->Stop();
  member_.reset();
  sm_probe_.reset();
}

}  // namespace distrib
}  // namespace ssa
