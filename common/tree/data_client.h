// data_client.h: the child side of the data channel (frame.h): connects to
// the parent the core assigned (or at once to the backup when the parent's
// connection breaks), presents the join token, takes data only from a peer
// that proves the link key the core gave for that parent (link_auth.h) and
// proves its own, and applies every transfer
// through a Replica, acknowledging each verified version or asking for the
// full database when a result's digest disagrees.
//
// What the owner hears: on_lost(guid, refused) when a parent is lost or
// refused us (the owner joins again, naming it), on_applied after each
// verified version (through the Replica's own callback).
//
// Ownership: borrows the reactor, transport, replica and log. Loop thread
// only.
#ifndef IBACM_SSA_COMMON_TREE_DATA_CLIENT_H
#define IBACM_SSA_COMMON_TREE_DATA_CLIENT_H

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "common/base/log.h"
#include "common/base/rate_limit.h"
#include "common/base/reactor.h"
#include "common/tree/db_version.h"
#include "common/tree/frame.h"
#include "common/tree/stream.h"

namespace ssa {
namespace tree {

struct DataClientCounters {
  uint64_t connects = 0;
  uint64_t reconnects = 0;      // connections after the first
  uint64_t parent_changes = 0;  // switched to another parent
  uint64_t full_received = 0;
  uint64_t delta_received = 0;
  uint64_t digest_mismatches = 0;
  uint64_t refused = 0;
  uint64_t bytes_received = 0;
  uint64_t older_ignored = 0;  // versions older than the one held, not taken
  // Peers at a parent's address whose WELCOME did not prove the parent's
  // link key (another process on its port) or named another GUID.
  uint64_t unproven_parents = 0;
};

class DataClient {
 public:
  // A parent was lost (connection broke) or refused us (`refused`).
  using LostFn = std::function<void(uint64_t parent_guid, bool refused)>;

  // `hello` gives the roles, GUID and kind; token, epoch and digest are
  // filled at each connection.
  DataClient(Reactor* reactor, StreamTransport* transport, Logger* log, Replica* replica,
             Hello hello, LostFn on_lost);
  ~DataClient();
  DataClient(const DataClient&) = delete;
  DataClient& operator=(const DataClient&) = delete;

  // The core's assignment (each with its link key). Connects to `parent`
  // unless already connected
  // to it (or to `backup` after losing the parent: it stays there until the
  // core assigns differently).
  void SetParents(const ParentInfo& parent, const ParentInfo& backup, const Token& token);
  void Stop();
  // Connects again to the parent serving now (the replica was reset: the
  // new HELLO says what it holds now).
  void Reconnect() {
    if (state_ != State::kIdle) Connect(target_);
  }
  // A replica whose owner puts each version in place later (the ssa
  // provider indexes a PRDB first) logs "verified", not "in place": the
  // owner's line says when it answers from it.
  void set_owner_installs(bool v) { owner_installs_ = v; }

  bool connected() const { return state_ == State::kActive; }
  // The parent serving us now (0: none).
  uint64_t serving_guid() const { return state_ == State::kIdle ? 0 : target_.guid; }
  uint16_t serving_lid() const { return state_ == State::kIdle ? 0 : target_.lid; }
  const DataClientCounters& counters() const { return counters_; }
  // The newest epoch the serving parent said it holds (its WELCOME, then
  // each transfer it began); 0 before it said any. Against the replica's
  // epoch it is how far behind the parent we are.
  uint64_t parent_epoch() const { return parent_epoch_; }

 private:
  enum class State { kIdle, kConnecting, kHello, kActive };

  void Connect(const ParentInfo& p);
  void OnEvent(uint32_t events);
  // May take the frame's payload (a whole transfer in one chunk).
  void OnFrame(Frame* f);
  // The WELCOME: the parent proven (PROOF sent, active) or not (closed).
  void OnWelcome(const Frame& f);
  void FinishTransfer();
  void Send(const std::string& frame);
  void Flush();
  void Disconnect(const std::string& why, bool lost, bool refused);
  void Failover();
  void Tick();

  Reactor* reactor_;
  StreamTransport* transport_;
  Logger* log_;
  RateLimitedLog limited_;
  Replica* replica_;
  Hello hello_;
  bool owner_installs_ = false;
  LostFn on_lost_;
  ParentInfo parent_, backup_, target_;
  Token token_{};
  std::string hello_payload_;  // the HELLO sent on this connection
  State state_ = State::kIdle;
  std::unique_ptr<Stream> stream_;
  FrameReader reader_;
  std::string out_;
  bool want_write_ = false;
  bool in_xfer_ = false;
  bool xfer_crc_is_digest_ = false;  // the transfer came in one frame whose CRC is its digest
  XferBegin xfer_;
  std::shared_ptr<std::string> xfer_bytes_;
  Reactor::TimerId tick_ = 0;
  Reactor::TimerId retry_ = 0;
  int backoff_ms_ = 0;
  int fail_streak_ = 0;  // connections lost or failed since the last WELCOME
  std::chrono::steady_clock::time_point last_rx_, last_tx_;
  DataClientCounters counters_;
  uint64_t parent_epoch_ = 0;
};

}  // namespace tree
}  // namespace ssa

#endif
