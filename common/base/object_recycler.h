// object_recycler.h: large objects shared as immutable
// `std::shared_ptr<const T>` that, when the last reference drops, wait
// here (up to `max_kept`) to be built over again instead of being freed:
// BufferRecycler's idea for a whole parsed database.
//
// Why: a member's SMDB replica makes a new version per epoch by copying the
// old one and applying the delta (tree::DbReplica). At the full subnet the
// copy is 171 MB; into fresh memory, each page is a first-touch fault (5 s
// per GiB on this project's virtual machines, doc/performance.md), which
// made an access node's SMDB update take 2 s. The version released two
// epochs ago has the right shape: copy-assigning into it reuses its
// vectors' storage, already touched. The price is one idle version kept.
//
// Objects may outlive the recycler (they are then freed normally).
// Thread-safe: the last reference may drop on any thread.
#ifndef IBACM_SSA_COMMON_BASE_OBJECT_RECYCLER_H
#define IBACM_SSA_COMMON_BASE_OBJECT_RECYCLER_H

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "common/base/mutex.h"

namespace ssa {

template <class T>
class ObjectRecycler {
 public:
  explicit ObjectRecycler(size_t max_kept = 1) : list_(std::make_shared<List>()) {
    list_->max_kept = max_kept;
  }
  ~ObjectRecycler() {
    std::vector<std::unique_ptr<T>> kept;
    MutexLock lock(&list_->mutex);
    list_->open = false;
    kept.swap(list_->kept);  // freed after the lock
  }
  ObjectRecycler(const ObjectRecycler&) = delete;
  ObjectRecycler& operator=(const ObjectRecycler&) = delete;

  // A kept object (its contents whatever they were) or a new one.
  std::unique_ptr<T> Take() {
    {
      MutexLock lock(&list_->mutex);
      if (!list_->kept.empty()) {
        std::unique_ptr<T> t = std::move(list_->kept.back());
        list_->kept.pop_back();
        ++list_->reused;
        return t;
      }
    }
    return std::make_unique<T>();
  }
  // `t` shared, coming back here when its last reference drops.
  std::shared_ptr<const T> Share(std::unique_ptr<T> t) {
    std::shared_ptr<List> list = list_;
    return std::shared_ptr<const T>(t.release(), [list](const T* p) {
      std::unique_ptr<T> owned(const_cast<T*>(p));
      MutexLock lock(&list->mutex);
      if (list->open && list->kept.size() < list->max_kept) list->kept.push_back(std::move(owned));
    });
  }
  // Take() calls served from kept objects.
  size_t reused() const {
    MutexLock lock(&list_->mutex);
    return list_->reused;
  }

 private:
  // Shared with every object's deleter, so one released after the
  // recycler is gone finds `open` false and is simply freed.
  struct List {
    Mutex mutex;
    bool open GUARDED_BY(mutex) = true;
    size_t max_kept GUARDED_BY(mutex) = 1;
    size_t reused GUARDED_BY(mutex) = 0;
    std::vector<std::unique_ptr<T>> kept GUARDED_BY(mutex);
  };
  std::shared_ptr<List> list_;
};

}  // namespace ssa

#endif
