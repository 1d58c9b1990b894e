// plugin_check.h: ibssa --check-plugin-config: the OpenSM plugin's options
// (opensm_plugin/plugin_options.h) checked as the plugin reads them when
// OpenSM loads it, by a command an operator runs without OpenSM.
//
// `arg` is OpenSM's configuration file, whose event_plugin_options line is
// read (the last one, as OpenSM does), or, when it holds a '=', that
// string itself ("config=/etc/rdma/ibssa_osm.conf keep=4").
#ifndef IBACM_SSA_DISTRIB_PLUGIN_CHECK_H
#define IBACM_SSA_DISTRIB_PLUGIN_CHECK_H

#include <cstdio>
#include <string>

namespace ssa {
namespace distrib {

// Prints every option's value and where it came from to `out`, the error
// to stderr; returns the exit status: 0, or 1 when the plugin would refuse
// to load.
int CheckPluginConfig(const std::string& arg, FILE* out);

}  // namespace distrib
}  // namespace ssa

#endif
