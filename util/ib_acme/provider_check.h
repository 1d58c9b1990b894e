// provider_check.h: provider testing (-T): resolve every destination through
// the daemon, check each answer against the SA, report per destination and
// sum up (see check_targets.h for the destinations, path_verifier.h for the
// two ways of asking the SA, check_report.h for the output and counting).
//
// Each service of -S is tested in turn with its own summary. The resolve
// requests are the ones upstream's ib_acme sends (a path request for a LID
// or GID, an address request for a name or IP; -s as the source, -c for
// NODELAY), one at a time, each timed on the client side.
//
// Exit status: 0 when every destination resolved and matched (or, with
// --verify none, resolved); 1 on any mismatch or error; 2 when the test
// could not run at all (bad options or destination list, no local port
// for --verify sa, daemon unreachable).
//
// Borrows the options and the output stream. Main thread only (see
// SaPathVerifier).
#ifndef IBACM_SSA_UTIL_IB_ACME_PROVIDER_CHECK_H
#define IBACM_SSA_UTIL_IB_ACME_PROVIDER_CHECK_H

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "common/acm/acm_client.h"
#include "util/ib_acme/acme_options.h"
#include "util/ib_acme/check_report.h"
#include "util/ib_acme/check_targets.h"
#include "util/ib_acme/path_verifier.h"
#include "util/ib_acme/shm_resolver.h"

namespace ssa {
namespace acme {

class ProviderTest {
 public:
  // `terminal`: draw a progress bar (the caller passes isatty(stdout)).
  ProviderTest(const AcmeOptions& options, FILE* out, bool terminal)
      : options_(options), out_(out), terminal_(terminal) {}
  ProviderTest(const ProviderTest&) = delete;
  ProviderTest& operator=(const ProviderTest&) = delete;

  int Run();

 private:
  // Tests one service; false if it could not be tested at all.
  bool TestService(const std::string& svc, const std::vector<TestTarget>& targets,
                   TestSummary* summary);
  TargetResult TestOne(const TestTarget& target, PathVerifier* verifier);
  bool SaAlsoAnswers(const TestTarget& target, const ibv_path_record& path, PathVerifier* verifier);
  // The daemon's answer for `target`; false with `*error` when it had none.
  bool Resolve(const TestTarget& target, ibv_path_record* path, std::string* error);
  // (Re)connects to svc_, dropping whatever the old connection still held.
  Status Connect();

  const AcmeOptions& options_;
  FILE* out_;
  bool terminal_;
  std::string svc_;  // the service being tested
  AcmClient client_;
  ShmResolver shm_;                              // --shm: resolves go through libibssa_path
  std::unique_ptr<SaPathVerifier> sa_verifier_;  // --verify sa
  bool have_source_ = false;
  TestTarget source_;  // -s, read in the destinations' format
};

}  // namespace acme
}  // namespace ssa

#endif
