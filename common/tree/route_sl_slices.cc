// route_sl_slices.cc: see route_sl_slices.h.
#include "common/tree/route_sl_slices.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>

#include "common/smdb/smdb_delta.h"
#include "common/tree/db_version.h"

namespace ssa {
namespace tree {
namespace {

// Membership changes come in bursts (a whole rack joining): one refresh
// for the burst.
constexpr auto kRefreshDelay = std::chrono::milliseconds(50);

}  // namespace

std::string RouteSlKey(uint64_t access_guid) { return "routesl:" + std::to_string(access_guid); }

void CutRouteSlSlice(const smdb::Smdb& db, const smdb::SmdbIndex& index,
                     const std::vector<smdb::SmdbRouteSl>& rows, const std::vector<uint64_t>& ports,
                     smdb::Smdb* out) {
  smdb::Smdb s;
  s.subnet.records[0].subnet_prefix = db.subnet.records[0].subnet_prefix;
  // Which SM numbered the routing: generations are per core.
  s.subnet.records[0].sm_port_guid = db.subnet.records[0].sm_port_guid;
  s.subnet.records[0].flags = smdb::kSubnetRoutingSl | smdb::kSubnetRouteSls;
  s.route_sl_hints = db.route_sl_hints;
  // (first LID, count) of every port, ascending, for the row ranges.
  std::vector<std::pair<uint16_t, uint16_t>> ranges;
  const auto& guids = db.guid_lids.records;
  for (uint64_t guid : ports) {
    auto g = std::lower_bound(guids.begin(), guids.end(), guid,
                              [](const smdb::SmdbGuidLid& r, uint64_t v) { return r.guid < v; });
    if (g == guids.end() || g->guid != guid || g->base_lid == 0 ||
        index.PortByGuid(guid) == smdb::SmdbIndex::kNone)
      continue;  // not in this SMDB (yet): its records stay marked
    s.guid_lids.records.push_back(*g);
    ranges.emplace_back(g->base_lid, static_cast<uint16_t>(1u << g->lmc));
  }
  std::sort(ranges.begin(), ranges.end());
  for (const auto& r : ranges) {
    auto lo = std::lower_bound(rows.begin(), rows.end(), r.first,
                               [](const smdb::SmdbRouteSl& x, uint16_t v) { return x.slid < v; });
    const uint32_t end = uint32_t{r.first} + r.second;
    for (auto it = lo; it != rows.end() && it->slid < end; ++it) s.route_sls.records.push_back(*it);
  }
  *out = std::move(s);
}

RouteSlSlices::RouteSlSlices(Reactor* reactor, Logger* log, DataServer* server,
                             const Membership* membership)
    : reactor_(reactor), log_(log), server_(server), membership_(membership) {}

RouteSlSlices::~RouteSlSlices() {
  if (timer_) reactor_->CancelTimer(timer_);
}

void RouteSlSlices::OnSmdb(std::shared_ptr<const smdb::Smdb> db,
                           std::shared_ptr<const smdb::SmdbIndex> index, RouteSlRows rows) {
  const bool changed = rows != rows_;
  db_ = std::move(db);
  index_ = std::move(index);
  refreshes_ = 0;
  if (!rows && rows_) {
    for (const auto& kv : cut_) server_->Drop(RouteSlKey(kv.first));
    cut_.clear();
    log_->Log(LogLevel::kInfo,
              "tree: the SMDB carries the routing engine's SLs again; "
              "route-SL slices are no longer served");
  }
  rows_ = std::move(rows);
  if (!rows_) return;
  if (changed)
    log_->Log(LogLevel::kInfo,
              "tree: SMDB epoch %" PRIu64
              " leaves %zu routing-engine SL rows to route-SL "
              "slices (generation %" PRIu64 "); cutting one per access node",
              db_->global_epoch, rows_->size(), db_->route_sl_hints.epoch);
  // Also with the same rows: a renumbered SMDB (an SM failover) is a new
  // generation, and the slices must follow it.
  Refresh();
}

void RouteSlSlices::RefreshSoon() {
  if (!rows_ || timer_) return;
  timer_ = reactor_->AddTimer(kRefreshDelay, [this] {
    timer_ = 0;
    Refresh();
  });
}

void RouteSlSlices::Refresh() {
  if (!rows_ || !db_ || !index_) return;
  std::map<uint64_t, std::vector<uint64_t>> served = membership_->ConsumersServed(kRoleAccess);
  const uint64_t generation = db_->route_sl_hints.epoch;
  // Access nodes no longer in the book (or serving no one) lose theirs.
  for (auto it = cut_.begin(); it != cut_.end();) {
    if (served.count(it->first)) {
      ++it;
      continue;
    }
    server_->Drop(RouteSlKey(it->first));
    it = cut_.erase(it);
  }
  size_t cut_now = 0, rows_sent = 0;
  for (auto& kv : served) {
    Cut& c = cut_[kv.first];
    // Also when a port got its LID (or another) under the same routing.
    if (c.slice && c.generation == generation && c.ports == kv.second &&
        c.guid_lids_epoch == db_->guid_lids.epoch)
      continue;
    auto next = std::make_shared<smdb::Smdb>();
    CutRouteSlSlice(*db_, *index_, *rows_, kv.second, next.get());
    std::string delta;
    if (c.slice) {
      smdb::BumpEpochs(*c.slice, next.get());
    } else {
      smdb::Smdb::ForEachTable(*next, [](auto& t) { t.epoch = 1; });
    }
    next->global_epoch = db_->global_epoch << 32 | ++refreshes_;
    next->route_sl_hints.epoch = generation;  // the routing it is of
    auto bytes = std::make_shared<std::string>();
    Status st = next->Serialize(bytes.get());
    if (!st.ok()) {
      log_->Log(LogLevel::kError, "tree: route-SL slice of 0x%016" PRIx64 ": %s", kv.first,
                st.ToString().c_str());
      continue;
    }
    Bytes d;
    uint64_t from = 0;
    if (c.slice && c.slice->global_epoch < next->global_epoch &&
        smdb::MakeDelta(*c.slice, *next, &delta).ok()) {
      d = std::make_shared<const std::string>(std::move(delta));
      from = c.slice->global_epoch;
    }
    server_->Publish(RouteSlKey(kv.first), {next->global_epoch, DigestOf(*bytes), bytes}, d, from);
    ++versions_;
    ++cut_now;
    rows_sent += next->route_sls.records.size();
    c.ports = kv.second;
    c.generation = generation;
    c.guid_lids_epoch = db_->guid_lids.epoch;
    c.slice = std::move(next);
  }
  if (cut_now)
    log_->Log(LogLevel::kInfo,
              "tree: route-SL slices of generation %" PRIu64
              " cut for %zu access node(s), "
              "%zu rows (of %zu)",
              generation, cut_now, rows_sent, rows_->size());
}

}  // namespace tree
}  // namespace ssa
