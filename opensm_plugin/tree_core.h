// tree_core.h: the SSA tree's core (doc/ssa-tree.md) inside OpenSM: admits
// members and assigns their parents (control MADs of class 0x2C on its own
// umad port), serves its children every SMDB version (full, then deltas)
// and the address database, and keeps the tree's state file.
//
// Threads: the core runs on its own thread with its own EventLoop; it owns
// every socket, its umad port and the membership book. OnVersion() and
// OnAddresses() are called from the extraction thread and only post the
// (immutable, shared) version to the loop: OpenSM's threads never wait on
// the core. Create/Stop on OpenSM's main thread (create()/delete()).
//
// With metrics_file set, the core's thread also writes the plugin's metrics
// (core_metrics.h) every metrics_interval seconds, idle or not.
//
// When it acts: on the first version whose SM is this OpenSM (the SMDB's
// master SM port is one of this host's ports), it opens that port for
// class 0x2C and listens for data connections; a standby OpenSM makes no
// version (it does not sweep), so its core stays idle until it is master.
// When this OpenSM stops being the master (a handover to another SM, which
// OpenSM reports to no plugin event; its port went down), the core goes
// idle again within a second: it closes its children and its listener and
// leaves the tree's joins and renewals unanswered, so that the members
// look for the master SM and join the new master's core. The class 0x2C
// agent stays registered and drained (umad2sim must never see the class
// unregistered, doc/simulated-fabric.md). Its next version as master
// starts it again.
#ifndef IBACM_SSA_OPENSM_PLUGIN_TREE_CORE_H
#define IBACM_SSA_OPENSM_PLUGIN_TREE_CORE_H

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "common/base/event_loop.h"
#include "common/base/log.h"
#include "common/base/mutex.h"
#include "common/base/status.h"
#include "common/tree/membership.h"
#include "opensm_plugin/plugin_log.h"
#include "opensm_plugin/plugin_options.h"
#include "opensm_plugin/smdb_producer.h"

namespace ssa {
namespace opensm_plugin {

class TreeCoreImpl;

class TreeCore {
 public:
  // Called (on the core's thread) when a member holds an SMDB epoch above
  // the core's: the SMDB's producer must continue after it.
  using EpochAheadFn = std::function<void(uint64_t seen)>;

  // Whether this OpenSM is the master SM now (null: always).
  using IsMasterFn = std::function<bool()>;
  // When versions were asked for and made (ExtractWorker::Activity), for
  // the tree view; called on the core's thread (null: unknown).
  using ActivityFn = std::function<tree::CoreActivity()>;

  // Starts the core's thread (idle until the first version). `log` must
  // outlive the core.
  static Status Create(const PluginOptions& options, PluginLog* log, EpochAheadFn smdb_ahead,
                       IsMasterFn is_master, ActivityFn activity, std::unique_ptr<TreeCore>* out);
  ~TreeCore();
  TreeCore(const TreeCore&) = delete;
  TreeCore& operator=(const TreeCore&) = delete;

  // A new SMDB version (from SmdbProducer), or (new_version false) the
  // current one for a core that has none yet. Any thread; never blocks.
  void OnVersion(const ProduceResult& version);
  // Whether the core serves the tree now (false before its first version as
  // master and while idle). Any thread; the owner gives an idle core the
  // current version again after a sweep that made no new one.
  bool serving() const { return serving_.load(std::memory_order_relaxed); }
  // An extraction finished, whether it made a version or not (for the
  // metrics). Any thread; never blocks.
  void OnExtraction(const ProduceResult& result);
  // Leaves the tree's members to their leases, closes everything and joins
  // the thread. Idempotent.
  void Stop();

 private:
  TreeCore() = default;

  std::unique_ptr<Logger> log_;  // lines go to the PluginLog
  std::unique_ptr<EventLoop> loop_;
  std::unique_ptr<TreeCoreImpl> impl_;  // loop thread only
  // What OnVersion/OnExtraction post to, under post_mu_: null once Stop
  // began, so a version handed over by the extraction thread during Stop
  // never reaches a core being freed.
  Mutex post_mu_;
  TreeCoreImpl* live_ GUARDED_BY(post_mu_) = nullptr;
  std::atomic<bool> serving_{false};  // written on the loop thread
  std::thread thread_;
};

}  // namespace opensm_plugin
}  // namespace ssa

#endif
