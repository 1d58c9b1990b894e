// buffer_recycler.h: large byte buffers (std::string) shared as immutable
// `std::shared_ptr<const std::string>` whose memory, when the last
// reference drops, goes back to a small free list here instead of to
// malloc; the next buffer is built in it.
//
// Why: an access node replaces every consumer's PRDB serialization on each
// update (0.5 MB each at 10k HCAs), building the new one on a worker
// thread while the old one is still published, and freeing the old one on
// the loop thread after publishing the new. Left to malloc, whether the
// freed memory is found again depends on its per-thread arenas (a buffer
// freed into one worker's arena does not serve another's), and an
// update could leave the process one whole copy of its PRDBs bigger. With
// the list, a steady update reuses the same few buffers: no new memory is
// touched once the list is warm.
//
// Bounded: at most `max_kept` buffers wait in the list; a buffer released
// while the list is full, or smaller than kMinKept (malloc serves small
// ones well), goes back to malloc. Buffers may outlive the
// recycler (they are then freed normally). Thread-safe.
#ifndef IBACM_SSA_COMMON_BASE_BUFFER_RECYCLER_H
#define IBACM_SSA_COMMON_BASE_BUFFER_RECYCLER_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/base/mutex.h"

namespace ssa {

class BufferRecycler {
 public:
  static constexpr size_t kMinKept = 64 << 10;

  explicit BufferRecycler(size_t max_kept);
  ~BufferRecycler();
  BufferRecycler(const BufferRecycler&) = delete;
  BufferRecycler& operator=(const BufferRecycler&) = delete;

  // An empty string to build a buffer in: a kept one whose capacity is at
  // least `size_hint` when there is one (the smallest such), else a new
  // one with that capacity and 1/64 more reserved (so a next version a
  // few records bigger still fits when it comes back).
  std::string Take(size_t size_hint);
  // `s` as a shared immutable buffer whose memory comes back here when its
  // last reference drops.
  std::shared_ptr<const std::string> Share(std::string s);

  struct Counters {
    uint64_t reused = 0;    // Take() served from the list
    uint64_t fresh = 0;     // Take() with nothing suitable kept
    uint64_t returned = 0;  // buffers kept when released
    uint64_t dropped = 0;   // buffers freed when released (list full, small, or closed)
    size_t kept = 0;        // in the list now
    size_t kept_bytes = 0;  // their capacities
  };
  Counters counters() const;

 private:
  // Shared with every buffer's deleter, so a buffer released after the
  // recycler is gone finds `open` false and is simply freed.
  struct List {
    Mutex mutex;
    bool open GUARDED_BY(mutex) = true;
    size_t max_kept GUARDED_BY(mutex);
    std::vector<std::string> kept GUARDED_BY(mutex);
    Counters counters GUARDED_BY(mutex);
  };
  static void Release(const std::shared_ptr<List>& list, std::string* s);

  std::shared_ptr<List> list_;
};

}  // namespace ssa

#endif
