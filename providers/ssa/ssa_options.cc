// ssa_options.cc: see ssa_options.h.
#include "providers/ssa/ssa_options.h"

#include <strings.h>

#include "common/base/option_set.h"

namespace ssa {
namespace ssa_provider {

const std::vector<std::string>& SsaOptionsReader::Keys() {
  static const std::vector<std::string> keys = {"fallback", "transport", "mad_timeout_ms",
                                                "mad_retries"};
  return keys;
}

void SsaOptionsReader::Apply(const std::vector<provider_shared::RawOption>& entries,
                             SsaOptions* out, std::vector<SsaOptionProblem>* problems) {
  for (const auto& e : entries) {
    std::string bad;
    const char* v = e.value.c_str();
    int64_t n = 0;
    if (e.key == "fallback") {
      if (!strcasecmp(v, "sa"))
        out->fallback_sa = true;
      else if (!strcasecmp(v, "none"))
        out->fallback_sa = false;
      else
        bad = "fallback: '" + e.value + "' is not sa or none";
    } else if (e.key == "transport") {
      if (!strcasecmp(v, "tcp") || !strcasecmp(v, "rsocket"))
        out->transport = strcasecmp(v, "tcp") ? "rsocket" : "tcp";
      else
        bad = "transport: '" + e.value + "' is not tcp or rsocket";
    } else if (e.key == "mad_timeout_ms") {
      Status st = OptionSet::ParseInt(e.value, 10, 60000, &n);
      if (st.ok())
        out->mad_timeout_ms = static_cast<int>(n);
      else
        bad = "mad_timeout_ms: " + st.message();
    } else if (e.key == "mad_retries") {
      Status st = OptionSet::ParseInt(e.value, 0, 100, &n);
      if (st.ok())
        out->mad_retries = static_cast<int>(n);
      else
        bad = "mad_retries: " + st.message();
    } else {
      continue;  // the sa provider's, or unknown: it reports those
    }
    if (!bad.empty()) problems->push_back({e.file, e.line, bad + "; default kept"});
  }
}

}  // namespace ssa_provider
}  // namespace ssa
