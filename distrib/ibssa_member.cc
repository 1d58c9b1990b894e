// ibssa_member.cc: see ibssa_member.h.
#include "config.h"

#include "distrib/ibssa_member.h"

#include <cinttypes>

#include "common/base/big_endian.h"
#include "common/base/text_util.h"
#include "common/smdb/smdb_delta.h"
#include "common/tree/announce.h"
#include "common/tree/link_auth.h"

namespace ssa {
namespace distrib {

using tree::Hello;

IbssaMember::IbssaMember(EventLoop* loop, Logger* log, const IbssaOptions& options,
                         WorkerPool* pool)
    : loop_(loop),
      log_(log),
      options_(options),
      pool_(pool),
      smdb_([this](const tree::Applied<smdb::Smdb>& a) { OnSmdb(a); }),
      addr_([this](const tree::Applied<smdb::AddrDb>& a) { OnAddr(a); }) {
  // Each epoch's SMDB is built in the version released before it, not in
  // fresh memory (at the full subnet, 2 x 171 MB of first touches per
  // update); the price is one idle version.
  smdb_.RecycleVersions();
}

IbssaMember::~IbssaMember() {
  Stop();
  // Jobs in flight call back into prdbs_: stop the pool first.
  own_pool_.reset();
}

uint8_t IbssaMember::Roles() const {
  uint8_t r = 0;
  if (options_.roles & kRoleDistribution) r |= tree::kRoleDistribution;
  if (options_.roles & kRoleAccess) r |= tree::kRoleAccess;
  return r;
}

Status IbssaMember::Start(const MemberPort& port, MadTransport* mads,
                          tree::StreamTransport* streams) {
  port_ = port;
  mads_ = mads;
  streams_ = streams;
  tree::DataServerOptions so;
  so.guid = port_.port_guid;
  so.max_children = static_cast<size_t>(options_.max_children);
  server_ = std::make_unique<tree::DataServer>(
      loop_, streams_, log_, so,
      [this](const Hello& h, tree::DataServer::AdmitFn done) { Authorize(h, done); },
      [this](const std::string& key, const Hello& h) { OnSubscribe(key, h); });
  tree::DataAddress listen;
  Status st = tree::DataAddress::Parse(options_.listen, &listen);
  if (st.ok()) st = server_->Listen(listen);
  if (!st.ok()) return st.WithContext("data channel (listen " + options_.listen + ")");
  tree::DataAddress announced;
  st = tree::AnnounceAddress(server_->address(), options_.announce, port_.port_guid, log_,
                             &announced);
  if (!st.ok()) return st;
  log_->Log(LogLevel::kInfo, "data channel on %s (%s), announced as %s",
            server_->address().ToString().c_str(), streams_->name(), announced.ToString().c_str());

  if (options_.roles & kRoleAccess) {
    if (!pool_) {
      own_pool_ = std::make_unique<WorkerPool>(loop_, static_cast<size_t>(options_.prdb_threads));
      pool_ = own_pool_.get();
    }
    prdbs_ = std::make_unique<PrdbService>(
        loop_, pool_, log_, [this](const PrdbVersion& v) { PublishPrdb(v); },
        [this](uint64_t guid, const Status&) { server_->Drop("prdb:" + std::to_string(guid)); });
    prdbs_->set_route_table_max_entries(static_cast<size_t>(options_.prdb_route_table_mb) << 19);
    prdbs_->set_prefix_rows(options_.prefix_rows);
  }

  Hello h;
  h.roles = Roles();
  h.kind = tree::DbKind::kSmdb;
  h.guid = port_.port_guid;
  upstream_ = std::make_unique<tree::DataClient>(
      loop_, streams_, log_, &smdb_, h,
      [this](uint64_t lost, bool refused) { OnLost(lost, refused); });
  h.kind = tree::DbKind::kAddr;
  addr_upstream_ = std::make_unique<tree::DataClient>(
      loop_, streams_, log_, &addr_, h,
      [this](uint64_t lost, bool refused) { OnLost(lost, refused); });

  tree::MemberControlOptions mo;
  mo.roles = Roles();
  mo.port_guid = port_.port_guid;
  PutBe64(mo.port_gid.data(), port_.gid_prefix);
  PutBe64(mo.port_gid.data() + 8, port_.port_guid);
  mo.software = std::string("ibacm-ssa ") + PACKAGE_VERSION;
  mo.data_address = announced;
  uint16_t sm_lid = port_.sm_lid;
  std::function<uint16_t()> current = port_.current_sm_lid;
  mo.sm_lid = [sm_lid, current] {
    uint16_t now = current ? current() : 0;
    return now ? now : sm_lid;
  };
  mo.counters = [this] { return Counters(); };
  mo.probe_sm_lid = port_.probe_sm_lid;
  mo.epoch = [this] { return smdb_.epoch(); };
  mo.digest = [this] { return smdb_.digest(); };
  mo.addr_epoch = [this] { return addr_.epoch(); };
  mo.addr_digest = [this] { return addr_.digest(); };
  mo.epoch_report_ms = 200;  // a parent's lag is the tree's health: report each epoch
  mo.report_every_epoch = true;
  mo.timeout_ms = options_.join_timeout_ms;
  mo.retries = options_.join_retries;
  control_ = std::make_unique<tree::MemberControlClient>(
      loop_, mads_, log_, mo,
      [this](const tree::Assignment& a, bool changed) { OnAssigned(a, changed); },
      [this](uint16_t status) {
        log_->Log(LogLevel::kWarn, "the core refused us: %s",
                  tree::DescribeSsaStatus(status).c_str());
      });
  if (prdbs_)
    route_sl_ = std::make_unique<RouteSlClient>(
        loop_, log_, streams_, control_.get(), port_.port_guid, Roles(),
        [this](std::shared_ptr<const smdb::Smdb> slice) { prdbs_->OnRouteSlSlice(slice); });
  return control_->Start();
}

void IbssaMember::OnAssigned(const tree::Assignment& a, bool changed) {
  if (changed) {
    log_->Log(
        LogLevel::kInfo,
        "%s the tree as %s: parent LID %u (%s), backup LID %u, lease %u s, core epoch %" PRIu64,
        joined_once_ ? "rejoined" : "joined", tree::RolesName(Roles()).c_str(), a.parent.lid,
        a.parent.address.ToString().c_str(), a.backup.lid, a.lease_s, a.core_epoch);
    joined_once_ = true;
  }
  // Also when nothing changed: after a lost connection or a refusal the
  // re-join often gives the same parent, and the data clients are idle
  // until told again (SetParents keeps a connection that still serves).
  upstream_->SetParents(a.parent, a.backup, a.token);
  addr_upstream_->SetParents(a.parent, a.backup, a.token);
  if (route_sl_) route_sl_->SetToken(a.token, a.core_key);
  CheckSmdbContent(a);
}

void IbssaMember::CheckSmdbContent(const tree::Assignment& a) {
  const tree::DbVersion& held = smdb_.version();
  if (a.smdb_sha256 == tree::ContentDigest{} || held.epoch == 0 || held.epoch != a.core_epoch ||
      !held.bytes)
    return;
  if (held.epoch == content_checked_epoch_ && held.digest == content_checked_digest_) return;
  content_checked_epoch_ = held.epoch;
  content_checked_digest_ = held.digest;
  tree::ContentDigest mine = tree::Sha256Of(*held.bytes);
  if (mine == a.smdb_sha256) {
    ++content_verified_;
    log_->Log(LogLevel::kDebug, "SMDB epoch %" PRIu64 ": content confirmed by the core (%s)",
              held.epoch, tree::ShortHex(mine).c_str());
    return;
  }
  // Not the core's database under the core's epoch: forged or corrupted
  // above us. Nothing held is trusted; the parent that gave it is
  // reported lost, and the next parent brings us the whole SMDB.
  ++content_mismatches_;
  uint64_t parent = upstream_->serving_guid();
  log_->Log(LogLevel::kError,
            "SMDB epoch %" PRIu64
            " held is not the core's (SHA-256 %s, the core's %s): dropping "
            "it and leaving parent %s",
            held.epoch, tree::ShortHex(mine).c_str(), tree::ShortHex(a.smdb_sha256).c_str(),
            GuidText(parent).c_str());
  smdb_.Forget();
  previous_.reset();
  content_checked_epoch_ = 0;
  upstream_->Reconnect();
  control_->Rejoin(parent);
}

// A parent that refused us answered, so it is alive: naming it lost would
// make the core move its other children away (as consumers do, consumer.cc).
void IbssaMember::OnLost(uint64_t lost, bool refused) {
  if (refused)
    control_->RejoinAfterRefusal();
  else
    control_->Rejoin(lost);
}

void IbssaMember::OnAddr(const tree::Applied<smdb::AddrDb>& a) {
  addr_at_ = std::chrono::steady_clock::now();
  log_->Log(LogLevel::kInfo, "address database epoch %" PRIu64 ": %zu names, %zu IPs",
            a.version.epoch, a.db->names.records.size(), a.db->ips.records.size());
  server_->Publish("addr", a.version, a.delta, a.delta_from);
}

void IbssaMember::OnSmdb(const tree::Applied<smdb::Smdb>& a) {
  smdb_at_ = std::chrono::steady_clock::now();
  if (control_) control_->SetEpoch(a.version.epoch);
  tree::Bytes delta = a.delta;
  uint64_t from = a.delta_from;
  // A full transfer after a gap: make the delta from what we held, so our
  // own children still get a delta.
  if (!delta && previous_ && previous_->global_epoch < a.version.epoch) {
    auto d = std::make_shared<std::string>();
    if (smdb::MakeDelta(*previous_, *a.db, d.get()).ok()) {
      delta = d;
      from = previous_->global_epoch;
    }
  }
  previous_ = a.db;
  if (options_.roles & kRoleDistribution) server_->Publish("smdb", a.version, delta, from);
  if (route_sl_) route_sl_->OnSmdb(*a.db);
  if (prdbs_) prdbs_->OnSmdb(a.db, delta, from);
  if (on_smdb_) on_smdb_(a.version.epoch);
}

void IbssaMember::Authorize(const Hello& h, const tree::DataServer::AdmitFn& done) {
  std::string key;
  if (h.kind == tree::DbKind::kSmdb && (options_.roles & kRoleDistribution) &&
      !(h.roles & tree::kRoleConsumer))
    key = "smdb";
  else if (h.kind == tree::DbKind::kPrdb && (options_.roles & kRoleAccess) &&
           (h.roles & tree::kRoleConsumer))
    key = "prdb:" + std::to_string(h.guid);
  else if (h.kind == tree::DbKind::kAddr)
    key = "addr";  // every child: parents pass it on, consumers resolve names with it
  if (key.empty()) return done(tree::kRefuseUnavailable, "", {});
  control_->CheckToken(h.guid, h.token, [done, key](Status st, const tree::TokenCheckAnswer& a) {
    if (!st.ok()) return done(tree::kRefuseCoreUnreachable, "", {});
    done(a.valid ? 0 : tree::kRefuseBadToken, key, a.key);
  });
}

void IbssaMember::OnSubscribe(const std::string& key, const Hello& h) {
  if (prdbs_ && key.compare(0, 5, "prdb:") == 0) prdbs_->AddConsumer(h.guid);
}

void IbssaMember::PublishPrdb(const PrdbVersion& v) {
  // A version in parts is made whole only for a child that needs it so.
  tree::DbVersion d{v.epoch, v.digest, nullptr, nullptr};
  if (v.image->whole())
    d.bytes = v.image->base();
  else
    d.make_bytes = [image = v.image] { return image->Bytes(); };
  server_->Publish("prdb:" + std::to_string(v.port_guid), d, v.delta, v.delta_from);
  if (v.epoch > prdb_epoch_) prdb_at_ = std::chrono::steady_clock::now();
  prdb_epoch_ = std::max(prdb_epoch_, v.epoch);
  if (on_prdb_) on_prdb_(v);
}

tree::MemberCounters IbssaMember::Counters() const {
  tree::MemberCounters c;
  if (server_) {
    const tree::DataServerCounters& s = server_->counters();
    c.full_transfers = s.full_transfers;
    c.delta_transfers = s.delta_transfers;
    c.bytes_sent = s.bytes_sent;
    c.refused = s.refused;
    c.children = static_cast<uint32_t>(server_->child_count());
  }
  if (upstream_) c.reconnects = static_cast<uint32_t>(upstream_->counters().reconnects);
  return c;
}

void IbssaMember::Stop() {
  if (stopped_ || !server_) return;
  stopped_ = true;
  if (control_) control_->Stop();
  if (upstream_) upstream_->Stop();
  if (addr_upstream_) addr_upstream_->Stop();
  if (route_sl_) route_sl_->Stop();
  server_->Close();
  tree::MemberCounters c = Counters();
  tree::DataClientCounters u = upstream_ ? upstream_->counters() : tree::DataClientCounters{};
  log_->Log(LogLevel::kInfo,
            "exiting; counters: sent full %" PRIu64 " delta %" PRIu64 " bytes %" PRIu64
            " refused %" PRIu64 "; received full %" PRIu64 " delta %" PRIu64
            " digest mismatches %" PRIu64 " reconnects %" PRIu64 "; epoch %" PRIu64,
            c.full_transfers, c.delta_transfers, c.bytes_sent, c.refused, u.full_received,
            u.delta_received, u.digest_mismatches, u.reconnects, smdb_.epoch());
}

}  // namespace distrib
}  // namespace ssa
