// consumer.cc: the consumer role (consumer.h): a MemberControlClient that
// joins as a consumer, a DataClient that keeps a DbReplica<Prdb> fed by
// the assigned access node, and (want_addr) a second one for the address
// database.
#include "common/tree/consumer.h"

#include <cinttypes>

#include "common/base/big_endian.h"
#include "common/mad/mad_faults.h"
#include "common/mad/sm_lid_probe.h"
#include "common/mad/umad_transport.h"
#include "common/tree/core_confirmation.h"
#include "common/tree/data_client.h"
#include "common/tree/db_version.h"
#include "common/tree/member_control.h"
#include "common/tree/stream.h"
#include "common/tree/stream_faults.h"

namespace ssa {
namespace tree {
namespace {

class ConsumerImpl : public Consumer {
 public:
  ConsumerImpl(Reactor* reactor, Logger* log, const ConsumerOptions& o,
               std::unique_ptr<MadTransport> mads, StreamTransport* streams,
               std::unique_ptr<StreamTransport> owned_streams, UpdateFn on_update,
               std::unique_ptr<SmLidProbe> sm_probe = nullptr)
      : reactor_(reactor),
        log_(log),
        options_(o),
        sm_probe_(std::move(sm_probe)),
        mads_(std::move(mads)),
        owned_streams_(std::move(owned_streams)),
        streams_(streams ? streams : owned_streams_.get()),
        on_update_(std::move(on_update)),
        // Only the parsed databases are kept: nothing below a consumer
        // needs their serializations.
        replica_([this](const Applied<smdb::Prdb>& a) { OnApplied(a); }, false),
        addr_(
            [this](const Applied<smdb::AddrDb>&) {
              if (on_update_) on_update_();
            },
            false) {}

  ~ConsumerImpl() override { Stop(); }

  Status Start() override {
    MemberControlOptions mo;
    mo.roles = kRoleConsumer;
    mo.port_guid = options_.port_guid;
    PutBe64(mo.port_gid.data(), options_.gid_prefix);
    PutBe64(mo.port_gid.data() + 8, options_.port_guid);
    mo.sm_lid = options_.sm_lid;
    if (sm_probe_)
      mo.probe_sm_lid = [this](std::function<void(uint16_t)> done) {
        sm_probe_->AskLid(std::move(done));
      };
    if (options_.want_addr) {
      mo.addr_epoch = [this] { return addr_.epoch(); };
      mo.addr_digest = [this] { return addr_.digest(); };
    }
    mo.timeout_ms = options_.mad_timeout_ms;
    mo.retries = options_.mad_retries;
    control_ = std::make_unique<MemberControlClient>(
        reactor_, mads_.get(), log_, mo,
        [this](const Assignment& a, bool changed) { OnAssigned(a, changed); });
    Hello h;
    h.roles = kRoleConsumer;
    h.kind = DbKind::kPrdb;
    h.guid = options_.port_guid;
    data_ = std::make_unique<DataClient>(
        reactor_, streams_, log_, &replica_, h,
        [this](uint64_t lost, bool refused) { OnLost(lost, refused); });
    data_->set_owner_installs(options_.owner_installs_prdb);
    if (options_.want_addr) {
      h.kind = DbKind::kAddr;
      addr_data_ = std::make_unique<DataClient>(
          reactor_, streams_, log_, &addr_, h,
          [this](uint64_t lost, bool refused) { OnLost(lost, refused); });
    }
    return control_->Start();
  }

  void Stop() override {
    if (data_) data_->Stop();
    if (addr_data_) addr_data_->Stop();
    if (control_) control_->Stop();
  }

  std::shared_ptr<const smdb::Prdb> prdb() const override { return replica_.db(); }
  std::shared_ptr<const smdb::AddrDb> addr() const override { return addr_.db(); }

  ConsumerStats stats() const override {
    ConsumerStats s;
    if (control_) {
      s.joins = control_->joins_sent();
      s.core_epoch = control_->assignment().core_epoch;
      s.renew_s = control_->assignment().renew_s;
    }
    if (data_) {
      const DataClientCounters& c = data_->counters();
      s.parent_changes = c.parent_changes;
      s.full_transfers = c.full_received;
      s.delta_transfers = c.delta_received;
      s.digest_mismatches = c.digest_mismatches;
      s.unproven_parents = c.unproven_parents;
      if (addr_data_) s.unproven_parents += addr_data_->counters().unproven_parents;
      s.reconnects = c.reconnects;
      s.bytes_received = c.bytes_received;
      s.parent_lid = data_->connected() ? data_->serving_lid() : 0;
      s.parent_epoch = data_->parent_epoch();
    }
    s.prdb_epoch = replica_.epoch();
    s.addr_epoch = addr_.epoch();
    return s;
  }
  bool confirmed() const override { return confirmation_.confirmed(); }
  std::chrono::steady_clock::time_point confirmed_at() const override {
    return confirmation_.confirmed_at();
  }
  bool sm_silent_since_confirmed() const override {
    return control_ && confirmation_.confirmed() &&
           control_->last_answer_at() <= confirmation_.confirmed_at() &&
           control_->SmLid() == confirmation_.confirmed_sm_lid();
  }

 private:
  void OnAssigned(const Assignment& a, bool changed) {
    // The answer's own time (last_answer_at): later answers are compared
    // with it (sm_silent_since_confirmed).
    confirmation_.OnCoreAnswer(control_->last_answer_at(), a.core_epoch, replica_.epoch(),
                               control_->SmLid());
    if (changed)
      log_->Log(LogLevel::kInfo, "consumer: access node LID %u (%s), backup LID %u", a.parent.lid,
                a.parent.address.ToString().c_str(), a.backup.lid);
    control_->SetEpoch(replica_.epoch());
    data_->SetParents(a.parent, a.backup, a.token);
    if (addr_data_) addr_data_->SetParents(a.parent, a.backup, a.token);
  }

  // A parent that refused us is alive (it answered): reporting it lost
  // would make the core move every child away from it, and those moves
  // cost token checks that could be refused in turn.
  void OnLost(uint64_t lost, bool refused) {
    if (refused)
      control_->RejoinAfterRefusal();
    else
      control_->Rejoin(lost);
  }

  void OnApplied(const Applied<smdb::Prdb>&) {
    confirmation_.OnHeld(replica_.epoch());
    if (control_) control_->ParentServes();
    if (control_) control_->SetEpoch(replica_.epoch());
    if (on_update_) on_update_();
  }

  Reactor* reactor_;
  Logger* log_;
  ConsumerOptions options_;
  std::unique_ptr<SmLidProbe> sm_probe_;  // null: the SM LID comes from sm_lid() only
  std::unique_ptr<MadTransport> mads_;
  std::unique_ptr<StreamTransport> owned_streams_;
  StreamTransport* streams_;
  UpdateFn on_update_;
  DbReplica<smdb::Prdb> replica_;
  DbReplica<smdb::AddrDb> addr_;
  CoreConfirmation confirmation_;
  std::unique_ptr<MemberControlClient> control_;
  std::unique_ptr<DataClient> data_;
  std::unique_ptr<DataClient> addr_data_;
};

}  // namespace

Status Consumer::Create(Reactor* reactor, Logger* log, const ConsumerOptions& o, UpdateFn on_update,
                        std::unique_ptr<Consumer>* out) {
  auto umad = std::make_unique<UmadTransport>(o.ca_name, o.port_num, log);
  Status st = umad->Open(kSsaClass, kSsaClassVersion);
  if (!st.ok())
    return st.WithContext("SSA class on " + o.ca_name + ":" + std::to_string(o.port_num));
  std::unique_ptr<MadTransport> mads = std::move(umad);
  std::unique_ptr<StreamTransport> streams;
  st = NewStreamTransport(o.transport, &streams);
  // Fault injection (tests only): the seams wrap the real transports.
  if (st.ok()) st = WrapMadFaults(o.mad_faults, &mads);
  if (st.ok()) st = WrapStreamFaults(o.data_faults, &streams);
  if (!st.ok()) return st;
  if (!o.mad_faults.empty() || !o.data_faults.empty())
    log->Log(LogLevel::kWarn,
             "consumer: FAULT INJECTION on: mad_faults '%s', data_faults '%s' (tests only)",
             o.mad_faults.c_str(), o.data_faults.c_str());
  std::unique_ptr<SmLidProbe> probe;
  if (o.probe_sm) {
    Status p = SmLidProbe::Open(reactor, o.ca_name, o.port_num, log, &probe);
    if (!p.ok())
      log->Log(LogLevel::kInfo,
               "consumer: cannot ask the port where the SM is (%s); an SM failover is followed "
               "through sm_lid() only",
               p.ToString().c_str());
  }
  out->reset(new ConsumerImpl(reactor, log, o, std::move(mads), nullptr, std::move(streams),
                              std::move(on_update), std::move(probe)));
  return Status::Ok();
}

Status Consumer::CreateWith(Reactor* reactor, Logger* log, const ConsumerOptions& o,
                            std::unique_ptr<MadTransport> mads, StreamTransport* streams,
                            UpdateFn on_update, std::unique_ptr<Consumer>* out) {
  out->reset(
      new ConsumerImpl(reactor, log, o, std::move(mads), streams, nullptr, std::move(on_update)));
  return Status::Ok();
}

}  // namespace tree
}  // namespace ssa
