// route_cache.h: the sa provider's cache of path records, keyed by
// (endpoint, destination), built on Boost.Intrusive. The acmp provider
// keeps its own destinations and uses only RouteKey (route_key.h), to
// build route queries (path_query.h).
//
// Every entry sits in one intrusive unordered_set (lookup by RouteKey).
// Completed entries (a path, or a failure status for the negative cache)
// also sit in one intrusive LRU list; when more than `capacity` completed
// entries exist, the least recently used ones are dropped. Pending entries
// (an SA query is in flight) stay out of the LRU list: they hold the ids of
// the requests waiting for that query (coalescing), and dropping one would
// leave its waiters unanswered. Their number is bounded by the requests in
// flight, not by the capacity.
//
// Expiry is lazy: Find() drops a completed entry whose time has passed. Time
// is whatever millisecond clock the caller passes in (tests pass their own).
//
// Ownership: the cache owns its entries (allocated on insert, freed on
// erase, eviction or destruction); pointers it returns stay valid until the
// next call that may erase (Find, Complete*, Put, Erase*, the destructor).
// Threads: none of its own; one thread at a time (the core's loop thread).
#ifndef IBACM_SSA_PROVIDERS_SHARED_ROUTE_CACHE_H
#define IBACM_SSA_PROVIDERS_SHARED_ROUTE_CACHE_H

#include <infiniband/sa.h>

#include <boost/intrusive/list.hpp>
#include <boost/intrusive/unordered_set.hpp>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

#include "providers/shared/route_key.h"

namespace ssa {
namespace provider_shared {

constexpr uint64_t kNeverExpires = UINT64_MAX;

// For the lookup set.
size_t hash_value(const RouteKey& key);

enum class RouteState : uint8_t {
  kPending,  // an SA query is in flight; `waiters` wait for it
  kValid,    // `path` is the answer
  kFailed,   // negative entry: `status` is the answer
};

class RouteEntry {
 public:
  RouteKey key;
  RouteState state = RouteState::kPending;
  uint8_t status = 0;      // ACM_STATUS_* of a failed entry
  ibv_path_record path{};  // network order, as the SA answered
  uint64_t expires_ms = kNeverExpires;
  uint64_t generation = 0;        // the port's generation when the query started
  uint64_t query_token = 0;       // which SA query may complete this entry
  std::vector<uint64_t> waiters;  // request ids (pending entries only)

  boost::intrusive::unordered_set_member_hook<> set_hook;
  boost::intrusive::list_member_hook<> lru_hook;
};

class RouteCache {
 public:
  struct Stats {
    uint64_t evictions = 0;    // completed entries dropped for the size bound
    uint64_t expirations = 0;  // completed entries dropped by Find() when expired
  };

  // `capacity`: how many completed entries are kept (0: none; answers are
  // then used only for the requests that waited for them).
  explicit RouteCache(size_t capacity);
  ~RouteCache();
  RouteCache(const RouteCache&) = delete;
  RouteCache& operator=(const RouteCache&) = delete;

  // The entry for `key`, or nullptr. An expired completed entry is erased
  // and nullptr returned. A completed entry found is moved to the LRU front.
  RouteEntry* Find(const RouteKey& key, uint64_t now_ms);
  // As Find, but neither expires nor touches (for SA completions).
  RouteEntry* Peek(const RouteKey& key);

  // Adds a pending entry for `key`, which must not be present.
  RouteEntry* AddPending(const RouteKey& key, uint64_t generation, uint64_t query_token);
  // Turns a pending entry into a valid (or failed) one that expires at
  // `expires_ms`. Its waiters must have been taken. The entry may be
  // evicted at once (capacity 0): do not use it afterwards.
  void CompleteValid(RouteEntry* entry, const ibv_path_record& path, uint64_t expires_ms);
  void CompleteFailed(RouteEntry* entry, uint8_t status, uint64_t expires_ms);
  // Inserts or replaces a valid entry (route preload). A pending entry for
  // the key is left alone (its query answers soon) and false returned.
  bool Put(const RouteKey& key, const ibv_path_record& path, uint64_t expires_ms,
           uint64_t generation);

  // Frees one entry (a pending one's waiters must have been taken).
  void Erase(RouteEntry* entry);
  // Hands every entry matching `match` to `before_erase` (which may take
  // pending waiters), then frees it. Returns how many were erased.
  size_t EraseIf(const std::function<bool(const RouteEntry&)>& match,
                 const std::function<void(RouteEntry&)>& before_erase = nullptr);

  size_t size() const { return set_.size(); }
  size_t completed() const { return lru_.size(); }
  size_t capacity() const { return capacity_; }
  const Stats& stats() const { return stats_; }

 private:
  struct KeyOf {
    using type = RouteKey;
    const RouteKey& operator()(const RouteEntry& e) const { return e.key; }
  };
  using SetHook =
      boost::intrusive::member_hook<RouteEntry, boost::intrusive::unordered_set_member_hook<>,
                                    &RouteEntry::set_hook>;
  using Set =
      boost::intrusive::unordered_set<RouteEntry, SetHook, boost::intrusive::key_of_value<KeyOf>,
                                      boost::intrusive::power_2_buckets<true>>;
  using LruHook = boost::intrusive::member_hook<RouteEntry, boost::intrusive::list_member_hook<>,
                                                &RouteEntry::lru_hook>;
  using Lru = boost::intrusive::list<RouteEntry, LruHook>;

  void Insert(RouteEntry* entry);
  void MakeCompleted(RouteEntry* entry);  // into the LRU front, then the bound
  void EvictBeyondCapacity();
  void Free(RouteEntry* entry);  // unlinks from both, deletes

  size_t capacity_;
  std::vector<Set::bucket_type> buckets_;
  Set set_;
  Lru lru_;  // front = most recently used
  Stats stats_;
};

}  // namespace provider_shared
}  // namespace ssa

#endif
