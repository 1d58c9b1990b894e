// provider_options.h: what the sa and acmp providers share in reading their
// options through the core's config_foreach op: the raw entry, the
// callback that collects them, the keys that belong to the core, and
// whether the entries come from an upstream ibacm_opts.cfg (one flat file
// every provider sees whole) or from their own INI section.
#ifndef IBACM_SSA_PROVIDERS_SHARED_PROVIDER_OPTIONS_H
#define IBACM_SSA_PROVIDERS_SHARED_PROVIDER_OPTIONS_H

#include <functional>
#include <string>
#include <vector>

namespace ssa {
namespace provider_shared {

struct RawOption {
  std::string key;
  std::string value;
  std::string file;
  int line = 0;
};

// The config_foreach callback: appends to the std::vector<RawOption> `arg`.
int CollectOption(void* arg, const char* key, const char* value, const char* file, int line);

// Keys upstream's core or ours reads (never a provider's).
bool IsCoreOptionKey(const std::string& key);

// True when the entries come from an upstream-format file: decided by the
// file's content when it can be read, else by whether any key is one
// `is_foreign` says belongs to someone else.
bool FromUpstreamFile(const std::vector<RawOption>& entries,
                      const std::function<bool(const std::string&)>& is_foreign);

}  // namespace provider_shared
}  // namespace ssa

#endif
