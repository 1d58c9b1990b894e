// ssa_options.h: the ssa provider's own options, in the [ssa] section of
// acm_opts.cfg next to the sa options its embedded sa provider reads
// (man ibacm_ssa(7)):
//
//   fallback        sa | none: what answers a destination the PRDB does not
//                   hold (or every destination before the first PRDB):
//                   the SA through the embedded sa provider (default), or
//                   nobody (ACM_STATUS_ENODATA at once)
//   transport       tcp | rsocket: the tree's data channel (default tcp;
//                   rsocket needs an HCA)
//   mad_timeout_ms  one SSA control MAD's timeout (default 1000)
//   mad_retries     its retries before the join starts over (default 3)
//
// Keys that are not these are the sa provider's, which reports the unknown
// ones; kKeys lists ours so that it does not.
#ifndef IBACM_SSA_PROVIDERS_SSA_SSA_OPTIONS_H
#define IBACM_SSA_PROVIDERS_SSA_SSA_OPTIONS_H

#include <string>
#include <vector>

#include "providers/shared/provider_options.h"

namespace ssa {
namespace ssa_provider {

struct SsaOptions {
  bool fallback_sa = true;
  std::string transport = "tcp";
  int mad_timeout_ms = 1000;
  int mad_retries = 3;
};

struct SsaOptionProblem {
  std::string file;
  int line = 0;
  std::string text;
};

class SsaOptionsReader {
 public:
  static const std::vector<std::string>& Keys();
  // Applies our keys of `entries` to `out`; a bad value keeps the default
  // and adds a problem (for config_warn).
  static void Apply(const std::vector<provider_shared::RawOption>& entries, SsaOptions* out,
                    std::vector<SsaOptionProblem>* problems);
};

}  // namespace ssa_provider
}  // namespace ssa

#endif
