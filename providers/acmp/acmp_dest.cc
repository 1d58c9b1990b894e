// acmp_dest.cc: the destination cache (acmp_dest.h).
#include "providers/acmp/acmp_dest.h"

#include <cstring>

#include "providers/acmp/acmp_wire.h"

namespace ssa {
namespace acmp {

const char* DestStateName(DestState s) {
  switch (s) {
    case DestState::kInit: return "init";
    case DestState::kQueryAddr: return "query-addr";
    case DestState::kAddrResolved: return "addr-resolved";
    case DestState::kQueryRoute: return "query-route";
    case DestState::kReady: return "ready";
  }
  return "?";
}

std::string Dest::Name() const { return AddressText(addr_type, addr); }

Dest* DestCache::Find(const std::string& key) {
  auto it = entries_.find(key);
  return it == entries_.end() ? nullptr : it->second.get();
}

Dest* DestCache::Find(uint8_t type, const uint8_t* addr) { return Find(AddressKey(type, addr)); }

Dest* DestCache::Acquire(uint8_t type, const uint8_t* addr, bool* created) {
  std::string key = AddressKey(type, addr);
  if (created) *created = false;
  if (Dest* d = Find(key)) return d;
  if (entries_.size() >= capacity_ && !EvictOne()) return nullptr;
  auto d = std::make_unique<Dest>();
  d->key = key;
  d->addr_type = type;
  memcpy(d->addr, addr, sizeof(d->addr));
  Dest* raw = d.get();
  entries_.emplace(key, std::move(d));
  if (created) *created = true;
  return raw;
}

bool DestCache::Refresh(Dest* dest, uint64_t now_ms) {
  if (dest->state != DestState::kReady) return false;
  if (now_ms >= dest->addr_expires_ms) {
    dest->state = DestState::kInit;
    return true;
  }
  if (now_ms >= dest->route_expires_ms) {
    dest->state = DestState::kAddrResolved;
    return true;
  }
  return false;
}

void DestCache::MakeReady(Dest* dest, uint64_t now_ms, uint64_t addr_lifetime_ms,
                          uint64_t route_lifetime_ms) {
  auto after = [now_ms](uint64_t lifetime) {
    return lifetime >= kNever - now_ms ? kNever : now_ms + lifetime;
  };
  dest->addr_expires_ms = after(addr_lifetime_ms);
  dest->route_expires_ms = after(route_lifetime_ms);
  dest->state = DestState::kReady;
}

void DestCache::Erase(const std::string& key) { entries_.erase(key); }

size_t DestCache::EraseIf(const std::function<bool(const Dest&)>& match,
                          const std::function<void(Dest&)>& before) {
  size_t n = 0;
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (match(*it->second)) {
      if (before) before(*it->second);
      it = entries_.erase(it);
      ++n;
    } else {
      ++it;
    }
  }
  return n;
}

void DestCache::ForEach(const std::function<void(Dest&)>& fn) {
  for (auto& kv : entries_) fn(*kv.second);
}

bool DestCache::EvictOne() {
  // Only entries nobody waits for and no query will come back to.
  auto idle = [](const Dest& d) {
    return d.waiters.empty() && !d.answer_pending &&
           (d.state == DestState::kReady || d.state == DestState::kInit ||
            d.state == DestState::kAddrResolved);
  };
  auto victim = entries_.end();
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (!idle(*it->second)) continue;
    victim = it;
    if (it->second->state == DestState::kInit) break;  // the cheapest to lose
  }
  if (victim == entries_.end()) return false;
  entries_.erase(victim);
  ++evictions_;
  return true;
}

}  // namespace acmp
}  // namespace ssa
