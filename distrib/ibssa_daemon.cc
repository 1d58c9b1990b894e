// ibssa_daemon.cc: see ibssa_daemon.h.
#include "config.h"

#include "distrib/ibssa_daemon.h"

#include <unistd.h>

#include <cinttypes>
#include <ctime>

#include "common/base/config_file.h"
#include "common/base/daemon_shell.h"
#include "common/base/option_set.h"
#include "common/mad/mad_faults.h"
#include "common/mad/umad_transport.h"
#include "common/tree/ssa_mad.h"
#include "common/tree/stream_faults.h"

namespace ssa {
namespace distrib {

IbssaDaemon::IbssaDaemon(Settings settings) : settings_(std::move(settings)) {}

IbssaDaemon::~IbssaDaemon() = default;

Status IbssaDaemon::ReadOptions(std::vector<OptionValue>* values) {
  OptionSet set;
  options_.Bind(&set);
  ConfigFile cfg;
  std::vector<std::string> errors;
  // Only a default file that is absent means defaults: one named with -O,
  // or one that is there but cannot be read, is an error.
  bool absent = !settings_.opts_file_given && access(settings_.opts_file.c_str(), F_OK) != 0;
  if (!absent) {
    Status st = ConfigFile::Load(settings_.opts_file, &cfg);
    if (!st.ok()) return st.WithContext("options file");
    errors = NoteTexts(options_.Read(cfg, &set));
  }
  if (!settings_.run_dir.empty()) {
    options_.UseRunDir(settings_.run_dir);
    set.SetSource("lock_file", "command line -R");
  }
  if (settings_.roles) {
    options_.roles = settings_.roles;
    set.SetSource("role", "command line --role");
  }
  if (!settings_.listen.empty()) {
    options_.listen = settings_.listen;
    set.SetSource("listen", "command line --listen");
  }
  if (!settings_.log_target.empty()) {
    options_.log_file = settings_.log_target;
    set.SetSource("log_file", "command line -L");
  }
  if (values) *values = set.Values();
  if (!errors.empty()) return OptionErrors(errors);
  if (absent)
    defaults_note_ = "no options file " + settings_.opts_file + "; every option keeps its default";
  return Status::Ok();
}

Status IbssaDaemon::Configure() {
  Status st = ReadOptions(nullptr);
  if (!st.ok()) return st;
  log_.set_level(options_.log_level);
  DaemonShell::OpenLog(&log_, options_.log_file, "ibssa");
  if (!defaults_note_.empty()) log_.Log(LogLevel::kInfo, "%s", defaults_note_.c_str());
  log_.Log(LogLevel::kInfo, "ibssa starting: %s", options_.Describe().c_str());
  return loop_.Init();
}

int IbssaDaemon::CheckConfig(FILE* out) {
  std::vector<OptionValue> values;
  Status st = ReadOptions(&values);
  fprintf(out, "# ibssa --check-config: options %s\n", settings_.opts_file.c_str());
  PrintOptionValues(out, "ibssa", values);
  return FinishCheck(out, "ibssa", st, "the daemon would not start");
}

Status IbssaDaemon::Start() {
  Status st = UmadInitOnce();
  if (st.ok()) st = PickActivePort(options_.port, &port_);
  if (!st.ok())
    return WithOffFabricHint(st,
                             "ibssa joins the tree through a local port: run it on a node of the "
                             "fabric (ssa-tree --state FILE shows the tree from anywhere)");
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
