// main.cc: ib_acme, our version of rdma-core's ibacm test and configuration
// tool. Wires the modes together as upstream's main() does: service queries
// (service_query.h), then -A and -O (config_files.h); or provider testing
// (provider_check.h). Single-threaded.
#include <unistd.h>

#include <cstdio>
#include <string>

#include "util/ib_acme/acme_options.h"
#include "util/ib_acme/acme_output.h"
#include "util/ib_acme/acme_usage.h"
#include "util/ib_acme/config_files.h"
#include "util/ib_acme/provider_check.h"
#include "util/ib_acme/service_query.h"

using namespace ssa::acme;

int main(int argc, char** argv) {
  const std::string program = argv[0];
  AcmeOptions options;
  std::string error;
  switch (ParseAcmeOptions(argc, argv, &options, &error)) {
    case ParseOutcome::kHelp:
      fputs((UpstreamUsage(program) + ProviderTestUsage(program)).c_str(), stdout);
      return 0;
    case ParseOutcome::kUsage:
      // Upstream prints nothing but the usage; our own complaints (about
      // our options) go to stderr first.
      if (!error.empty()) fprintf(stderr, "%s: %s\n", program.c_str(), error.c_str());
      fputs(UpstreamUsage(program).c_str(), stdout);
      // Provider testing keeps 1 for "mismatch or error": "could not test".
      return options.test.enabled ? 2 : 1;
    case ParseOutcome::kRun: break;
  }

  if (options.test.enabled) {
    ProviderTest test(options, stdout, isatty(STDOUT_FILENO) == 1);
    return test.Run();
  }

  int ret = 0;
  if (options.has_dest || options.perf != PerfMode::kNone || options.enum_ep) {
    ServiceQuery query(options, stdout);
    ret = query.Run();
  }
  if (ret == 0 && options.make_addr) ret = GenerateAddressFile(options, stdout);
  if (ret == 0 && options.make_opts) ret = GenerateOptionsFile(options, stdout);
  if (options.verbose || !(options.make_addr || options.make_opts) || ret)
    fputs(FormatReturnStatus(ret).c_str(), stdout);
  return ret;
}
