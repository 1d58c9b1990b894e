// prdb_image.cc: see prdb_image.h.
#include "common/smdb/prdb_image.h"

#include <algorithm>
#include <cstring>

namespace ssa {
namespace smdb {

PrdbImage::PrdbImage(std::shared_ptr<const std::string> whole) : base_(std::move(whole)) {}

PrdbImage::PrdbImage(std::shared_ptr<const std::string> base, std::string head,
                     std::shared_ptr<const Overrides> overrides)
    : base_(std::move(base)), head_(std::move(head)), overrides_(std::move(overrides)) {
  if (!overrides_) overrides_ = std::make_shared<const Overrides>();
}

const uint8_t* PrdbImage::head() const {
  return reinterpret_cast<const uint8_t*>(head_.empty() ? base_->data() : head_.data());
}

const uint8_t* PrdbImage::PathAt(uint32_t i, const uint8_t* base_paths) const {
  if (overrides_ && !overrides_->empty()) {
    auto it = std::lower_bound(overrides_->begin(), overrides_->end(), i,
                               [](const Override& o, uint32_t pos) { return o.pos < pos; });
    if (it != overrides_->end() && it->pos == i) return it->record;
  }
  return base_paths + size_t{i} * kPathSize;
}

void PrdbImage::Materialize(std::string* out) const {
  out->assign(*base_);
  if (whole()) return;
  char* b = &(*out)[0];
  std::memcpy(b, head(), kHeadSize);
  for (const Override& o : *overrides_)
    std::memcpy(b + kHeadSize + size_t{o.pos} * kPathSize, o.record, kPathSize);
}

std::shared_ptr<const std::string> PrdbImage::Bytes() const {
  if (whole()) return base_;
  MutexLock lock(&made_mutex_);
  if (!made_) {
    auto s = std::make_shared<std::string>();
    Materialize(s.get());
    made_ = std::move(s);
  }
  return made_;
}

std::shared_ptr<const std::string> PrdbImage::MadeBytes() const {
  if (whole()) return base_;
  MutexLock lock(&made_mutex_);
  return made_;
}

}  // namespace smdb
}  // namespace ssa
