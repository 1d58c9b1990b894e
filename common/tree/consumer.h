// consumer.h: the consumer role of the SSA tree (doc/ssa-tree.md): joins
// the tree for one local port, connects to the access node the core
// assigns (switching to the backup at once when it is lost, then joining
// again), and holds the newest verified path record database (PRDB) of
// that port.
//
// With `want_addr` it also holds the address database (names and IPs to
// GIDs) its access node passes on from the core, over a second connection.
//
// What the owner sees: prdb() and addr() return immutable snapshots
// (shared_ptr<const ...>) that are replaced whole when a new version has
// been received and verified (digest), so a reader never sees half of an
// epoch and may keep using an old snapshot as long as it holds it. Nothing
// is dropped when the tree is unreachable: the last verified versions stay,
// and confirmed_at() says when the core last vouched for them (each
// accepted join or renewal, core_confirmation.h). `on_update` is called on
// the reactor thread after each replacement.
//
// Users: the ssa provider (providers/ssa, on ibacm's loop through the
// provider ABI's fd and timer ops) and ssa-consumer (util/, on an
// EventLoop). Every method on the reactor's thread.
#ifndef IBACM_SSA_COMMON_TREE_CONSUMER_H
#define IBACM_SSA_COMMON_TREE_CONSUMER_H

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "common/base/log.h"
#include "common/base/reactor.h"
#include "common/base/status.h"
#include "common/mad/mad_transport.h"
#include "common/smdb/addr_db.h"
#include "common/smdb/smdb_prdb.h"

namespace ssa {
namespace tree {

class StreamTransport;

struct ConsumerOptions {
  // The local port the consumer joins for (its PRDB's source).
  std::string ca_name;  // "" = libibumad's default CA
  int port_num = 1;
  uint64_t port_guid = 0;  // host order; must be set
  uint64_t gid_prefix = 0xfe80000000000000ULL;
  // The SM's LID now (re-read at each join, so a new SM is followed).
  std::function<uint16_t()> sm_lid;
  // Create(): also ask the port itself (an SMP, common/mad/sm_lid_probe.h)
  // where the SM is when the core stops answering.
  bool probe_sm = true;
  std::string transport = "tcp";  // data channel: tcp | rsocket
  bool want_addr = true;          // also hold the address database
  // The owner puts each PRDB in place itself, later (the ssa provider
  // indexes it first): the consumer logs it "verified", the owner "in
  // place" (DataClient::set_owner_installs).
  bool owner_installs_prdb = false;
  int mad_timeout_ms = 1000;  // one control MAD; retries follow
  int mad_retries = 3;
  std::string data_faults;  // fault injection (tests only)
  std::string mad_faults;
};

struct ConsumerStats {
  uint64_t joins = 0;
  uint64_t parent_changes = 0;
  uint64_t full_transfers = 0;
  uint64_t delta_transfers = 0;
  uint64_t digest_mismatches = 0;
  uint64_t unproven_parents = 0;  // peers at the parent's address without its key
  uint64_t reconnects = 0;
  uint64_t bytes_received = 0;
  uint64_t prdb_epoch = 0;  // 0: none yet
  uint64_t addr_epoch = 0;
  uint16_t parent_lid = 0;  // 0: no parent now
  // The newest SMDB epoch heard of (0: none yet): the core's in the last
  // join answer (renewals bring it again), and the serving access node's
  // at its WELCOME and each transfer, a lower bound of the core's. A PRDB
  // carries its SMDB's epoch, so prdb_epoch below them is the lag.
  uint64_t core_epoch = 0;
  uint64_t parent_epoch = 0;
  uint32_t renew_s = 0;  // the core's renewal period (0: not joined yet)

  // Adds the counters (not the epochs and the parent) of `o`: what a
  // consumer replaced by a new one had counted.
  void AddCounters(const ConsumerStats& o) {
    joins += o.joins;
    parent_changes += o.parent_changes;
    full_transfers += o.full_transfers;
    delta_transfers += o.delta_transfers;
    digest_mismatches += o.digest_mismatches;
    unproven_parents += o.unproven_parents;
    reconnects += o.reconnects;
    bytes_received += o.bytes_received;
  }
};

class Consumer {
 public:
  using UpdateFn = std::function<void()>;

  // With the real transports: a umad port for the SSA class on
  // (ca_name, port_num), and TCP or rsockets. `reactor` and `log` are
  // borrowed and must outlive the consumer.
  static Status Create(Reactor* reactor, Logger* log, const ConsumerOptions& options,
                       UpdateFn on_update, std::unique_ptr<Consumer>* out);
  // With injected transports (tests: the in-process seams). `streams` is
  // borrowed.
  static Status CreateWith(Reactor* reactor, Logger* log, const ConsumerOptions& options,
                           std::unique_ptr<MadTransport> mads, StreamTransport* streams,
                           UpdateFn on_update, std::unique_ptr<Consumer>* out);
  virtual ~Consumer() = default;

  // Joins and keeps the subscription alive until Stop().
  virtual Status Start() = 0;
  // Leaves the tree (a Leave MAD, best effort) and closes everything; the
  // snapshots stay readable.
  virtual void Stop() = 0;

  virtual std::shared_ptr<const smdb::Prdb> prdb() const = 0;
  virtual std::shared_ptr<const smdb::AddrDb> addr() const = 0;
  virtual ConsumerStats stats() const = 0;
  // Whether the core ever confirmed that the PRDB held is current, and
  // when last (core_confirmation.h): the ssa provider's staleness bound.
  virtual bool confirmed() const = 0;
  virtual std::chrono::steady_clock::time_point confirmed_at() const = 0;
  // Since that confirmation no core has answered a join at all and the
  // master SM's LID is still the one that confirmed it: no SM runs that
  // could have changed the fabric (it died, or hangs whole, and no other
  // has taken over), so nothing can have moved on from the PRDB.
  virtual bool sm_silent_since_confirmed() const = 0;
};

}  // namespace tree
}  // namespace ssa

#endif
