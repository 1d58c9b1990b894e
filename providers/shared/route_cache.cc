// route_cache.cc: lookup set, LRU list and expiry of the path-record cache
// (see route_cache.h).
#include "providers/shared/route_cache.h"

#include <boost/functional/hash.hpp>

namespace ssa {
namespace provider_shared {

namespace {
// Enough buckets for a small cache; the set doubles them as it grows.
constexpr size_t kInitialBuckets = 64;
}  // namespace

size_t hash_value(const RouteKey& key) {
  size_t seed = 0;
  boost::hash_combine(seed, key.endpoint);
  boost::hash_combine(seed, static_cast<unsigned>(key.kind));
  // A GID's interface ID (bytes 8..15) is what varies inside one subnet.
  boost::hash_range(seed, key.dest, key.dest + sizeof(key.dest));
  return seed;
}

RouteCache::RouteCache(size_t capacity)
    : capacity_(capacity),
      buckets_(kInitialBuckets),
      set_(Set::bucket_traits(buckets_.data(), buckets_.size())) {}

RouteCache::~RouteCache() {
  lru_.clear();
  set_.clear_and_dispose([](RouteEntry* e) { delete e; });
}

RouteEntry* RouteCache::Peek(const RouteKey& key) {
  auto it = set_.find(key);
  return it == set_.end() ? nullptr : &*it;
}

RouteEntry* RouteCache::Find(const RouteKey& key, uint64_t now_ms) {
  RouteEntry* e = Peek(key);
  if (!e || e->state == RouteState::kPending) return e;
  if (e->expires_ms <= now_ms) {
    ++stats_.expirations;
    Free(e);
    return nullptr;
  }
  lru_.erase(lru_.iterator_to(*e));
  lru_.push_front(*e);
  return e;
}

void RouteCache::Insert(RouteEntry* entry) {
  // Keep the load factor at or below 1: lookups stay O(1) as the cache grows.
  if (set_.size() + 1 > buckets_.size()) {
    std::vector<Set::bucket_type> bigger(buckets_.size() * 2);
    set_.rehash(Set::bucket_traits(bigger.data(), bigger.size()));
    buckets_.swap(bigger);
  }
  set_.insert(*entry);
}

RouteEntry* RouteCache::AddPending(const RouteKey& key, uint64_t generation, uint64_t query_token) {
  auto* e = new RouteEntry;
  e->key = key;
  e->state = RouteState::kPending;
  e->generation = generation;
  e->query_token = query_token;
  Insert(e);
  return e;
}

void RouteCache::MakeCompleted(RouteEntry* entry) {
  if (entry->lru_hook.is_linked()) lru_.erase(lru_.iterator_to(*entry));
  lru_.push_front(*entry);
  EvictBeyondCapacity();
}

void RouteCache::CompleteValid(RouteEntry* entry, const ibv_path_record& path,
                               uint64_t expires_ms) {
  entry->state = RouteState::kValid;
  entry->status = 0;
  entry->path = path;
  entry->expires_ms = expires_ms;
  entry->waiters.clear();
  MakeCompleted(entry);
}

void RouteCache::CompleteFailed(RouteEntry* entry, uint8_t status, uint64_t expires_ms) {
  entry->state = RouteState::kFailed;
  entry->status = status;
  entry->path = ibv_path_record{};
  entry->expires_ms = expires_ms;
  entry->waiters.clear();
  MakeCompleted(entry);
}

bool RouteCache::Put(const RouteKey& key, const ibv_path_record& path, uint64_t expires_ms,
                     uint64_t generation) {
  RouteEntry* e = Peek(key);
  if (e && e->state == RouteState::kPending) return false;
  if (!e) {
    e = new RouteEntry;
    e->key = key;
    Insert(e);
  }
  e->generation = generation;
  e->query_token = 0;
  CompleteValid(e, path, expires_ms);
  return true;
}

void RouteCache::EvictBeyondCapacity() {
  while (lru_.size() > capacity_) {
    RouteEntry& victim = lru_.back();
    ++stats_.evictions;
    Free(&victim);
  }
}

void RouteCache::Free(RouteEntry* entry) {
  if (entry->lru_hook.is_linked()) lru_.erase(lru_.iterator_to(*entry));
  set_.erase(set_.iterator_to(*entry));
  delete entry;
}

void RouteCache::Erase(RouteEntry* entry) { Free(entry); }

size_t RouteCache::EraseIf(const std::function<bool(const RouteEntry&)>& match,
                           const std::function<void(RouteEntry&)>& before_erase) {
  std::vector<RouteEntry*> doomed;
  for (RouteEntry& e : set_)
    if (match(e)) doomed.push_back(&e);
  for (RouteEntry* e : doomed) {
    if (before_erase) before_erase(*e);
    Free(e);
  }
  return doomed.size();
}

}  // namespace provider_shared
}  // namespace ssa
