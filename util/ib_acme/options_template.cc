// options_template.cc: etc/acm_opts.cfg, embedded at build time so -O writes
// exactly the file the source tree ships (one source of truth). The make
// rule in util/ib_acme/local.mk turns the file into the byte list included
// below, in the build directory.
#include <string>

#include "util/ib_acme/config_files.h"

namespace ssa {
namespace acme {

namespace {
const unsigned char kAcmOptsCfg[] = {
#include "util/ib_acme/acm_opts_template.h"
};
}  // namespace

std::string OptionsTemplate() {
  return std::string(reinterpret_cast<const char*>(kAcmOptsCfg), sizeof(kAcmOptsCfg));
}

}  // namespace acme
}  // namespace ssa
