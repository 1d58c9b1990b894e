// bridge_options.h: the upstream bridge's options, the [upstream] section
// of acm_opts.cfg (man ibacm_upstream(7)):
//
//   upstream_provider      PATH, or NAME for <upstream_provider_dir>/libNAME.so
//   upstream_provider_dir  where NAME is looked for (UPSTREAM_PROVIDER_DIR)
//   require_verbs          yes | no: fail when no verbs device opens (yes)
//
// Every other line of the section is the library's: it is handed on as
// the library's options file (passed_on).
//
// A plain value; one thread at a time.
#ifndef IBACM_SSA_PROVIDERS_UPSTREAM_BRIDGE_OPTIONS_H
#define IBACM_SSA_PROVIDERS_UPSTREAM_BRIDGE_OPTIONS_H

#include <string>

namespace ssa {

class OptionSet;

namespace upstream {

struct BridgeOptions {
  std::string upstream_provider;      // PATH or NAME
  std::string upstream_provider_dir;  // default set by the constructor
  bool require_verbs = true;
  std::string passed_on;  // the library's options file: "key value" lines

  BridgeOptions();

  // Binds the bridge's own keys (passed_on is everything else).
  void Bind(OptionSet* set);
};

}  // namespace upstream
}  // namespace ssa

#endif
