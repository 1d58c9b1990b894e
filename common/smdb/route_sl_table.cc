// route_sl_table.cc: see route_sl_table.h.
#include "common/smdb/route_sl_table.h"

#include <algorithm>
#include <string>

namespace ssa {
namespace smdb {
namespace {

Status Invalid(const std::string& what) { return Status::Error(EINVAL, what); }

// An SL range past SL 15 is no answer an SA gives: the stream is bad.
bool BadRange(unsigned sl, unsigned span) { return span < 1 || sl + span > 16; }

}  // namespace

Status RouteSlTable::Build(const Smdb& db, bool slice, RouteSlTable* out) {
  RouteSlTable t;
  t.slice_ = slice;
  t.generation_ = db.route_sl_hints.epoch;
  t.sm_port_guid_ = db.subnet.records[0].sm_port_guid;
  for (const SmdbRouteSlHint& h : db.route_sl_hints.records) {
    if (h.hint >= 16 || BadRange(h.hint, h.span))
      return Invalid("table 'route_sl_hints' has hint " + std::to_string(h.hint) + " span " +
                     std::to_string(h.span));
    t.hints_ |= static_cast<uint16_t>(1u << h.hint);
    t.hint_spans_[h.hint] = h.span;
  }
  t.keys_.reserve(db.route_sls.records.size());
  t.values_.reserve(db.route_sls.records.size());
  for (const SmdbRouteSl& r : db.route_sls.records) {
    uint64_t key = uint64_t{r.slid} << 24 | uint64_t{r.dlid} << 8 | r.hint;
    if (!t.keys_.empty() && key <= t.keys_.back())
      return Invalid("table 'route_sls' is not in key order");
    if (BadRange(r.sl, r.span))
      return Invalid("table 'route_sls' has SL " + std::to_string(r.sl) + " span " +
                     std::to_string(r.span));
    t.keys_.push_back(key);
    t.values_.push_back(static_cast<uint8_t>(r.sl | (r.span - 1) << 4));
  }
  if (slice) {
    for (const SmdbGuidLid& g : db.guid_lids.records) {
      if (g.base_lid == 0 || g.lmc > 7 || uint32_t{g.base_lid} + (1u << g.lmc) > 0xC000)
        return Invalid("table 'guid_lids' has LID range " + std::to_string(g.base_lid) + "/" +
                       std::to_string(g.lmc));
      t.covered_.emplace_back(g.base_lid, static_cast<uint16_t>(1u << g.lmc));
    }
    std::sort(t.covered_.begin(), t.covered_.end());
    // A row of a LID the slice does not cover is not the core's slice.
    for (uint64_t key : t.keys_)
      if (!t.Covers(static_cast<uint16_t>(key >> 24)))
        return Invalid("table 'route_sls' has a row of LID " + std::to_string(key >> 24) +
                       " that guid_lids does not cover");
  }
  *out = std::move(t);
  return Status::Ok();
}

bool RouteSlTable::Covers(uint16_t slid) const {
  if (!slice_) return true;
  auto it =
      std::upper_bound(covered_.begin(), covered_.end(), std::make_pair(slid, uint16_t{0xFFFF}));
  if (it == covered_.begin()) return false;
  --it;
  return slid < uint32_t{it->first} + it->second;
}

bool RouteSlTable::Find(uint16_t slid, uint16_t dlid, uint8_t hint, uint8_t* sl,
                        uint8_t* span) const {
  if (hint >= 16 || !(hints_ & (1u << hint)) || !Covers(slid)) return false;
  uint64_t key = uint64_t{slid} << 24 | uint64_t{dlid} << 8 | hint;
  auto it = std::lower_bound(keys_.begin(), keys_.end(), key);
  if (it != keys_.end() && *it == key) {
    uint8_t v = values_[it - keys_.begin()];
    *sl = v & 0xF;
    *span = static_cast<uint8_t>((v >> 4) + 1);
  } else {
    *sl = hint;
    *span = hint_spans_[hint];
  }
  return true;
}

}  // namespace smdb
}  // namespace ssa
