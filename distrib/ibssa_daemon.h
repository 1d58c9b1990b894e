// ibssa_daemon.h: the ibssa daemon (man ibssa(8)): a distribution and/or
// access node of the SSA tree (doc/ssa-tree.md). The node itself is an
// IbssaMember (ibssa_member.h); the daemon reads the options file, opens
// the log, picks the umad port, opens the SSA class on it and the data
// transport (TCP or rsockets, fault wrappers when asked), and runs the loop.
//
// With metrics_file set it writes the member's metrics (IbssaMember::
// CollectMetrics) every metrics_interval seconds, on the loop thread.
//
// main() only wires this object to signals and the lock file. Threads: the
// loop thread runs everything; the worker pool computes PRDBs.
#ifndef IBACM_SSA_DISTRIB_IBSSA_DAEMON_H
#define IBACM_SSA_DISTRIB_IBSSA_DAEMON_H

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "common/base/event_loop.h"
#include "common/base/log.h"
#include "common/base/option_set.h"
#include "common/mad/mad_transport.h"
#include "common/mad/sm_lid_probe.h"
#include "common/mad/umad_ports.h"
#include "common/metrics/metrics_file.h"
#include "common/tree/stream.h"
#include "distrib/ibssa_member.h"
#include "distrib/ibssa_options.h"

namespace ssa {
namespace distrib {

class IbssaDaemon {
 public:
  struct Settings {
    std::string opts_file;
    bool opts_file_given = false;
    std::string run_dir;     // -R
    std::string log_target;  // -L
    std::string listen;      // --listen
    unsigned roles = 0;      // --role (0: the file's)
  };

  explicit IbssaDaemon(Settings settings);
  ~IbssaDaemon();

  // Reads the options file and opens the log. Any mistake in the file (an
  // unknown option, section or role, a bad value) fails it, each named
  // with its file and line; so does a file named with -O that is missing
  // and one that is there but cannot be read.
  Status Configure();
  // ibssa --check-config: reads the options exactly as Configure does,
  // prints each one's value and where it came from to `out` and the
  // errors to stderr; returns the exit status (0, or 1 on any error).
  int CheckConfig(FILE* out);
  // Picks the port, opens the SSA class and the data listener, joins.
  Status Start();
  Status Run() { return loop_.Run(); }
  void RequestStop() { loop_.Stop(); }
  // Leaves the tree and logs the counters.
  void Shutdown();

  EventLoop* loop() { return &loop_; }
  Logger* log() { return &log_; }
  const IbssaOptions& options() const { return options_; }
  // Null unless metrics_file is set (after Start).
  const metrics::MetricsFile* metrics_file() const { return metrics_.get(); }

 private:
  Status ReadOptions(std::vector<OptionValue>* values);

  Settings settings_;
  IbssaOptions options_;
  std::string defaults_note_;  // said once the log is open
  Logger log_;
  EventLoop loop_;
  UmadPort port_;
  std::unique_ptr<MadTransport> mads_;
  std::unique_ptr<tree::StreamTransport> streams_;
  std::unique_ptr<SmLidProbe> sm_probe_;  // outlives member_, which asks it
  std::unique_ptr<IbssaMember> member_;
  std::unique_ptr<metrics::MetricsFile> metrics_;  // stopped before member_ goes
  int64_t start_time_ = 0;                         // Unix seconds
};

}  // namespace distrib
}  // namespace ssa

#endif
