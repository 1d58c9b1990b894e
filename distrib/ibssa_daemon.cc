// ibssa_daemon.cc: see ibssa_daemon.h.
#include "config.h"

#include "distrib/ibssa_daemon.h"

#include <cinttypes>

#include "common/base/big_endian.h"
#include "common/base/config_file.h"
#include "common/mad/mad_faults.h"
#include "common/mad/umad_transport.h"
#include "common/smdb/smdb_delta.h"
#include "common/tree/announce.h"
#include "common/tree/stream_faults.h"

namespace ssa {
namespace distrib {

using tree::Hello;

IbssaDaemon::IbssaDaemon(Settings settings)
    : settings_(std::move(settings)),
      smdb_([this](const tree::Applied<smdb::Smdb>& a) { OnSmdb(a); }),
      addr_([this](const tree::Applied<smdb::AddrDb>& a) { OnAddr(a); }) {}

IbssaDaemon::~IbssaDaemon() = default;

Status IbssaDaemon::Configure() {
  std::vector<std::string> warnings;
  ConfigFile cfg;
  Status st = ConfigFile::Load(settings_.opts_file, &cfg);
  if (st.ok()) warnings = options_.Apply(cfg);
  else if (settings_.opts_file_given) return st.WithContext("options file");
  if (!settings_.run_dir.empty()) options_.UseRunDir(settings_.run_dir);
  if (settings_.roles) options_.roles = settings_.roles;
  if (!settings_.listen.empty()) options_.listen = settings_.listen;
  std::string target = settings_.log_target.empty() ? options_.log_file : settings_.log_target;
  Status lst = log_.Open(target, "ibssa");
  if (!lst.ok()) return lst.WithContext("log");
  log_.set_level(options_.log_level);
  for (const std::string& w : warnings) log_.Log(LogLevel::kWarn, "%s", w.c_str());
  if (!st.ok()) log_.Log(LogLevel::kInfo, "no options file (%s): defaults", st.ToString().c_str());
  log_.Log(LogLevel::kInfo, "ibssa starting: %s", options_.Describe().c_str());
  return loop_.Init();
}

uint8_t IbssaDaemon::Roles() const {
  uint8_t r = 0;
  if (options_.roles & kRoleDistribution) r |= tree::kRoleDistribution;
  if (options_.roles & kRoleAccess) r |= tree::kRoleAccess;
  return r;
}

Status IbssaDaemon::Start() {
  Status st = UmadInitOnce();
  if (st.ok()) st = PickActivePort(options_.port, &port_);
  if (!st.ok()) return st;
  log_.Log(LogLevel::kInfo, "port %s", port_.Describe().c_str());
  auto umad = std::make_unique<UmadTransport>(port_.ca_name, port_.port_num, &log_);
  st = umad->Open(tree::kSsaClass, tree::kSsaClassVersion);
  if (!st.ok()) return st.WithContext("SSA management class");
  mads_ = std::move(umad);
  st = tree::NewStreamTransport(options_.transport, &streams_);
  // Fault injection (tests only): the seams wrap the real transports.
  if (st.ok()) st = WrapMadFaults(options_.mad_faults, &mads_);
  if (st.ok()) st = tree::WrapStreamFaults(options_.data_faults, &streams_);
  if (!st.ok()) return st;
  if (!options_.mad_faults.empty() || !options_.data_faults.empty())
    log_.Log(LogLevel::kWarn, "FAULT INJECTION on: mad_faults '%s', data_faults '%s' (tests only)",
             options_.mad_faults.c_str(), options_.data_faults.c_str());

  tree::DataServerOptions so;
  so.guid = port_.port_guid;
  so.max_children = static_cast<size_t>(options_.max_children);
  server_ = std::make_unique<tree::DataServer>(
      &loop_, streams_.get(), &log_, so,
      [this](const Hello& h, std::function<void(uint16_t, const std::string&)> done) { Authorize(h, done); },
      [this](const std::string& key, const Hello& h) { OnSubscribe(key, h); });
  tree::DataAddress listen;
  st = tree::DataAddress::Parse(options_.listen, &listen);
  if (st.ok()) st = server_->Listen(listen);
  if (!st.ok()) return st.WithContext("data channel (listen " + options_.listen + ")");
  tree::DataAddress announced;
  st = tree::AnnounceAddress(server_->address(), options_.announce, port_.port_guid, &log_, &announced);
  if (!st.ok()) return st;
  log_.Log(LogLevel::kInfo, "data channel on %s (%s), announced as %s", server_->address().ToString().c_str(),
           streams_->name(), announced.ToString().c_str());

  if (options_.roles & kRoleAccess) {
    pool_ = std::make_unique<WorkerPool>(&loop_, static_cast<size_t>(options_.prdb_threads));
    prdbs_ = std::make_unique<PrdbService>(
        &loop_, pool_.get(), &log_, [this](const PrdbVersion& v) { PublishPrdb(v); },
        [this](uint64_t guid, const Status&) { server_->Drop("prdb:" + std::to_string(guid)); });
  }

  Hello h;
  h.roles = Roles();
  h.kind = tree::DbKind::kSmdb;
  h.guid = port_.port_guid;
  upstream_ = std::make_unique<tree::DataClient>(&loop_, streams_.get(), &log_, &smdb_, h,
                                                 [this](uint64_t lost, bool) { control_->Rejoin(lost); });
  h.kind = tree::DbKind::kAddr;
  addr_upstream_ = std::make_unique<tree::DataClient>(&loop_, streams_.get(), &log_, &addr_, h,
                                                      [this](uint64_t lost, bool) { control_->Rejoin(lost); });

  tree::MemberControlOptions mo;
  mo.roles = Roles();
  mo.port_guid = port_.port_guid;
  PutBe64(mo.port_gid.data(), port_.gid_prefix);
  PutBe64(mo.port_gid.data() + 8, port_.port_guid);
  mo.software = std::string("ibacm-ssa ") + PACKAGE_VERSION;
  mo.data_address = announced;
  // Read again at each join: after an SM failover the new master's LID.
  mo.sm_lid = [this] {
    uint16_t now = CurrentSmLid(port_);
    return now ? now : port_.sm_lid;
  };
  mo.counters = [this] { return Counters(); };
  mo.epoch = [this] { return smdb_.epoch(); };
  mo.epoch_report_ms = 200;  // a parent's lag is the tree's health: report each epoch
  mo.report_every_epoch = true;
  mo.timeout_ms = options_.join_timeout_ms;
  mo.retries = options_.join_retries;
  control_ = std::make_unique<tree::MemberControlClient>(
      &loop_, mads_.get(), &log_, mo, [this](const tree::Assignment& a, bool changed) { OnAssigned(a, changed); },
      [this](uint16_t status) {
        log_.Log(LogLevel::kWarn, "the core refused us: %s", tree::DescribeSsaStatus(status).c_str());
      });
  return control_->Start();
}

void IbssaDaemon::OnAssigned(const tree::Assignment& a, bool changed) {
  if (!changed) return;
  log_.Log(LogLevel::kInfo, "%s the tree as %s: parent LID %u (%s), backup LID %u, lease %u s, core epoch %" PRIu64,
           joined_once_ ? "rejoined" : "joined", tree::RolesName(Roles()).c_str(), a.parent.lid,
           a.parent.address.ToString().c_str(), a.backup.lid, a.lease_s, a.core_epoch);
  joined_once_ = true;
  upstream_->SetParents(a.parent, a.backup, a.token);
  addr_upstream_->SetParents(a.parent, a.backup, a.token);
}

void IbssaDaemon::OnAddr(const tree::Applied<smdb::AddrDb>& a) {
  log_.Log(LogLevel::kInfo, "address database epoch %" PRIu64 ": %zu names, %zu IPs", a.version.epoch,
           a.db->names.records.size(), a.db->ips.records.size());
  server_->Publish("addr", a.version, a.delta, a.delta_from);
}

void IbssaDaemon::OnSmdb(const tree::Applied<smdb::Smdb>& a) {
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
  if (prdbs_) prdbs_->OnSmdb(a.db);
}

void IbssaDaemon::Authorize(const Hello& h, std::function<void(uint16_t, const std::string&)> done) {
  std::string key;
  if (h.kind == tree::DbKind::kSmdb && (options_.roles & kRoleDistribution) && !(h.roles & tree::kRoleConsumer))
    key = "smdb";
  else if (h.kind == tree::DbKind::kPrdb && (options_.roles & kRoleAccess) && (h.roles & tree::kRoleConsumer))
    key = "prdb:" + std::to_string(h.guid);
  else if (h.kind == tree::DbKind::kAddr)
    key = "addr";  // every child: parents pass it on, consumers resolve names with it
  if (key.empty()) return done(tree::kRefuseUnavailable, "");
  control_->CheckToken(h.guid, h.token, [done, key](Status st, const tree::TokenCheckAnswer& a) {
    if (!st.ok()) return done(tree::kRefuseCoreUnreachable, "");
    done(a.valid ? 0 : tree::kRefuseBadToken, key);
  });
}

void IbssaDaemon::OnSubscribe(const std::string& key, const Hello& h) {
  if (prdbs_ && key.compare(0, 5, "prdb:") == 0) prdbs_->AddConsumer(h.guid);
}

void IbssaDaemon::PublishPrdb(const PrdbVersion& v) {
  server_->Publish("prdb:" + std::to_string(v.port_guid), {v.epoch, v.digest, v.bytes}, v.delta, v.delta_from);
}

tree::MemberCounters IbssaDaemon::Counters() const {
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

void IbssaDaemon::Shutdown() {
  if (control_) control_->Stop();
  if (upstream_) upstream_->Stop();
  if (addr_upstream_) addr_upstream_->Stop();
  if (server_) server_->Close();
  tree::MemberCounters c = Counters();
  tree::DataClientCounters u = upstream_ ? upstream_->counters() : tree::DataClientCounters{};
  log_.Log(LogLevel::kInfo,
           "exiting; counters: sent full %" PRIu64 " delta %" PRIu64 " bytes %" PRIu64 " refused %" PRIu64
           "; received full %" PRIu64 " delta %" PRIu64 " digest mismatches %" PRIu64 " reconnects %" PRIu64
           "; epoch %" PRIu64,
           c.full_transfers, c.delta_transfers, c.bytes_sent, c.refused, u.full_received, u.delta_received,
           u.digest_mismatches, u.reconnects, smdb_.epoch());
  pool_.reset();
}

}  // namespace distrib
}  // namespace ssa
