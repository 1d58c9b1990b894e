// plugin_log.cc: PluginLog (see plugin_log.h).
#include "opensm_plugin/plugin_log.h"

#include "opensm_plugin/osm_bridge.h"

namespace ssa {
namespace opensm_plugin {

Status PluginLog::OpenFile(const std::string& path, LogLevel level) {
  if (path == "none") return Status::Ok();
  Status st = file_.Open(path, "ibssa_osm");
  if (!st.ok()) return st;
  file_.set_level(level);
  file_open_ = true;
  return Status::Ok();
}

void PluginLog::Log(LogLevel level, bool to_osm, const std::string& line) noexcept {
  try {
    LogImpl(level, to_osm, line);
  } catch (...) {
    // Out of memory while logging: the line is lost, OpenSM is not.
  }
}

void PluginLog::LogImpl(LogLevel level, bool to_osm, const std::string& line) {
  if (file_open_) file_.Write(level, line);
  if (!osm_sink_) return;
  if (level == LogLevel::kError) {
    osm_sink_(SSA_OSM_LOG_ERROR, "ERROR: " + line);
  } else if (level == LogLevel::kWarn) {
    // OpenSM has no warning level; its default mask (ERROR|INFO) shows INFO.
    osm_sink_(SSA_OSM_LOG_INFO, "WARNING: " + line);
  } else if (to_osm) {
    osm_sink_(SSA_OSM_LOG_INFO, line);
  }
}

}  // namespace opensm_plugin
}  // namespace ssa
