// prom_check.h: a metrics file checked the way a site would check what its
// node_exporter textfile collector reads: `promtool check metrics`
// (Debian's prometheus) and python3-prometheus-client's parser (not a
// regular expression of ours), for every test that writes one (ibacm's,
// ibssa's, the plugin's, ssa-tree --prometheus).
//
// Plain functions; run the tools as child processes.
#ifndef IBACM_SSA_TEST_SUPPORT_PROM_CHECK_H
#define IBACM_SSA_TEST_SUPPORT_PROM_CHECK_H

#include <map>
#include <string>
#include <vector>

#include "common/base/status.h"

namespace ssa {
namespace test {

// Both tools accept the text at `path`, and the parser finds every family
// of `families` (names as the client reports them: counters without
// _total). `scratch` is a directory for the helper script's files.
Status CheckPromFile(const std::string& path, const std::vector<std::string>& families,
                     const std::string& scratch);

// One sample's value from Prometheus text: the line starting with
// `series` (name and labels exactly as written) followed by a blank;
// -1 when absent.
double PromSample(const std::string& text, const std::string& series);

}  // namespace test
}  // namespace ssa

#endif
