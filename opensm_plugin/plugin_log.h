// plugin_log.h: the plugin's logging: its own file (every line at or above
// the configured level, timestamped by ssa::Logger) and OpenSM's log (the
// lines an administrator reading opensm.log needs: load, options, each
// epoch, warnings and errors).
//
// Owned by the plugin (ExtractWorker); Log() may be called from any thread
// (both targets serialize whole lines).
#ifndef IBACM_SSA_OPENSM_PLUGIN_PLUGIN_LOG_H
#define IBACM_SSA_OPENSM_PLUGIN_PLUGIN_LOG_H

#include <functional>
#include <string>

#include "common/base/log.h"
#include "common/base/status.h"

namespace ssa {
namespace opensm_plugin {

class PluginLog {
 public:
  // Receives the lines for OpenSM's log (level as in osm_bridge.h's
  // ssa_osm_log_level). The plugin passes ssa_osm_log bound to its OpenSM.
  using OsmSink = std::function<void(int osm_level, const std::string& line)>;

  explicit PluginLog(OsmSink osm_sink) : osm_sink_(std::move(osm_sink)) {}
  PluginLog(const PluginLog&) = delete;
  PluginLog& operator=(const PluginLog&) = delete;

  // Opens the plugin's own file ("none": no file). Call before threads
  // start using the log.
  Status OpenFile(const std::string& path, LogLevel level);

  // Both targets: errors and warnings always reach OpenSM's log, info
  // lines only when `to_osm`.
  void Error(const std::string& line) { Log(LogLevel::kError, true, line); }
  void Warn(const std::string& line) { Log(LogLevel::kWarn, true, line); }
  void Key(const std::string& line) { Log(LogLevel::kInfo, true, line); }
  // The plugin's file only.
  void Info(const std::string& line) { Log(LogLevel::kInfo, false, line); }
  void Debug(const std::string& line) { Log(LogLevel::kDebug, false, line); }
  bool DebugEnabled() const { return file_open_ && file_.Enabled(LogLevel::kDebug); }

  // Never throws (a line that cannot be formatted is dropped).
  void Log(LogLevel level, bool to_osm, const std::string& line) noexcept;

 private:
  void LogImpl(LogLevel level, bool to_osm, const std::string& line);

  OsmSink osm_sink_;
  Logger file_;
  bool file_open_ = false;  // written once, before any concurrent Log()
};

}  // namespace opensm_plugin
}  // namespace ssa

#endif
