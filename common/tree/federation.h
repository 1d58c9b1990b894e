// federation.h: the link between the cores of several subnets
// (doc/federation.md): each core serves the address entries of its own
// subnet prefix (names and IPs whose GID is under it) to its peers, and
// takes each peer's, so that its own tree can republish them.
//
// The wire is the data channel (frame.h) unchanged: a core connects to
// every peer's listener as a child (HELLO kind "address DB", GUID = its
// own subnet prefix, token kFederationToken) and the peer serves it one
// publication, an AddrDb holding only the peer's own entries, full then
// as deltas. Both ends prove the key they share (federation_config.h)
// with the data channel's WELCOME/PROOF tags; the link key of a direction
// is derived from it with the serving and the asking prefix
// (LinkKeyDeriver), so the two directions of a pair use different keys.
//
// What a peer sends is checked before it is used: an entry whose GID is
// not under the prefix configured for that peer is refused (dropped,
// counted, logged); the rest replaces everything held of that peer.
// A peer with several addresses (one per SM host of its subnet; only the
// master's core listens) is dialled at each in turn: after a loss the next
// one at once, until each was tried since the last version taken, then
// after a backoff (200 ms doubling to 5 s).
//
// Staleness: when a peer's link breaks, its entries are still served for
// hold_s seconds, then withdrawn; a reconnection always starts from
// nothing (the replica is forgotten, so the peer sends its set whole) and
// the set received replaces the one held, so nothing the peer withdrew
// meanwhile survives.
//
// Ownership: borrows the reactor, transport and log. Loop thread only.
#ifndef IBACM_SSA_COMMON_TREE_FEDERATION_H
#define IBACM_SSA_COMMON_TREE_FEDERATION_H

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/base/log.h"
#include "common/base/rate_limit.h"
#include "common/base/reactor.h"
#include "common/smdb/addr_db.h"
#include "common/tree/data_client.h"
#include "common/tree/data_server.h"
#include "common/tree/db_version.h"
#include "common/tree/federation_config.h"
#include "common/tree/stream.h"

namespace ssa {
namespace tree {

// The token every federation HELLO carries: the peers are known by
// prefix and key, not by a join.
extern const Token kFederationToken;

// The GID's subnet prefix (its first 8 bytes, network order).
uint64_t GidPrefix(const std::array<uint8_t, 16>& gid);

struct FederationPeerStats {
  std::string name;
  uint64_t prefix = 0;
  bool up = false;             // its link is connected and proven now
  bool held = false;           // its entries are served (up, or within hold_s)
  size_t names = 0, ips = 0;   // its entries served now
  size_t refused_entries = 0;  // in the version held, outside its prefix
  uint64_t refused_versions = 0;
  uint64_t full = 0, deltas = 0;  // versions applied
  uint64_t resyncs = 0;           // full versions after a reconnection
  uint64_t withdrawals = 0;       // times its entries were dropped after hold_s
  uint64_t unproven = 0;          // its end did not prove the key
  std::string address;            // the one of its addresses dialled now
};

// The listener's state: a port that cannot be bound (another process
// holds it, the address is not up yet) is tried again with a backoff
// until it can, while the links to the peers run as usual.
struct FederationListenStats {
  bool listening = false;
  uint64_t failures = 0;  // binds that failed, every attempt counted
};

class Federation {
 public:
  // The peers' entries changed (taken, replaced or withdrawn).
  using ChangedFn = std::function<void()>;

  Federation(Reactor* reactor, StreamTransport* transport, Logger* log, FederationConfig config,
             uint64_t own_prefix, ChangedFn on_changed);
  ~Federation();
  Federation(const Federation&) = delete;
  Federation& operator=(const Federation&) = delete;

  // Listens, and connects to every peer. A listen port that cannot be
  // bound is not an error: it is tried again after kListenRetryFirst,
  // doubling up to kListenRetryMax, logged rate-limited and counted
  // (ListenStats), and the peers are dialled meanwhile.
  Status Start();
  static constexpr std::chrono::milliseconds kListenRetryFirst{500};
  static constexpr std::chrono::milliseconds kListenRetryMax{30000};
  void Close();

  // This subnet's address entries: those under own_prefix are served to
  // the peers (a new version when they changed); the rest are not ours to
  // announce. Call before Start and whenever they change.
  void PublishLocal(const smdb::AddrDb& local);

  // Every peer's entries served now, merged (a name or IP two peers both
  // announce goes to the first in the file; counted in conflicts()).
  void Remote(smdb::AddrDb* out) const;
  uint64_t conflicts() const { return conflicts_; }

  std::vector<FederationPeerStats> Stats() const;
  FederationListenStats ListenStats() const;
  const DataServer* server() const { return server_.get(); }
  DataAddress address() const;
  uint64_t own_prefix() const { return own_prefix_; }

 private:
  struct Peer;
  void OnApplied(Peer* p, const Applied<smdb::AddrDb>& a);
  void OnLost(Peer* p, bool refused);
  void DialNext(Peer* p);
  ParentInfo Target(const Peer* p) const;
  void Withdraw(Peer* p);
  void Authorize(const Hello& h, DataServer::AdmitFn done);
  void TryListen();

  Reactor* reactor_;
  StreamTransport* transport_;
  Logger* log_;
  RateLimitedLog limited_;
  FederationConfig config_;
  uint64_t own_prefix_;
  ChangedFn on_changed_;
  std::unique_ptr<DataServer> server_;
  std::vector<std::unique_ptr<Peer>> peers_;
  smdb::AddrDb published_;  // what the peers are served
  Bytes published_bytes_;   // its serialization
  mutable uint64_t conflicts_ = 0;
  bool listening_ = false;
  uint64_t listen_failures_ = 0;
  std::chrono::milliseconds listen_backoff_ = kListenRetryFirst;
  Reactor::TimerId listen_retry_ = 0;
};

}  // namespace tree
}  // namespace ssa

#endif
