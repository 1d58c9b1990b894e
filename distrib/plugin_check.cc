// plugin_check.cc: see plugin_check.h.
#include "distrib/plugin_check.h"

#include <fstream>
#include <vector>

#include "common/base/option_set.h"
#include "common/base/text_util.h"
#include "common/tree/federation_config.h"
#include "opensm_plugin/plugin_options.h"

namespace ssa {
namespace distrib {

namespace {

// The value of the last event_plugin_options line of OpenSM's file; "" when
// there is none, or it is OpenSM's "(null)".
Status ReadOpenSmOptions(const std::string& path, std::string* options) {
  std::ifstream in(path);
  if (!in) return Status::FromErrno("cannot open OpenSM configuration file " + path);
  const std::string key = "event_plugin_options";
  std::string line;
  options->clear();
  while (std::getline(in, line)) {
    line = Trim(line);
    if (line.compare(0, key.size(), key) != 0 || line.size() == key.size() ||
        (line[key.size()] != ' ' && line[key.size()] != '\t'))
      continue;
    *options = Trim(line.substr(key.size()));
  }
  if (in.bad()) return Status::FromErrno("cannot read " + path);
  if (*options == "(null)") options->clear();
  return Status::Ok();
}

}  // namespace

int CheckPluginConfig(const std::string& arg, FILE* out) {
  std::string text = arg;
  Status st;
  if (arg.find('=') == std::string::npos) st = ReadOpenSmOptions(arg, &text);
  std::vector<OptionValue> values;
  opensm_plugin::PluginOptions options;
  if (st.ok()) st = opensm_plugin::ParsePluginOptions(text, &options, &values);
  // The plugin reads the federation file (and its key files) at load.
  if (st.ok() && !options.federation_file.empty()) {
    tree::FederationConfig federation;
    st = tree::ReadFederationFile(options.federation_file, &federation);
  }
  fprintf(out, "# ibssa --check-plugin-config: event_plugin_options '%s'\n", text.c_str());
  if (!values.empty()) PrintOptionValues(out, "ibssa_osm", values);
  return FinishCheck(out, "ibssa", st.WithContext("plugin options"),
                     "the plugin would refuse to load");
}

}  // namespace distrib
}  // namespace ssa
