// plugin_entry.cc: the C functions osm_entry.c forwards OpenSM's calls to
// (osm_bridge.h). This is the C/C++ boundary: every exception stops here,
// since one unwinding into OpenSM's C frames would abort the SM.
//
// Ownership: create() returns a heap ExtractWorker that OpenSM holds as
// its opaque plugin data until delete(). Threads: create and delete on
// OpenSM's main thread, report on any of its threads.
#include <memory>
#include <string>

#include "opensm_plugin/extract_worker.h"
#include "opensm_plugin/osm_bridge.h"
#include "opensm_plugin/plugin_log.h"
#include "opensm_plugin/plugin_options.h"

using ssa::Status;
using ssa::opensm_plugin::ExtractWorker;
using ssa::opensm_plugin::ParsePluginOptions;
using ssa::opensm_plugin::PluginLog;
using ssa::opensm_plugin::PluginOptions;

namespace {

void RefuseToLoad(void* osm, const std::string& why) noexcept {
  try {
    // One line an administrator can act on; OpenSM then logs that the
    // plugin failed to load and runs on without it.
    ssa_osm_log(osm, SSA_OSM_LOG_ERROR, ("ERROR: not loaded: " + why).c_str());
  } catch (...) {
    ssa_osm_log(osm, SSA_OSM_LOG_ERROR, "ERROR: not loaded (out of memory)");
  }
}

}  // namespace

extern "C" void* ssa_plugin_create(void* osm, const char* options, const char* osm_version) {
  try {
    PluginOptions o;
    Status st = ParsePluginOptions(options ? options : "", &o);
    if (!st.ok()) {
      RefuseToLoad(osm, "bad event_plugin_options: " + st.message());
      return nullptr;
    }
    // Before any event can come: OpenSM has not started sweeping yet.
    ssa_osm_set_route_sl_limits(osm, static_cast<uint64_t>(o.route_sl_max_calls),
                                static_cast<uint64_t>(o.route_sl_max_rows));
    auto log = std::make_unique<PluginLog>(
        [osm](int level, const std::string& line) { ssa_osm_log(osm, level, line.c_str()); });
    std::unique_ptr<ExtractWorker> worker;
    st = ExtractWorker::Create(
        o, std::move(log),
        [osm](ssa_raw_buffers* b, ssa_extract_times* t) { return ssa_osm_extract(osm, b, t); },
        [osm] { return ssa_osm_is_master(osm) != 0; }, &worker);
    if (!st.ok()) {
      RefuseToLoad(osm, st.ToString());
      return nullptr;
    }
    worker->log()->Key(std::string("loaded into ") + (osm_version ? osm_version : "OpenSM") +
                       "; options: " + o.Describe());
    return worker.release();
  } catch (const std::exception& e) {
    RefuseToLoad(osm, e.what());
  } catch (...) {
    RefuseToLoad(osm, "unexpected exception");
  }
  return nullptr;
}

extern "C" void ssa_plugin_delete(void* plugin) {
  auto* worker = static_cast<ExtractWorker*>(plugin);
  if (!worker) return;
  try {
    worker->Stop();
    worker->log()->Key("unloaded");
  } catch (...) {
  }
  delete worker;
}

extern "C" void ssa_plugin_report(void* plugin, int event) {
  try {
    if (plugin) static_cast<ExtractWorker*>(plugin)->OnEvent(event);
  } catch (...) {
    // Only a failing mutex could throw here; losing one event is better
    // than aborting OpenSM, and the next SUBNET_UP covers it.
  }
}
