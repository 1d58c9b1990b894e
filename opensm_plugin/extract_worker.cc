// extract_worker.cc: ExtractWorker (see extract_worker.h).
#include "opensm_plugin/extract_worker.h"

#include <algorithm>
#include <exception>
#include <new>
#include <system_error>

#include "opensm_plugin/osm_bridge.h"

namespace ssa {
namespace opensm_plugin {

ExtractWorker::ExtractWorker(const PluginOptions& options, std::unique_ptr<PluginLog> log)
    : options_(options), log_(std::move(log)) {}

Status ExtractWorker::Create(const PluginOptions& options, std::unique_ptr<PluginLog> log,
                             ExtractFn extract, std::function<bool()> is_master,
                             std::unique_ptr<ExtractWorker>* out) {
  std::unique_ptr<ExtractWorker> w(new ExtractWorker(options, std::move(log)));
  Status st = w->log_->OpenFile(options.log_file, options.log_level);
  if (!st.ok()) {
    if (options.log_file_given) return st.WithContext("log_file");
    // The default file may simply not be writable (OpenSM not run as
    // root): carry on with OpenSM's log alone.
    w->log_->Warn("no log file of its own: " + st.ToString());
  }
  std::unique_ptr<VersionStore> store;
  if (!options.dump_dir.empty()) {
    store.reset(new VersionStore);
    st = VersionStore::Open(options.dump_dir, options.keep, store.get());
    if (!st.ok()) return st.WithContext("dump_dir");
  }
  w->producer_.reset(
      new SmdbProducer(options, std::move(store), std::move(extract), w->log_.get()));
  if (options.core) {
    ExtractWorker* self = w.get();
    st = TreeCore::Create(
        options, w->log_.get(), [self](uint64_t seen) { self->ContinueAfter(seen); },
        std::move(is_master), [self] { return self->Activity(); }, &w->tree_);
    if (!st.ok()) return st.WithContext("the SSA tree's core");
  }
  try {
    w->thread_ = std::thread(&ExtractWorker::Run, w.get());
  } catch (const std::system_error& e) {
    return Status::Error(e.code().value(),
                         std::string("cannot start the worker thread: ") + e.what());
  }
  *out = std::move(w);
  return Status::Ok();
}

ExtractWorker::~ExtractWorker() { Stop(); }

void ExtractWorker::Stop() {
  if (tree_) tree_->Stop();
  {
    MutexLock lock(&mu_);
    stop_ = true;
  }
  cv_.NotifyAll();
  if (thread_.joinable()) thread_.join();
}

void ExtractWorker::OnEvent(int event) {
  Clock::time_point now = Clock::now();
  {
    MutexLock lock(&mu_);
    switch (event) {
      case SSA_EV_HEAVY_SWEEP_START:
        in_heavy_sweep_ = true;
        sweep_start_ = now;
        break;
      case SSA_EV_SUBNET_UP:
        if (in_heavy_sweep_)
          sweep_ms_ = std::chrono::duration<double, std::milli>(now - sweep_start_).count();
        in_heavy_sweep_ = false;
        extract_now_ = true;
        extract_settled_ = false;  // this extraction covers the LFT changes too
        reason_ = "SUBNET_UP";
        requested_at_ = now;
        break;
      case SSA_EV_UCAST_ROUTING_DONE:
        if (in_heavy_sweep_) return;  // SUBNET_UP follows
        extract_now_ = true;
        extract_settled_ = false;
        reason_ = "reroute";
        requested_at_ = now;
        break;
      case SSA_EV_LFT_CHANGE:
        if (in_heavy_sweep_) return;
        extract_settled_ = true;
        settle_deadline_ = now + std::chrono::milliseconds(options_.settle_ms);
        if (!extract_now_) reason_ = "LFT change";
        requested_at_ = now;
        break;
      case SSA_EV_STATE_CHANGE:
        // A sweep that ends in STANDBY or DISCOVERING never reports
        // SUBNET_UP: stop treating LFT changes as part of it.
        in_heavy_sweep_ = false;
        return;
      default: return;
    }
  }
  cv_.NotifyOne();
}

tree::CoreActivity ExtractWorker::Activity() {
  MutexLock lock(&mu_);
  tree::CoreActivity a;
  a.requested = requested_at_;
  a.extracted = extracted_at_;
  a.produced_epoch = produced_epoch_;
  return a;
}

void ExtractWorker::ContinueAfter(uint64_t seen) {
  {
    MutexLock lock(&mu_);
    if (seen <= continue_after_) return;
    continue_after_ = seen;
  }
  cv_.NotifyOne();
}

namespace {

// Logging in a handler must not throw in turn (out of memory again).
void LogFailure(PluginLog* log, const char* what, const char* detail) noexcept {
  try {
    log->Error(std::string(what) + detail);
  } catch (...) {
  }
}

}  // namespace

void ExtractWorker::Run() {
  // Nothing may escape this thread: an exception here would terminate
  // OpenSM.
  try {
    producer_->LoadPrevious();
  } catch (const std::exception& e) {
    LogFailure(log_.get(), "loading the previous version: ", e.what());
  } catch (...) {
    LogFailure(log_.get(), "loading the previous version failed", "");
  }
  mu_.Lock();
  for (;;) {
    if (stop_) break;
    if (continue_after_) {
      uint64_t seen = continue_after_;
      continue_after_ = 0;
      mu_.Unlock();
      try {
        ProduceResult r = producer_->ContinueAfter(seen);
        if (tree_ && r.new_version) tree_->OnVersion(r);
        MutexLock relock(&mu_);
        produced_epoch_ = std::max(produced_epoch_, r.epoch);
      } catch (const std::exception& e) {
        LogFailure(log_.get(), "renumbering the version failed: ", e.what());
      }
      mu_.Lock();
      continue;
    }
    bool due = extract_now_ || (extract_settled_ && Clock::now() >= settle_deadline_);
    if (!due) {
      if (extract_settled_)
        cv_.WaitUntil(&mu_, settle_deadline_);
      else
        cv_.Wait(&mu_);
      continue;
    }
    const char* reason = reason_;
    double sweep_ms = extract_now_ ? sweep_ms_ : -1;
    extract_now_ = false;
    extract_settled_ = false;
    sweep_ms_ = -1;
    mu_.Unlock();
    try {
      ProduceResult r = producer_->Produce(reason, sweep_ms);
      if (tree_ && r.route_sl_state >= 0) tree_->OnExtraction(r);
      // The tree serves every new version; after a restart whose first
      // extraction changed nothing, the version reloaded from disk.
      if (tree_) {
        // An unchanged subnet makes no version: the core gets the current
        // one when it has none yet, or went idle (not master for a while).
        if (r.new_version)
          tree_->OnVersion(r);
        else if ((!tree_fed_ || !tree_->serving()) && producer_->CurrentVersion(&r))
          tree_->OnVersion(r);
        tree_fed_ = tree_fed_ || r.db != nullptr;
      }
      // Finished (changed or not): the request it answered is done.
      if (r.route_sl_state >= 0) {
        MutexLock relock(&mu_);
        extracted_at_ = Clock::now();
        produced_epoch_ = std::max(produced_epoch_, r.epoch);
      }
    } catch (const std::bad_alloc&) {
      LogFailure(log_.get(), "out of memory making a version", "; waiting for the next event");
    } catch (const std::exception& e) {
      LogFailure(log_.get(), "making a version failed: ", e.what());
    } catch (...) {
      LogFailure(log_.get(), "making a version failed", "");
    }
    mu_.Lock();
  }
  mu_.Unlock();
}

}  // namespace opensm_plugin
}  // namespace ssa
