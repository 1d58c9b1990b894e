// fair_queue.h: a queue shared by several owners (the clients of a daemon)
// that hands its items out round robin between owners: each owner's items
// wait in their own FIFO, and Pop() takes the front item of the owner whose
// turn it is, then sends that owner to the back of the turn order. So an
// owner that queued a thousand items before another queued one delays that
// one by at most one item per owner, not by a thousand (the SA queue,
// common/mad/sa_client.h).
//
// A plain container: one thread, no locking; the caller owns the items.
#ifndef IBACM_SSA_COMMON_BASE_FAIR_QUEUE_H
#define IBACM_SSA_COMMON_BASE_FAIR_QUEUE_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ssa {

template <typename T>
class FairQueue {
 public:
  using Owner = uint64_t;

  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  // Owners with items waiting: how many shares the queue is split into.
  size_t owners() const { return turns_.size(); }

  void Push(Owner owner, T item) {
    std::deque<T>& q = queues_[owner];
    if (q.empty()) turns_.push_back(owner);  // a newcomer waits one round at most
    q.push_back(std::move(item));
    ++size_;
  }

  // The front item of the owner whose turn it is. Not on an empty queue.
  T Pop() {
    Owner owner = turns_.front();
    turns_.pop_front();
    auto it = queues_.find(owner);
    T item = std::move(it->second.front());
    it->second.pop_front();
    --size_;
    if (it->second.empty())
      queues_.erase(it);
    else
      turns_.push_back(owner);
    return item;
  }

  // Moves the first of `owner`'s items for which `pred` holds into `out`
  // and removes it; false when there is none.
  template <typename Pred>
  bool Remove(Owner owner, Pred pred, T* out) {
    auto it = queues_.find(owner);
    if (it == queues_.end()) return false;
    std::deque<T>& q = it->second;
    for (auto item = q.begin(); item != q.end(); ++item) {
      if (!pred(*item)) continue;
      *out = std::move(*item);
      q.erase(item);
      --size_;
      if (q.empty()) {
        queues_.erase(it);
        turns_.erase(std::find(turns_.begin(), turns_.end(), owner));
      }
      return true;
    }
    return false;
  }

  template <typename Fn>
  void ForEach(Fn fn) {
    for (auto& entry : queues_)
      for (T& item : entry.second) fn(item);
  }

  // Empties the queue; the items in no particular order.
  std::vector<T> TakeAll() {
    std::vector<T> all;
    all.reserve(size_);
    for (auto& entry : queues_)
      for (T& item : entry.second) all.push_back(std::move(item));
    queues_.clear();
    turns_.clear();
    size_ = 0;
    return all;
  }

 private:
  std::unordered_map<Owner, std::deque<T>> queues_;  // only owners with items
  std::deque<Owner> turns_;                          // those owners, next turn first
  size_t size_ = 0;
};

}  // namespace ssa

#endif
