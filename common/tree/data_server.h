// data_server.h: the parent side of the data channel (frame.h): accepts
// children, checks who they are (an injected authorizer: the core's book
// at the core, a TokenCheck MAD elsewhere, which also give the link key;
// then the child's PROOF that it holds that key, link_auth.h), and keeps each one at the
// current version of what it subscribed to, pushing every new version as
// the chain of deltas when it can and in full otherwise.
//
// Slow children never stall the others: every child has its own output
// queue of shared buffers, and new transfers are queued for a child only
// while its queue is below max_queue_bytes; once it drains, the child is
// brought from what was queued to the newest version in one go (a delta
// chain or the full database). Refusals, bad frames and dead peers are
// counted and logged (rate-limited) and never affect other children.
//
// Ownership: borrows the reactor, transport and log. Loop thread only.
#ifndef IBACM_SSA_COMMON_TREE_DATA_SERVER_H
#define IBACM_SSA_COMMON_TREE_DATA_SERVER_H

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "common/base/log.h"
#include "common/base/rate_limit.h"
#include "common/base/reactor.h"
#include "common/tree/db_version.h"
#include "common/tree/frame.h"
#include "common/tree/stream.h"

namespace ssa {
namespace tree {

struct DataServerOptions {
  uint64_t guid = 0;  // this parent's port GUID (in WELCOME)
  size_t max_children = 1024;
  size_t max_queue_bytes = 32u << 20;
  int hello_timeout_ms = 5000;
  int keepalive_ms = 5000;
  int dead_after_ms = 20000;
};

struct DataServerCounters {
  uint64_t connections = 0;
  uint64_t refused = 0;
  uint64_t bad_frames = 0;
  uint64_t full_transfers = 0;
  uint64_t delta_transfers = 0;
  uint64_t bytes_sent = 0;
  uint64_t need_full = 0;
  uint64_t queries = 0;
  uint64_t bad_proofs = 0;  // children whose PROOF did not show the link key
};

// A child as the parent sees it (for logs and the tree view).
struct ChildInfo {
  uint64_t guid = 0;
  uint8_t roles = 0;
  std::string key;
  std::string peer;
  uint64_t acked_epoch = 0;
  uint64_t bytes_sent = 0;
};

class DataServer {
 public:
  // The authorizer's answer: reason 0 serves `key` to a child that must
  // prove `link` (the link key the core derived for this parent and the
  // child); kRefuse* refuses.
  using AdmitFn = std::function<void(uint16_t reason, const std::string& key, const LinkKey& link)>;
  // Decides on a HELLO. May answer later (after a MAD round trip).
  using AuthorizeFn = std::function<void(const Hello& hello, AdmitFn done)>;
  // A child was admitted for `key` (e.g. compute its PRDB if new).
  using SubscribeFn = std::function<void(const std::string& key, const Hello& hello)>;
  // A QUERY's answer (the tree's state, ...); empty: unknown query.
  using QueryFn = std::function<std::string(const std::string& name)>;

  DataServer(Reactor* reactor, StreamTransport* transport, Logger* log, DataServerOptions options,
             AuthorizeFn authorize, SubscribeFn on_subscribe = nullptr, QueryFn on_query = nullptr);
  ~DataServer();
  DataServer(const DataServer&) = delete;
  DataServer& operator=(const DataServer&) = delete;

  Status Listen(const DataAddress& address);
  DataAddress address() const;
  void Close();

  // A new version of `key` (its delta from `delta_from` optional); every
  // child of that key is brought to it.
  void Publish(const std::string& key, const DbVersion& version, Bytes delta, uint64_t delta_from);
  // Closes the children of `key` and forgets it.
  void Drop(const std::string& key);
  const Publication* Find(const std::string& key) const;

  const DataServerCounters& counters() const { return counters_; }
  // Members connected now (admitted), each counted once: a member takes
  // each database over a connection of its own (a consumer: its PRDB and
  // the address database).
  size_t child_count() const;
  std::vector<ChildInfo> Children() const;

 private:
  struct OutChunk {
    Bytes buf;
    size_t off = 0;
    size_t end = 0;
  };
  // kProving: WELCOME sent, the child's PROOF awaited; nothing else is
  // sent or accepted until it checks.
  enum class State { kHello, kAuthorizing, kProving, kActive, kClosing };
  struct Child {
    uint64_t id = 0;
    std::unique_ptr<Stream> stream;
    FrameReader reader;
    State state = State::kHello;
    Hello hello;
    std::string hello_payload, welcome_payload;  // what the tags cover
    LinkKey link{};
    std::string key;
    std::deque<OutChunk> out;
    size_t queued = 0;
    bool want_write = false;
    uint64_t sent_epoch = 0;  // the version the queued transfers end at
    uint32_t sent_digest = 0;
    bool need_full = false;
    uint64_t acked_epoch = 0;
    uint64_t bytes_sent = 0;
    std::chrono::steady_clock::time_point last_rx, last_tx, since;
  };

  void OnAccept();
  void OnEvent(uint64_t id, uint32_t events);
  void OnFrame(Child* c, const Frame& f);
  void Admit(uint64_t id, uint16_t reason, const std::string& key, const LinkKey& link);
  // The child's PROOF arrived: serve it, or refuse it when the tag is wrong.
  void OnProof(Child* c, const Frame& f);
  void Sync(Child* c);
  void QueueTransfer(Child* c, uint8_t kind, uint64_t from, uint64_t to, uint32_t digest,
                     const Bytes& bytes);
  void Queue(Child* c, std::string frame);
  void Flush(Child* c);
  void UpdateWatch(Child* c);
  void CloseChild(uint64_t id, const std::string& why);
  void RefuseChild(Child* c, uint16_t reason, const std::string& text);
  void Tick();

  Reactor* reactor_;
  StreamTransport* transport_;
  Logger* log_;
  RateLimitedLog limited_;
  DataServerOptions options_;
  AuthorizeFn authorize_;
  SubscribeFn on_subscribe_;
  QueryFn on_query_;
  std::unique_ptr<StreamListener> listener_;
  std::map<uint64_t, std::unique_ptr<Child>> children_;
  std::map<std::string, Publication> pubs_;
  // The active children of each key: a publication visits its own
  // children, not all of them (an access node has one key per consumer).
  std::map<std::string, std::set<uint64_t>> subscribers_;
  uint64_t next_id_ = 1;
  Reactor::TimerId tick_ = 0;
  Reactor::TimerId accept_retry_ = 0;  // watching the listener again after EMFILE
  DataServerCounters counters_;
};

}  // namespace tree
}  // namespace ssa

#endif
