// provider_options.h: how a provider reads its options through the core's
// ops, written once for all of them: the entries config_foreach hands over,
// the file's format (config_format, ABI 1.2), the OptionSet the provider
// binds its options to, and what is said about each entry.
//
// What is said about a key the provider does not read depends on the
// format. In our INI format the provider sees only its own section, so such
// a key is a mistake, reported through config_warn (an error: the daemon
// does not start): "unknown option" with the nearest known key, or, when
// another reader reads it (common/base/option_registry.h), that it belongs
// in that reader's section. An upstream-format file has no sections and
// every provider sees every line, so such a key is someone else's: a debug
// line only (the core rejects keys nobody reads). Bad values are always
// errors. After reading, each option's effective value goes to the core
// (config_value, ABI 1.5) for ibacm --check-config.
//
// The core's loop thread only, like the providers.
#ifndef IBACM_SSA_PROVIDERS_SHARED_PROVIDER_OPTIONS_H
#define IBACM_SSA_PROVIDERS_SHARED_PROVIDER_OPTIONS_H

#include <string>
#include <vector>

#include <ibacm_ssa/provider.h>
#include "common/base/option_set.h"

namespace ssa {
namespace provider_shared {

// One option as config_foreach hands it over.
struct RawOption {
  std::string key;
  std::string value;
  std::string file;
  int line = 0;
};

enum class ConfigFormat { kIni, kUpstream };

// Every entry of the provider's section, through config_foreach.
std::vector<RawOption> CollectOptions(const ssa_core_ops* ops, ssa_core_t* core);
// The format the core names (ABI 1.2). A core older than 1.2 does not say:
// then the entries tell, as well as they can (a key only other readers
// read means the file is shared, i.e. upstream's).
ConfigFormat FormatOf(const ssa_core_ops* ops, ssa_core_t* core,
                      const std::vector<RawOption>& entries, const std::string& section);

// Applies `entries` to what `set` binds and returns the notes (see above).
// `section`: the provider's section, e.g. "sa".
std::vector<OptionNote> ReadOptions(const std::vector<RawOption>& entries, ConfigFormat format,
                                    const std::string& section, OptionSet& set);
// The same with the provider's own rule for keys `set` does not bind.
std::vector<OptionNote> ReadOptions(const std::vector<RawOption>& entries,
                                    const std::string& section, OptionSet& set,
                                    const OptionSet::UnknownKey& unknown);
// Reports each note: errors through config_warn, the rest with log at
// debug level.
void ReportNotes(const ssa_core_ops* ops, ssa_core_t* core, const std::vector<OptionNote>& notes);
// Hands every option's value and source to the core (config_value, 1.5).
void ReportValues(const ssa_core_ops* ops, ssa_core_t* core, const OptionSet& set);

// All of it through the core: collects, reads (the rule above), reports
// the notes and the values.
void ReadOptionsFromCore(const ssa_core_ops* ops, ssa_core_t* core, const std::string& section,
                         OptionSet& set);

}  // namespace provider_shared
}  // namespace ssa

#endif
