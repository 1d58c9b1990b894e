// acmp_dest.h: an acmp endpoint's destinations: the address cache and the
// route cache in one entry per destination address, as upstream acmp keeps
// them, with its states:
//
//   kInit          nothing known (new, failed, or its address expired)
//   kQueryAddr     an ACM resolve request is out for it
//   kAddrResolved  its LID/GID/QPN are known (from an ACM message, the
//                  hosts file or a path request), its route is not
//   kQueryRoute    an SA PathRecord query is out for it
//   kReady         address and route known: requests are answered at once
//
// A kReady entry whose address lifetime passed goes back to kInit, one whose
// route lifetime passed to kAddrResolved (Refresh()). Client requests that
// arrive while a query is out wait in the entry (`waiters`), each with a
// copy of its request so it can be started again after a flush.
//
// The cache holds at most `capacity` entries; when full, Acquire() reuses
// an entry nobody waits for (kReady or kInit first) or fails.
//
// Ownership: the cache owns its entries; a Dest* stays valid until the next
// Erase/EraseIf/Acquire that evicts. Threads: one (the core's loop thread).
#ifndef IBACM_SSA_PROVIDERS_ACMP_ACMP_DEST_H
#define IBACM_SSA_PROVIDERS_ACMP_ACMP_DEST_H

#include <infiniband/sa.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <ibacm_ssa/provider.h>
#include "providers/acmp/acmp_options.h"
#include "providers/acmp/datagram_transport.h"

namespace ssa {
namespace acmp {

enum class DestState { kInit, kQueryAddr, kAddrResolved, kQueryRoute, kReady };
const char* DestStateName(DestState s);

// A client request waiting for its destination.
struct Waiter {
  uint64_t req_id = 0;
  bool is_query = false;
  ssa_resolve_request request{};  // the request as the core gave it
};

struct Dest {
  std::string key;  // AddressKey()
  uint8_t addr_type = 0;
  uint8_t addr[64] = {};
  DestState state = DestState::kInit;
  ibv_path_record path{};   // network order
  dgram::AddressVector av;  // how to send to it
  uint32_t remote_qpn = 0;
  dgram::Gid mgid;              // the group its address was learned through
  bool answer_pending = false;  // we own the address it asked for: answer
  uint64_t answer_tid = 0;      // ... its request with this TID
  uint64_t route_query = 0;     // the SA query that may complete it (token)
  uint64_t addr_request = 0;    // TID of the ACM request that may complete it
  uint64_t addr_expires_ms = kNever;
  uint64_t route_expires_ms = kNever;
  std::vector<Waiter> waiters;

  std::string Name() const;
};

class DestCache {
 public:
  explicit DestCache(size_t capacity) : capacity_(capacity) {}
  DestCache(const DestCache&) = delete;
  DestCache& operator=(const DestCache&) = delete;

  Dest* Find(const std::string& key);
  Dest* Find(uint8_t type, const uint8_t* addr);
  // The entry for (type, addr), created in kInit if missing (*created set).
  // Null when the cache is full and nothing can be evicted.
  Dest* Acquire(uint8_t type, const uint8_t* addr, bool* created = nullptr);

  // Applies the lifetimes at `now_ms`; true if the entry lost its state.
  static bool Refresh(Dest* dest, uint64_t now_ms);
  // Marks the entry kReady with lifetimes from `now_ms`.
  static void MakeReady(Dest* dest, uint64_t now_ms, uint64_t addr_lifetime_ms,
                        uint64_t route_lifetime_ms);

  void Erase(const std::string& key);
  // Calls `before` (which may take the waiters) on every entry matching
  // `match`, then removes them; returns how many.
  size_t EraseIf(const std::function<bool(const Dest&)>& match,
                 const std::function<void(Dest&)>& before = nullptr);
  void ForEach(const std::function<void(Dest&)>& fn);

  size_t size() const { return entries_.size(); }
  size_t capacity() const { return capacity_; }
  uint64_t evictions() const { return evictions_; }

 private:
  bool EvictOne();

  size_t capacity_;
  std::unordered_map<std::string, std::unique_ptr<Dest>> entries_;
  uint64_t evictions_ = 0;
};

}  // namespace acmp
}  // namespace ssa

#endif
