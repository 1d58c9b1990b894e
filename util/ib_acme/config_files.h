// config_files.h: ib_acme's second usage, writing configuration files:
//   -A [file]  the address file (address_file.h) for this host. Ports come
//              from libibumad (common/mad/umad_ports.h) rather than verbs, so it
//              works on the simulated fabric too.
//   -O [file]  the options file: our annotated INI template, the content of
//              etc/acm_opts.cfg, embedded at build time.
// Relative file names are taken in -D's directory, which is created when
// missing (upstream creates it with mode 0644, which no one but root can
// enter; we use 0755).
//
// Messages and return codes follow upstream's gen_addr()/gen_opts().
// One thread.
#ifndef IBACM_SSA_UTIL_IB_ACME_CONFIG_FILES_H
#define IBACM_SSA_UTIL_IB_ACME_CONFIG_FILES_H

#include <cstdio>
#include <string>

#include "util/ib_acme/acme_options.h"

namespace ssa {
namespace acme {

// The embedded etc/acm_opts.cfg.
std::string OptionsTemplate();

// dest_dir/file, or file when it is absolute.
std::string OutputPath(const std::string& dest_dir, const std::string& file);

// -A and -O. Return 0 or -1, printing upstream's messages (and, with -V,
// what is generated) to `out`.
int GenerateAddressFile(const AcmeOptions& options, FILE* out);
int GenerateOptionsFile(const AcmeOptions& options, FILE* out);

}  // namespace acme
}  // namespace ssa

#endif
