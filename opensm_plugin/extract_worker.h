// extract_worker.h: the plugin object OpenSM holds between create() and
// delete(): its options, its log, and the worker thread that turns OpenSM's
// events into SMDB versions (SmdbProducer).
//
// When to extract:
//   - SUBNET_UP: at once; the heavy sweep has finished.
//   - UCAST_ROUTING_DONE outside a heavy sweep: at once (a reroute-only
//     sweep, which ends without SUBNET_UP).
//   - LFT_CHANGE outside a heavy sweep: once no further change has come
//     for settle_ms (OpenSM reports every block, so one reroute is many
//     events). Inside a heavy sweep LFT changes are covered by the
//     SUBNET_UP that ends it, and extracting a half-routed fabric would
//     publish a version nobody should use.
// Requests that arrive while a version is being made coalesce into one
// extraction of the newest state.
//
// Threads: OnEvent() is called from OpenSM's threads (state manager, MAD
// receivers); it takes mu_ only for a few assignments and never waits for
// the worker, which holds mu_ only for bookkeeping, never across the
// extraction, the lock or I/O. Stop()/the destructor join the worker.
#ifndef IBACM_SSA_OPENSM_PLUGIN_EXTRACT_WORKER_H
#define IBACM_SSA_OPENSM_PLUGIN_EXTRACT_WORKER_H

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "common/base/mutex.h"
#include "common/base/status.h"
#include "common/tree/membership.h"
#include "opensm_plugin/plugin_log.h"
#include "opensm_plugin/plugin_options.h"
#include "opensm_plugin/smdb_producer.h"
#include "opensm_plugin/tree_core.h"

namespace ssa {
namespace opensm_plugin {

class ExtractWorker {
 public:
  // Validates the options, opens the log and the dump directory, starts
  // the thread. On error nothing is left running and the Status says why.
  // `log`, `extract` and `is_master` are given by the caller
  // (plugin_entry.cc binds them to OpenSM; TreeCore::Create says what
  // is_master is for, null: always master); the log must outlive the
  // worker.
  static Status Create(const PluginOptions& options, std::unique_ptr<PluginLog> log,
                       ExtractFn extract, std::function<bool()> is_master,
                       std::unique_ptr<ExtractWorker>* out);
  ~ExtractWorker();
  ExtractWorker(const ExtractWorker&) = delete;
  ExtractWorker& operator=(const ExtractWorker&) = delete;

  // One of osm_bridge.h's ssa_osm_event values.
  void OnEvent(int event);
  // The tree's core saw a member holding SMDB epoch `seen` from another
  // core: the worker republishes the subnet after it
  // (SmdbProducer::ContinueAfter). Any thread; never blocks.
  void ContinueAfter(uint64_t seen);
  // Asks the thread to finish the version in progress and exit; joins it.
  // Idempotent.
  void Stop();

  PluginLog* log() { return log_.get(); }
  // When a version was last asked for and last made (the tree view's
  // health facts). Any thread; takes mu_ for a copy.
  tree::CoreActivity Activity();

 private:
  using Clock = std::chrono::steady_clock;
  ExtractWorker(const PluginOptions& options, std::unique_ptr<PluginLog> log);
  void Run();

  PluginOptions options_;
  std::unique_ptr<PluginLog> log_;
  std::unique_ptr<SmdbProducer> producer_;  // used by the worker thread only
  std::unique_ptr<TreeCore> tree_;          // the SSA tree's core (core=1); own thread
  bool tree_fed_ = false;                   // worker thread only
  std::thread thread_;

  Mutex mu_;  // held only for bookkeeping
  CondVar cv_;
  bool stop_ GUARDED_BY(mu_) = false;
  bool extract_now_ GUARDED_BY(mu_) = false;
  bool extract_settled_ GUARDED_BY(mu_) = false;  // extract at settle_deadline_
  uint64_t continue_after_ GUARDED_BY(mu_) = 0;   // ContinueAfter() not yet handled (0: none)
  Clock::time_point settle_deadline_ GUARDED_BY(mu_);
  const char* reason_ GUARDED_BY(mu_) = "";  // a string literal: OnEvent must not allocate
  bool in_heavy_sweep_ GUARDED_BY(mu_) = false;
  Clock::time_point sweep_start_ GUARDED_BY(mu_);
  double sweep_ms_ GUARDED_BY(mu_) = -1;  // the last completed heavy sweep, for the log
  // Activity(): the last request (an event that asks for a version), the
  // last extraction finished, the newest epoch made.
  Clock::time_point requested_at_, extracted_at_ GUARDED_BY(mu_);
  uint64_t produced_epoch_ GUARDED_BY(mu_) = 0;
};

}  // namespace opensm_plugin
}  // namespace ssa

#endif
