// tree_core.cc: see tree_core.h.
#include "opensm_plugin/tree_core.h"

#include <sys/epoll.h>

#include <cinttypes>
#include <ctime>
#include <map>
#include <sstream>

#include "common/base/file_io.h"
#include "common/base/text_util.h"
#include "common/mad/mad_faults.h"
#include "common/mad/umad_ports.h"
#include "common/mad/umad_transport.h"
#include "common/metrics/metrics_file.h"
#include "common/tree/core_server.h"
#include "common/tree/federation.h"
#include "common/tree/stream.h"
#include "common/tree/stream_faults.h"
#include "opensm_plugin/address_book.h"
#include "opensm_plugin/core_metrics.h"
#include "opensm_plugin/version_store.h"

namespace ssa {
namespace opensm_plugin {

// Everything the core does, on its loop thread.
class TreeCoreImpl {
 public:
  TreeCoreImpl(const PluginOptions& o, Logger* log, EventLoop* loop,
               TreeCore::EpochAheadFn smdb_ahead, TreeCore::IsMasterFn is_master,
               TreeCore::ActivityFn activity, std::atomic<bool>* serving,
               std::unique_ptr<tree::FederationConfig> federation)
      : serving_(serving),
        options_(o),
        federation_config_(std::move(federation)),
        log_(log),
        loop_(loop),
        smdb_ahead_(std::move(smdb_ahead)),
        is_master_(std::move(is_master)),
        activity_(std::move(activity)) {}

  // Registers class 0x2C on every local port now, on OpenSM's thread at
  // plugin load, before anything else in the process uses umad
  // concurrently: members keep sending joins to the SM's LID while OpenSM
  // restarts, and under umad2sim an unsolicited MAD of a class nobody
  // registered kills the process (doc/simulated-fabric.md). On hardware the
  // kernel drops such MADs; registering early costs nothing there either.
  void PreRegister() {
    std::vector<UmadPort> ports;
    if (!DiscoverPorts(&ports).ok()) return;
    for (const UmadPort& p : ports) {
      auto t = std::make_unique<UmadTransport>(p.ca_name, p.port_num, log_);
      if (t->Open(tree::kSsaClass, tree::kSsaClassVersion).ok())
        registered_[p.port_guid] = std::move(t);
    }
  }
  ~TreeCoreImpl() { Close(); }

  // Posted by TreeCore::Create once the thread runs: the file is written
  // on this thread from the first snapshot on.
  void StartMetrics() {
    if (options_.metrics_file.empty()) return;
    start_time_ = static_cast<int64_t>(time(nullptr));
    metrics_ = std::make_unique<metrics::MetricsFile>(
        loop_, log_, options_.metrics_file, std::chrono::seconds(options_.metrics_interval),
        [this](metrics::PromText* out) {
          metrics::AddDaemonFamilies(out, "ibssa_core", start_time_);
          CollectCoreMetrics(versions_, core_.get(), federation_.get(), out);
          metrics::AddWriteFailures(out, "ibssa_core", metrics_.get());
        });
    metrics_->Start();
  }

  void OnExtraction(const ProduceResult& r) { versions_.RecordExtraction(r); }

  void OnVersion(const ProduceResult& v) {
    if (v.new_version) versions_.RecordVersion(v);
    if (!core_ && !StartServing(*v.db)) return;
    // The worker may hand an idle core the current version while a newer
    // one is on its way: never publish one that is not newer.
    if (v.db->global_epoch <= published_epoch_) return;
    published_epoch_ = v.db->global_epoch;
    core_->PublishSmdb(v.db, v.serialized, v.delta, v.delta_from, v.route_sl_rows);
  }

  void Close() {
    serving_->store(false, std::memory_order_relaxed);
    if (metrics_) metrics_->Stop();  // a stopped core's numbers are not current
    metrics_.reset();
    StopWatchingMastership();
    federation_.reset();
    if (core_) core_->Close();
    core_.reset();
    StopDraining();
    if (mads_) mads_->Close();
    for (auto& kv : registered_)
      if (kv.second) kv.second->Close();
    registered_.clear();
  }

 private:
  // The first version of this SM: open its port and the data listener.
  bool StartServing(const smdb::Smdb& db) {
    uint64_t sm_guid = db.subnet.records[0].sm_port_guid;
    std::vector<UmadPort> ports;
    Status st = DiscoverPorts(&ports);
    const UmadPort* mine = nullptr;
    for (const UmadPort& p : ports)
      if (p.port_guid == sm_guid) mine = &p;
    if (!st.ok() || !mine) {
      log_->Log(LogLevel::kInfo,
                "tree: the master SM's port 0x%016" PRIx64 " is not on this host; core idle",
                sm_guid);
      return false;
    }
    // Serving again after an idle spell (TreeCore's header): the agent
    // kept for it is reused when the SM's port is the same one.
    StopDraining();
    if (mads_ && port_.port_guid != mine->port_guid) {
      mads_->Close();
      mads_.reset();
    }
    bool reuse_agent = mads_ != nullptr;
    port_ = *mine;
    // OpenSM's process read its port before the subnet was up (LID 0 on
    // the simulated fabric, where port info is frozen at start): the
    // SMDB knows the SM's LID.
    port_.lid = db.subnet.records[0].sm_lid;
    auto pre = registered_.find(port_.port_guid);
    if (reuse_agent) {
      // opened (and wrapped for faults) when the core first served
    } else if (pre != registered_.end()) {
      mads_ = std::move(pre->second);
    } else {
      auto umad = std::make_unique<UmadTransport>(port_.ca_name, port_.port_num, log_);
      st = umad->Open(tree::kSsaClass, tree::kSsaClassVersion);
      if (!st.ok()) {
        log_->Log(LogLevel::kError, "tree: cannot open the SSA class on %s: %s; core idle",
                  port_.Describe().c_str(), st.ToString().c_str());
        return false;
      }
      mads_ = std::move(umad);
    }
    // The other ports' registrations are not needed any more.
    for (auto& kv : registered_)
      if (kv.second) kv.second->Close();
    registered_.clear();
    if (!reuse_agent) {
      st = tree::NewStreamTransport(options_.transport, &streams_);
      // Fault injection (tests only): the seams wrap the real transports.
      if (st.ok()) st = WrapMadFaults(options_.mad_faults, &mads_);
      if (st.ok()) st = tree::WrapStreamFaults(options_.data_faults, &streams_);
    }
    if (st.ok() && (!options_.mad_faults.empty() || !options_.data_faults.empty()))
      log_->Log(LogLevel::kWarn,
                "tree: FAULT INJECTION on: mad_faults '%s', data_faults '%s' (tests only)",
                options_.mad_faults.c_str(), options_.data_faults.c_str());
    tree::CoreServerOptions co;
    co.port_guid = port_.port_guid;
    co.lid = port_.lid;
    co.announce = options_.announce;
    co.membership.lease_s = options_.lease_s;
    co.membership.fanout_core = options_.fanout_core;
    co.membership.fanout_distribution = options_.fanout_distribution;
    co.membership.fanout_access = options_.fanout_access;
    co.membership.allow_distribution =
        ParseGuids(options_.allow_distribution, "allow_distribution");
    co.membership.allow_access = ParseGuids(options_.allow_access, "allow_access");
    co.activity = activity_;
    co.on_epochs_ahead = [this](uint64_t smdb_epoch, uint64_t addr_epoch) {
      if (smdb_epoch && smdb_ahead_) smdb_ahead_(smdb_epoch);
      if (addr_epoch && address_book_) {
        AddressVersion v;
        if (address_book_->ContinueAfter(addr_epoch, &v))
          core_->PublishAddr(v.version, v.delta, v.delta_from);
      }
    };
    if (st.ok()) st = tree::DataAddress::Parse(options_.listen, &co.listen);
    if (!st.ok()) return Fail(st);
    core_ = std::make_unique<tree::CoreServer>(loop_, log_, mads_.get(), streams_.get(), co);
    st = core_->Start([this] { StateChanged(); });
    if (!st.ok()) return Fail(st);
    // Only what the SMDB confirmed: the rest of the port's attributes may
    // be the stale ones read before the subnet was up.
    address_book_ = std::make_unique<AddressBook>(
        options_.hosts_file, options_.dump_dir.empty() ? "" : options_.dump_dir + "/addr.db", log_,
        federation_config_ != nullptr);
    ++serving_spell_;
    serving_->store(true, std::memory_order_relaxed);
    RefreshAddresses();
    StartFederation(db.subnet.records[0].subnet_prefix);
    WatchMastership();
    if (dropped_while_idle_)
      log_->Log(LogLevel::kInfo,
                "tree: master again; %" PRIu64 " tree MAD(s) went unanswered while idle",
                dropped_while_idle_);
    dropped_while_idle_ = 0;
    log_->Log(LogLevel::kInfo,
              "tree: core on %s/%d (GUID 0x%016" PRIx64
              ", LID %u), data channel %s (%s), lease %d s",
              port_.ca_name.c_str(), port_.port_num, port_.port_guid, port_.lid,
              core_->announced().ToString().c_str(), streams_->name(), options_.lease_s);
    return true;
  }

  // Looks once a second whether OpenSM is still the master SM: OpenSM
  // reports a handover to no plugin event.
  void WatchMastership() {
    if (!is_master_) return;
    master_timer_ = loop_->AddTimer(std::chrono::seconds(1), [this] {
      master_timer_ = 0;
      if (!core_) return;
      if (is_master_())
        WatchMastership();
      else
        GoIdle();
    });
  }

  void StopWatchingMastership() {
    if (master_timer_) loop_->CancelTimer(master_timer_);
    master_timer_ = 0;
  }

  // OpenSM is no longer the master: the members must move to the new
  // master's core, which they do once this one stops answering them.
  void GoIdle() {
    StopWatchingMastership();
    log_->Log(LogLevel::kWarn,
              "tree: this OpenSM is no longer the master SM; core idle: children closed, "
              "joins and renewals left unanswered so that members find the new master's core; "
              "it serves again when this OpenSM is master");
    federation_.reset();
    core_->Close();
    core_.reset();
    address_book_.reset();
    published_epoch_ = 0;  // a new CoreServer serves from scratch
    serving_->store(false, std::memory_order_relaxed);
    Status st = loop_->WatchFd(mads_->fd(), EPOLLIN, [this](uint32_t) { Drain(); });
    if (!st.ok())
      log_->Log(LogLevel::kError, "tree: cannot drain the idle core's MADs: %s",
                st.ToString().c_str());
    else
      draining_ = true;
    StateChanged();
  }

  // Reads and drops what members still send to this port while idle: an
  // unread queue would only grow (and hold up the simulator's socket).
  void Drain() {
    ReceivedMad m;
    while (mads_ && mads_->Receive(&m).ok()) ++dropped_while_idle_;
  }

  void StopDraining() {
    if (draining_ && mads_) loop_->UnwatchFd(mads_->fd());
    draining_ = false;
  }

  bool Fail(const Status& st) {
    log_->Log(LogLevel::kError, "tree: core not started: %s", st.ToString().c_str());
    core_.reset();
    return false;
  }

  std::set<uint64_t> ParseGuids(const std::string& text, const char* what) {
    std::set<uint64_t> out;
    if (text == "any" || text.empty()) {
      log_->Log(LogLevel::kWarn,
                "tree: %s=any: every port may take that role (set port GUIDs to restrict it)",
                what);
      return out;
    }
    std::string word;
    std::string t = text;
    for (char& c : t)
      if (c == ',' || c == ';') c = ' ';
    std::istringstream in(t);
    while (in >> word) out.insert(strtoull(word.c_str(), nullptr, 0));
    return out;
  }

  // The link to the other subnets' cores (doc/federation.md), for this
  // serving spell: our own entries out, theirs into the address database.
  void StartFederation(uint64_t own_prefix) {
    if (!federation_config_) return;
    if (tree::IsLinkLocalPrefix(own_prefix)) {
      log_->Log(LogLevel::kError,
                "federation: this subnet's prefix %s is link-local (fe80::/10), which no peer "
                "can accept; federation off: give OpenSM another subnet_prefix",
                GuidText(own_prefix).c_str());
      return;
    }
    for (const tree::FederationPeer& p : federation_config_->peers)
      if (p.prefix == own_prefix) {
        log_->Log(LogLevel::kError,
                  "federation: peer %s (%s:%d) has this subnet's own prefix %s; federation off: "
                  "fix the file or OpenSM's subnet_prefix",
                  p.name.c_str(), federation_config_->path.c_str(), p.line,
                  GuidText(own_prefix).c_str());
        return;
      }
    Status st = fed_streams_ ? Status::Ok() : tree::NewStreamTransport("tcp", &fed_streams_);
    if (st.ok()) {
      federation_ =
          std::make_unique<tree::Federation>(loop_, fed_streams_.get(), log_, *federation_config_,
                                             own_prefix, [this] { FederationChanged(); });
      federation_->PublishLocal(address_book_->local());
      st = federation_->Start();
    }
    if (!st.ok()) {
      log_->Log(LogLevel::kError, "federation: not started: %s", st.ToString().c_str());
      federation_.reset();
    }
  }

  // The peers' entries changed: republished to the tree as a new version.
  void FederationChanged() {
    smdb::AddrDb remote;
    federation_->Remote(&remote);
    AddressVersion v;
    bool changed = false;
    Status st = address_book_->SetRemote(remote, &v, &changed);
    if (!st.ok())
      log_->Log(LogLevel::kError, "federation: address database: %s", st.ToString().c_str());
    else if (changed)
      core_->PublishAddr(v.version, v.delta, v.delta_from);
  }

  // Publishes the address database when it changed, and looks again in
  // a moment: the hosts file is re-read when it changes on disk.
  void RefreshAddresses() {
    AddressVersion v;
    bool changed = false;
    Status st = address_book_->Refresh(&v, &changed);
    if (!st.ok()) {
      log_->Log(LogLevel::kError, "tree: address database: %s", st.ToString().c_str());
    } else if (changed) {
      core_->PublishAddr(v.version, v.delta, v.delta_from);
      if (federation_) federation_->PublishLocal(address_book_->local());
    }
    // One chain of looks per serving spell (the core may go idle and
    // serve again before this one's next look).
    loop_->AddTimer(std::chrono::seconds(2), [this, spell = serving_spell_] {
      if (core_ && spell == serving_spell_) RefreshAddresses();
    });
  }

  // Rewrites the state file at most once a second.
  void StateChanged() {
    if (state_pending_ || StateFile().empty()) return;
    state_pending_ = true;
    loop_->AddTimer(std::chrono::milliseconds(200), [this] {
      state_pending_ = false;
      Status st = WriteFileAtomically(StateFile(), core_ ? core_->Json() : std::string("[]\n"));
      if (!st.ok()) log_->Log(LogLevel::kWarn, "tree: state file: %s", st.ToString().c_str());
    });
  }

  std::string StateFile() const {
    if (options_.tree_state_file == "none") return "";
    if (!options_.tree_state_file.empty()) return options_.tree_state_file;
    return options_.dump_dir.empty() ? "" : options_.dump_dir + "/tree.json";
  }

  std::atomic<bool>* serving_;  // TreeCore::serving()
  PluginOptions options_;
  std::unique_ptr<tree::FederationConfig> federation_config_;  // null: no federation
  Logger* log_;
  EventLoop* loop_;
  TreeCore::EpochAheadFn smdb_ahead_;
  TreeCore::IsMasterFn is_master_;
  TreeCore::ActivityFn activity_;
  std::unique_ptr<metrics::MetricsFile> metrics_;
  VersionStats versions_;
  int64_t start_time_ = 0;             // Unix seconds
  Reactor::TimerId master_timer_ = 0;  // WatchMastership's next look (0: none)
  uint64_t published_epoch_ = 0;       // the newest SMDB epoch core_ serves
  uint64_t serving_spell_ = 0;         // StartServing's count, for RefreshAddresses' timers
  bool draining_ = false;              // idle: mads_ is watched by Drain()
  uint64_t dropped_while_idle_ = 0;    // MADs Drain() dropped since the core went idle
  UmadPort port_;
  std::unique_ptr<MadTransport> mads_;
  std::unique_ptr<tree::StreamTransport> streams_;
  std::unique_ptr<tree::CoreServer> core_;
  std::unique_ptr<AddressBook> address_book_;
  std::unique_ptr<tree::StreamTransport> fed_streams_;            // TCP, whatever `transport` is
  std::unique_ptr<tree::Federation> federation_;                  // while serving, when configured
  std::map<uint64_t, std::unique_ptr<MadTransport>> registered_;  // PreRegister, by port GUID
  bool state_pending_ = false;
};

Status TreeCore::Create(const PluginOptions& options, PluginLog* plog, EpochAheadFn smdb_ahead,
                        IsMasterFn is_master, ActivityFn activity, std::unique_ptr<TreeCore>* out) {
  std::unique_ptr<TreeCore> c(new TreeCore);
  c->log_ = std::make_unique<Logger>();
  c->log_->set_level(options.log_level);
  c->log_->set_sink([plog](LogLevel level, const std::string& line) {
    plog->Log(level, level <= LogLevel::kWarn, line);
  });
  c->loop_ = std::make_unique<EventLoop>();
  // The federation file is checked now: a mistake in it stops the plugin
  // from loading, with the line to fix, rather than surfacing later.
  std::unique_ptr<tree::FederationConfig> federation;
  if (!options.federation_file.empty()) {
    federation = std::make_unique<tree::FederationConfig>();
    Status st = tree::ReadFederationFile(options.federation_file, federation.get());
    if (!st.ok()) return st;
    c->log_->Log(LogLevel::kInfo, "federation: %s: listen %s, %zu peer(s), hold_s %d",
                 options.federation_file.c_str(), federation->listen.ToString().c_str(),
                 federation->peers.size(), federation->hold_s);
  }
  Status st = c->loop_->Init();
  if (!st.ok()) return st;
  c->impl_ = std::make_unique<TreeCoreImpl>(
      options, c->log_.get(), c->loop_.get(), std::move(smdb_ahead), std::move(is_master),
      std::move(activity), &c->serving_, std::move(federation));
  c->impl_->PreRegister();  // before the core's thread exists
  {
    MutexLock lock(&c->post_mu_);  // no other thread yet; the analysis wants it
    c->live_ = c->impl_.get();
  }
  c->thread_ = std::thread([loop = c->loop_.get()] { loop->Run(); });
  TreeCoreImpl* impl = c->impl_.get();
  c->loop_->Post([impl] { impl->StartMetrics(); });
  *out = std::move(c);
  return Status::Ok();
}

TreeCore::~TreeCore() { Stop(); }

void TreeCore::OnVersion(const ProduceResult& v) {
  if (!v.db || !v.serialized || !loop_) return;
  ProduceResult copy = v;
  MutexLock lock(&post_mu_);
  TreeCoreImpl* impl = live_;
  if (impl) loop_->Post([impl, copy] { impl->OnVersion(copy); });
}

void TreeCore::OnExtraction(const ProduceResult& r) {
  if (!loop_) return;
  ProduceResult copy = r;
  copy.db.reset();  // the times are wanted, not the database
  copy.serialized.reset();
  copy.delta.reset();
  MutexLock lock(&post_mu_);
  TreeCoreImpl* impl = live_;
  if (impl) loop_->Post([impl, copy] { impl->OnExtraction(copy); });
}

void TreeCore::Stop() {
  if (!thread_.joinable()) return;
  // The extraction thread may still hand over a version (ExtractWorker
  // stops the core first): after this, nothing more is posted, and what
  // was posted before runs ahead of Close.
  {
    MutexLock lock(&post_mu_);
    live_ = nullptr;
  }
  TreeCoreImpl* impl = impl_.get();
  EventLoop* loop = loop_.get();
  loop_->Post([impl, loop] {
    impl->Close();
    loop->Stop();
  });
  thread_.join();
  impl_.reset();
}

}  // namespace opensm_plugin
}  // namespace ssa
