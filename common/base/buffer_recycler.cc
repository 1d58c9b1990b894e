// buffer_recycler.cc: see buffer_recycler.h.
#include "common/base/buffer_recycler.h"

namespace ssa {

BufferRecycler::BufferRecycler(size_t max_kept) : list_(std::make_shared<List>()) {
  list_->max_kept = max_kept;
}

BufferRecycler::~BufferRecycler() {
  std::vector<std::string> kept;
  {
    MutexLock lock(&list_->mutex);
    list_->open = false;
    kept.swap(list_->kept);
  }
}

std::string BufferRecycler::Take(size_t size_hint) {
  {
    MutexLock lock(&list_->mutex);
    std::vector<std::string>& kept = list_->kept;
    size_t best = kept.size();
    for (size_t i = 0; i < kept.size(); ++i)
      if (kept[i].capacity() >= size_hint &&
          (best == kept.size() || kept[i].capacity() < kept[best].capacity()))
        best = i;
    if (best != kept.size()) {
      std::string s = std::move(kept[best]);
      kept[best] = std::move(kept.back());
      kept.pop_back();
      list_->counters.kept_bytes -= s.capacity();
      ++list_->counters.reused;
      s.clear();  // keeps the capacity
      return s;
    }
    ++list_->counters.fresh;
  }
  std::string s;
  if (size_hint) s.reserve(size_hint + size_hint / 64);
  return s;
}

std::shared_ptr<const std::string> BufferRecycler::Share(std::string s) {
  std::shared_ptr<List> list = list_;
  return std::shared_ptr<const std::string>(
      new std::string(std::move(s)),
      [list](const std::string* p) { Release(list, const_cast<std::string*>(p)); });
}

void BufferRecycler::Release(const std::shared_ptr<List>& list, std::string* s) {
  std::unique_ptr<std::string> owned(s);  // freed after the lock, unless kept
  MutexLock lock(&list->mutex);
  if (list->open && list->kept.size() < list->max_kept && s->capacity() >= kMinKept) {
    list->counters.kept_bytes += s->capacity();
    ++list->counters.returned;
    list->kept.push_back(std::move(*s));
  } else {
    ++list->counters.dropped;
  }
}

BufferRecycler::Counters BufferRecycler::counters() const {
  MutexLock lock(&list_->mutex);
  Counters c = list_->counters;
  c.kept = list_->kept.size();
  return c;
}

}  // namespace ssa
