// route_sl_client.cc: see route_sl_client.h.
#include "distrib/route_sl_client.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>

namespace ssa {
namespace distrib {
namespace {

constexpr int kFirstBackoffMs = 1000;
constexpr int kMaxBackoffMs = 30000;

}  // namespace

RouteSlClient::RouteSlClient(EventLoop* loop, Logger* log, tree::StreamTransport* streams,
                             tree::MemberControlClient* control, uint64_t port_guid, uint8_t roles,
                             SliceFn on_slice)
    : loop_(loop),
      log_(log),
      streams_(streams),
      control_(control),
      port_guid_(port_guid),
      roles_(roles),
      on_slice_(std::move(on_slice)) {}

void RouteSlClient::OnApplied(const tree::Applied<smdb::Smdb>& a) {
  backoff_ms_ = 0;
  applied_at_ = std::chrono::steady_clock::now();
  log_->Log(LogLevel::kInfo,
            "route-SL slice %" PRIu64
            ": rows of %zu port(s), %zu rows, routing generation %" PRIu64,
            a.version.epoch, a.db->guid_lids.records.size(), a.db->route_sls.records.size(),
            a.db->route_sl_hints.epoch);
  if (on_slice_) on_slice_(a.db);
}

RouteSlClient::~RouteSlClient() { Stop(); }

void RouteSlClient::SetToken(const tree::Token& token, const tree::LinkKey& core_key) {
  bool changed = !have_token_ || token != token_;
  token_ = token;
  core_key_ = core_key;
  have_token_ = true;
  if (wanted_ && (changed || !located_)) Locate();
}

void RouteSlClient::OnSmdb(const smdb::Smdb& db) {
  if (stopped_) return;
  const bool want = (db.subnet.records[0].flags & smdb::kSubnetRouteSlSlices) != 0;
  if (want && wanted_ && !located_) {
    // An SMDB that needs a slice we do not have: look now, not after the
    // backoff (the core may be back, or another one serving).
    if (retry_) loop_->CancelTimer(retry_);
    retry_ = 0;
    Locate();
    return;
  }
  if (want == wanted_) return;
  wanted_ = want;
  if (want) {
    log_->Log(LogLevel::kInfo,
              "SMDB epoch %" PRIu64
              " leaves the routing engine's SLs to route-SL slices: "
              "asking the core for ours",
              db.global_epoch);
    Locate();
    return;
  }
  log_->Log(LogLevel::kInfo, "SMDB epoch %" PRIu64 " carries the routing engine's SLs again",
            db.global_epoch);
  if (client_) client_->Stop();
  client_.reset();
  located_ = false;
  if (retry_) loop_->CancelTimer(retry_);
  retry_ = 0;
}

// Where the core listens (it moves with the master SM), then a connection
// to it as our slice's parent.
void RouteSlClient::Locate() {
  if (stopped_ || !wanted_ || !have_token_) return;
  if (asking_) {
    again_ = true;  // asked of an SM that may be gone: ask again once it answers
    return;
  }
  asking_ = true;
  std::weak_ptr<bool> alive = alive_;
  control_->AskCoreInfo([this, alive](Status st, const tree::CoreInfoAnswer& a) {
    if (alive.expired()) return;  // the answer outlived us
    asking_ = false;
    if (stopped_ || !wanted_) return;
    if (again_) {
      again_ = false;
      return Locate();
    }
    if (!st.ok() || a.core_guid == 0) {
      log_->Log(LogLevel::kWarn, "route-SL slice: the core's address is unknown (%s)",
                st.ok() ? "no core" : st.ToString().c_str());
      return RetryLater();
    }
    tree::ParentInfo core;
    core.guid = a.core_guid;
    core.lid = a.core_lid;
    core.address = a.data_address;
    // The data client came back to the same core by itself meanwhile.
    if (client_ && client_->connected() && core.guid == core_.guid &&
        core.address == core_.address) {
      located_ = true;
      return;
    }
    core_ = core;
    // A new connection starts from nothing: a core started again (idle,
    // then master once more) numbers its slices afresh, possibly below
    // the one held, and the slice is small.
    if (!located_ || !client_) {
      if (client_) client_->Stop();
      client_.reset();
      replica_ = std::make_unique<tree::DbReplica<smdb::Smdb>>(
          [this](const tree::Applied<smdb::Smdb>& applied) { OnApplied(applied); });
      tree::Hello h;
      h.roles = roles_;
      h.kind = tree::DbKind::kRouteSl;
      h.guid = port_guid_;
      client_ = std::make_unique<tree::DataClient>(
          loop_, streams_, log_, replica_.get(), h, [this](uint64_t, bool refused) {
            located_ = false;
            if (refused)
              log_->Log(LogLevel::kInfo, "route-SL slice: the core refused us; trying again");
            RetryLater();
          });
    }
    core.key = core_key_;
    client_->SetParents(core, tree::ParentInfo{}, token_);
    located_ = true;
  });
}

void RouteSlClient::RetryLater() {
  if (stopped_ || retry_) return;
  backoff_ms_ = backoff_ms_ ? std::min(2 * backoff_ms_, kMaxBackoffMs) : kFirstBackoffMs;
  retry_ = loop_->AddTimer(std::chrono::milliseconds(backoff_ms_), [this] {
    retry_ = 0;
    Locate();
  });
}

void RouteSlClient::Stop() {
  if (stopped_) return;
  stopped_ = true;
  if (retry_) loop_->CancelTimer(retry_);
  retry_ = 0;
  if (client_) client_->Stop();
}

}  // namespace distrib
}  // namespace ssa
