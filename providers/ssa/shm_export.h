// shm_export.h: what the ssa provider publishes in shared memory for
// libibssa_path (common/shm_prdb/, man ibssa_path_tables(7)): for each
// active port, in the core's order, its endpoints' P_Keys and addresses
// and, when the port's PRDB is current (for its LID and LMC), the records
// the provider itself would answer from it: reversible, never marked not
// exact, the DGID answers PrdbView::ByGid picks; and the tree's address
// database as the sa provider's address data override it. Records the
// provider would not serve are left out, so the library asks the socket
// for them.
//
// Two halves, so that ibacm's loop never waits for a publication (at
// 10,000 HCAs one took 9-17 ms, most of it writing memory for the first
// time): on the loop, the provider gathers what it exports (its ports'
// addressing and views, and, when addresses changed, the tree's address
// database with its own address data applied: ResolveAddresses); on its
// worker, Publish builds the object and replaces the published one. The
// inputs are copies and immutable shared objects, so the loop may change
// anything meanwhile; what makes them wrong (a port, endpoint or address
// removed) withdraws the tables at once (Invalidate). Publish: one call at
// a time (the provider's one worker); the object is withdrawn when the
// export is destroyed.
#ifndef IBACM_SSA_PROVIDERS_SSA_SHM_EXPORT_H
#define IBACM_SSA_PROVIDERS_SSA_SHM_EXPORT_H

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <ibacm_ssa/provider.h>
#include "common/base/mutex.h"
#include "common/base/status.h"
#include "common/shm_prdb/shm_prdb_publisher.h"
#include "common/smdb/addr_db.h"
#include "providers/ssa/prdb_view.h"

namespace ssa {
namespace ssa_provider {

struct ExportPort {
  std::array<uint8_t, 16> gid{};
  uint16_t lid = 0;
  uint8_t lmc = 0;
  std::shared_ptr<const PrdbView> view;  // null: none current (the socket answers)
  std::vector<uint16_t> pkeys;           // the endpoints', in the order they opened
  struct Address {
    uint16_t pkey;
    ssa_address addr;
  };
  std::vector<Address> addresses;  // endpoint by endpoint, in the order added
};

// The provider's own address data (sa::SaProvider::OwnAddress).
using OwnAddressFn =
    std::function<bool(uint16_t type, const uint8_t* data, size_t len, uint8_t gid[16])>;

// The tree's names and IPs as the provider answers them: its own address
// data first (sa_resolve.cc), the tree's GID otherwise.
struct ExportAddresses {
  uint64_t epoch = 0;  // the address database's
  std::vector<std::pair<std::string, std::array<uint8_t, 16>>> names;
  std::vector<std::pair<std::array<uint8_t, 16>, std::array<uint8_t, 16>>> ips;  // IPv6 form
};
std::shared_ptr<const ExportAddresses> ResolveAddresses(const smdb::AddrDb& db,
                                                        const OwnAddressFn& own);

class ShmExport {
 public:
  explicit ShmExport(const std::string& socket_path) : publisher_(socket_path) {}
  // The publisher's path is fixed at construction: no lock needed.
  const std::string& path() const NO_THREAD_SAFETY_ANALYSIS { return publisher_.path(); }

  // For the metrics and the log (either thread).
  struct Stats {
    uint64_t publications = 0;
    uint64_t failures = 0;  // each one withdrew the tables
    bool published = false;
    size_t retired = 0;  // replaced objects not yet truncated
  };
  Stats stats();
  // Truncates replaced objects whose grace has passed (a timer of the
  // loop's, so that they go even when nothing is published for a while).
  void Sweep();

  // The loop's side. generation() is taken when the inputs are gathered;
  // Invalidate() withdraws what is published at once and makes every
  // publication from inputs gathered before it a no-op (a port, endpoint
  // or address went away: what those inputs answer, the socket may no
  // longer serve).
  uint64_t generation();
  void Invalidate();

  // The worker's side: builds the object from the inputs and publishes it
  // unless invalidated since `generation`. `addr`: null when the tree
  // delivered no address database yet.
  Status Publish(const std::vector<ExportPort>& ports, const ExportAddresses* addr,
                 uint64_t generation);

 private:
  Mutex mu_;  // the loop and the worker
  uint64_t generation_ GUARDED_BY(mu_) = 0;
  shm_prdb::TablePublisher publisher_ GUARDED_BY(mu_);
  uint64_t serial_ = 0;  // the worker's
  uint64_t start_ = 0;   // the worker's
  Stats stats_ GUARDED_BY(mu_);
};

}  // namespace ssa_provider
}  // namespace ssa

#endif
