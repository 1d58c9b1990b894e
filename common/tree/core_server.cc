// core_server.cc: see core_server.h.
#include "common/tree/core_server.h"

#include <cinttypes>

#include "common/tree/announce.h"
#include "common/tree/link_auth.h"

namespace ssa {
namespace tree {

CoreServer::CoreServer(Reactor* reactor, Logger* log, MadTransport* mads, StreamTransport* streams,
                       CoreServerOptions options)
    : reactor_(reactor),
      log_(log),
      mads_(mads),
      streams_(streams),
      options_(std::move(options)),
      limited_(log, std::chrono::seconds(10)) {
  options_.data.guid = options_.port_guid;
}

CoreServer::~CoreServer() { Close(); }

Status CoreServer::Start(std::function<void()> on_change) {
  on_change_ = std::move(on_change);
  server_ = std::make_unique<DataServer>(
      reactor_, streams_, log_, options_.data,
      [this](const Hello& h, DataServer::AdmitFn done) { Authorize(h, done); }, nullptr,
      [this](const std::string& name) { return name == "tree" ? Json() : std::string(); });
  Status st = server_->Listen(options_.listen);
  if (st.ok())
    st = AnnounceAddress(server_->address(), options_.announce, options_.port_guid, log_,
                         &announced_);
  if (!st.ok()) {
    server_.reset();
    return st;
  }
  membership_ = std::make_unique<Membership>(options_.membership, options_.port_guid, options_.lid,
                                             announced_);
  if (index_) {
    topology_ = std::make_unique<SmdbTopology>(index_.get());
    membership_->SetTopology(topology_.get());
    membership_->SetCoreEpoch(db_->global_epoch, smdb_sha256_);
  }
  slices_ = std::make_unique<RouteSlSlices>(reactor_, log_, server_.get(), membership_.get());
  if (db_) slices_->OnSmdb(db_, index_, route_sl_rows_);
  control_ = std::make_unique<CoreControlServer>(
      reactor_, mads_, membership_.get(), log_,
      [this] {
        if (slices_) slices_->RefreshSoon();
        if (on_change_) on_change_();
      },
      [this](const JoinRequest& r) { CheckMemberEpochs(r); });
  st = control_->Start();
  if (!st.ok()) {
    Close();
    return st;
  }
  return Status::Ok();
}

Status CoreServer::PublishSmdb(std::shared_ptr<const smdb::Smdb> db, Bytes serialized, Bytes delta,
                               uint64_t delta_from, RouteSlRows route_sl_rows) {
  if (!db || !serialized) return Status::Error(EINVAL, "no SMDB");
  std::unique_ptr<smdb::SmdbIndex> index;
  Status st = smdb::SmdbIndex::Build(*db, &index);
  if (!st.ok()) {
    log_->Log(LogLevel::kError, "tree: epoch %" PRIu64 " cannot be indexed: %s", db->global_epoch,
              st.ToString().c_str());
    return st;
  }
  // The topology reads the index: replace both together.
  auto topology = std::make_unique<SmdbTopology>(index.get());
  if (membership_) membership_->SetTopology(topology.get());
  topology_ = std::move(topology);
  index_ = std::move(index);
  db_ = db;
  route_sl_rows_ = std::move(route_sl_rows);
  const uint32_t digest = DigestOf(*serialized);
  epochs_.SetSmdb(db->global_epoch, digest);
  published_ = Membership::Clock::now();
  if (server_) {
    server_->Publish("smdb", {db->global_epoch, digest, serialized}, delta, delta_from);
    log_->Log(
        LogLevel::kInfo, "tree: serving SMDB epoch %" PRIu64 " (%zu bytes%s) to %zu child(ren)",
        db->global_epoch, serialized->size(), delta ? ", delta ready" : "", server_->child_count());
  }
  // Join answers confirm the content, not only the epoch (link_auth.h):
  // about 1 ms per 2 MB with SHA extensions, once per epoch. Hashed after
  // the children have the new version in their sockets, so that it delays
  // nobody's update; no join is answered in between (one thread), so the
  // epoch and its digest change together.
  smdb_sha256_ = Sha256Of(*serialized);
  if (membership_) membership_->SetCoreEpoch(db->global_epoch, smdb_sha256_);
  // After the SMDB: an access node takes a slice only of the SMDB it holds.
  if (slices_) slices_->OnSmdb(db_, index_, route_sl_rows_);
  if (on_change_) on_change_();
  return Status::Ok();
}

void CoreServer::PublishAddr(const DbVersion& version, Bytes delta, uint64_t delta_from) {
  epochs_.SetAddr(version.epoch, version.digest);
  if (server_) server_->Publish("addr", version, delta, delta_from);
}

void CoreServer::CheckMemberEpochs(const JoinRequest& r) {
  if (!options_.on_epochs_ahead) return;
  uint64_t smdb = 0, addr = 0;
  std::vector<std::string> notes;
  bool raise = epochs_.Consider(r, &smdb, &addr, &notes);
  // A real finding comes once per epoch; a bogus claim with every renewal.
  for (const std::string& n : notes) {
    if (raise)
      log_->Log(LogLevel::kWarn, "tree: %s", n.c_str());
    else
      limited_.Log(LogLevel::kWarn, "epoch-claims", "tree: %s", n.c_str());
  }
  if (raise) options_.on_epochs_ahead(smdb, addr);
}

void CoreServer::Close() {
  if (control_) control_->Stop();
  control_.reset();
  slices_.reset();
  if (server_) server_->Close();
  server_.reset();
}

// The core serves the SMDB and the address database to its own children
// only: distribution nodes, and access nodes it parents when there is no
// distribution node. An access node's route-SL slice goes to that access
// node, wherever it is in the tree.
void CoreServer::Authorize(const Hello& h, const DataServer::AdmitFn& done) {
  // The core's own connections prove the key it derives for itself as
  // the parent (the join answer's parent_key or core_key).
  const LinkKey link = membership_->LinkKeyOf(options_.port_guid, h.guid, h.token);
  if (h.kind == DbKind::kRouteSl) {
    if (!slices_ || !slices_->active()) return done(kRefuseUnavailable, "", {});
    bool ok = (h.roles & kRoleAccess) && !(h.roles & kRoleConsumer) &&
              membership_->HoldsToken(h.guid, h.token, kRoleAccess, Membership::Clock::now());
    return done(ok ? 0 : kRefuseBadToken, RouteSlKey(h.guid), link);
  }
  if ((h.kind != DbKind::kSmdb && h.kind != DbKind::kAddr) || (h.roles & kRoleConsumer))
    return done(kRefuseUnavailable, "", {});
  TokenCheckRequest r;
  r.child_guid = h.guid;
  r.token = h.token;
  r.parent_guid = options_.port_guid;
  TokenCheckAnswer a = membership_->CheckToken(r, Membership::Clock::now());
  done(a.valid ? 0 : kRefuseBadToken, h.kind == DbKind::kSmdb ? "smdb" : "addr", a.key);
}

std::string CoreServer::Json() {
  if (!membership_) return "[]\n";
  MemberCounters c;
  if (server_) {
    const DataServerCounters& s = server_->counters();
    c.full_transfers = s.full_transfers;
    c.delta_transfers = s.delta_transfers;
    c.bytes_sent = s.bytes_sent;
    c.refused = s.refused;
  }
  if (control_) c.refused += control_->counters().refused;
  membership_->SetCoreCounters(c);
  CoreActivity a = options_.activity ? options_.activity() : CoreActivity{};
  a.published = published_;
  membership_->SetCoreActivity(a);
  return membership_->ToJson(Membership::Clock::now());
}

}  // namespace tree
}  // namespace ssa
