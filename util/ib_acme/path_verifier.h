// path_verifier.h: where a provider test gets the SA's view of a path.
//
//   SaPathVerifier      asks the SA itself: a SubnAdmGet(PathRecord) through
//                       libibumad from a local port (common/mad/sa_client.h), so
//                       it needs a local active port (on the simulated
//                       fabric: run ib_acme as a node). Independent of the
//                       daemon and its provider.
//   DaemonPathVerifier  asks the daemon to ask the SA: a path request with
//                       ACM_FLAGS_QUERY_SA, which is what upstream's -v does.
//                       Works anywhere the daemon's socket is reachable, but
//                       trusts the daemon's provider to really ask the SA.
// Both are keyed by what the test asked for: SLID/DLID for a LID
// destination, SGID/DGID otherwise, plus the P_Key of the daemon's answer.
//
// Both block until the answer or their timeout. One thread; the umad
// verifier must be created on the main thread before any other thread
// exists (libibumad's first use under umad2sim is not thread-safe).
#ifndef IBACM_SSA_UTIL_IB_ACME_PATH_VERIFIER_H
#define IBACM_SSA_UTIL_IB_ACME_PATH_VERIFIER_H

#include <infiniband/sa.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/acm/acm_client.h"
#include "common/base/event_loop.h"
#include "common/base/log.h"
#include "common/base/status.h"
#include "common/mad/sa_client.h"
#include "common/mad/umad_ports.h"

namespace ssa {
namespace acme {

struct PathKey {
  bool by_lid = false;
  uint16_t slid = 0, dlid = 0;  // host order
  ibv_gid sgid{}, dgid{};
  uint16_t pkey = 0;  // host order; 0: any
};

struct VerifyResult {
  enum Kind {
    kRecord,    // `path` is the SA's record
    kNoRecord,  // the SA has no such path
    kError,     // no answer to compare with (`error` says why)
  };
  Kind kind = kError;
  ibv_path_record path{};
  std::string error;
};

class PathVerifier {
 public:
  virtual ~PathVerifier() = default;
  virtual VerifyResult Verify(const PathKey& key) = 0;
};

class SaPathVerifier : public PathVerifier {
 public:
  // `sa_port` "CA:PORT" pins the local port; empty: the port the path
  // starts from (matched by SLID or SGID), else the first active one.
  SaPathVerifier(std::string sa_port, int timeout_ms);
  ~SaPathVerifier() override;
  SaPathVerifier(const SaPathVerifier&) = delete;
  SaPathVerifier& operator=(const SaPathVerifier&) = delete;

  // Finds the local ports and starts the event loop. Fails when there is no
  // active InfiniBand port (or not the one --sa-port names).
  Status Init();
  VerifyResult Verify(const PathKey& key) override;

 private:
  const UmadPort* PickPort(const PathKey& key) const;
  Status ClientFor(const UmadPort& port, SaClient** out);

  std::string sa_port_;
  int timeout_ms_;
  Logger logger_;
  EventLoop loop_;
  std::vector<UmadPort> ports_;
  // One SA client per local port, made on first use.
  std::map<std::string, std::unique_ptr<SaClient>> clients_;
};

class DaemonPathVerifier : public PathVerifier {
 public:
  // Borrows a connected client, which must outlive this verifier.
  explicit DaemonPathVerifier(AcmClient* client) : client_(client) {}
  VerifyResult Verify(const PathKey& key) override;

 private:
  AcmClient* client_;
};

}  // namespace acme
}  // namespace ssa

#endif
