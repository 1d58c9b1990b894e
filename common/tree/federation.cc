// federation.cc: see federation.h.
#include "common/tree/federation.h"

#include <algorithm>
#include <cinttypes>

#include "common/base/sort_unique.h"
#include "common/base/text_util.h"
#include "common/smdb/smdb_delta.h"

namespace ssa {
namespace tree {

const Token kFederationToken{
    {'i', 'b', 's', 's', 'a', ' ', 'f', 'e', 'd', 'e', 'r', 'a', 't', 'i', 'o', 'n'}};

namespace {

const char kPublication[] = "federation";
// A peer that refused us (bad key, unknown prefix) is asked again this
// often: its administrator may be fixing its file.
constexpr auto kRetryAfterRefusal = std::chrono::seconds(5);

// The records of `in` whose GID is under `prefix`; `refused` counts the rest.
template <class R>
std::vector<R> UnderPrefix(const std::vector<R>& in, uint64_t prefix, size_t* refused) {
  std::vector<R> out;
  out.reserve(in.size());
  for (const R& r : in) {
    if (GidPrefix(r.gid) == prefix)
      out.push_back(r);
    else
      ++*refused;
  }
  return out;
}

}  // namespace

uint64_t GidPrefix(const std::array<uint8_t, 16>& gid) {
  uint64_t p = 0;
  for (int i = 0; i < 8; ++i) p = p << 8 | gid[i];
  return p;
}

struct Federation::Peer {
  FederationPeer config;
  LinkKey serve_key{};  // it proves this when it asks us
  LinkKey ask_key{};    // we prove this when we ask it
  std::unique_ptr<DbReplica<smdb::AddrDb>> replica;
  std::unique_ptr<DataClient> client;
  std::vector<smdb::AddrName> names;  // what is served of it now
  std::vector<smdb::AddrIp> ips;
  FederationPeerStats stats;
  bool lost_since_full = false;  // the next full version is a resync
  size_t dialing = 0;            // index into config.addresses
  size_t misses = 0;             // losses since the last version taken
  std::chrono::milliseconds backoff{0};
  Reactor::TimerId withdraw = 0, retry = 0;
};

Federation::Federation(Reactor* reactor, StreamTransport* transport, Logger* log,
                       FederationConfig config, uint64_t own_prefix, ChangedFn on_changed)
    : reactor_(reactor),
      transport_(transport),
      log_(log),
      limited_(log, std::chrono::seconds(10)),
      config_(std::move(config)),
      own_prefix_(own_prefix),
      on_changed_(std::move(on_changed)) {
  for (const FederationPeer& c : config_.peers) {
    auto p = std::make_unique<Peer>();
    p->config = c;
    LinkKeyDeriver keys(c.key);
    p->serve_key = keys.Derive(own_prefix_, c.prefix, kFederationToken);
    p->ask_key = keys.Derive(c.prefix, own_prefix_, kFederationToken);
    p->stats.name = c.name;
    p->stats.prefix = c.prefix;
    peers_.push_back(std::move(p));
  }
}

Federation::~Federation() { Close(); }

Status Federation::Start() {
  DataServerOptions o;
  o.guid = own_prefix_;
  // Each peer connects once; a few more for reconnections not yet noticed.
  o.max_children = 2 * peers_.size() + 4;
  server_ = std::make_unique<DataServer>(
      reactor_, transport_, log_, o,
      [this](const Hello& h, DataServer::AdmitFn done) { Authorize(h, std::move(done)); });
  if (published_.global_epoch == 0)
    PublishLocal(smdb::AddrDb());
  else
    server_->Publish(kPublication,
                     {published_.global_epoch, DigestOf(*published_bytes_), published_bytes_},
                     nullptr, 0);
  TryListen();
  for (auto& owned : peers_) {
    Peer* p = owned.get();
    p->replica = std::make_unique<DbReplica<smdb::AddrDb>>(
        [this, p](const Applied<smdb::AddrDb>& a) { OnApplied(p, a); });
    Hello h;
    h.kind = DbKind::kAddr;
    h.guid = own_prefix_;
    p->client =
        std::make_unique<DataClient>(reactor_, transport_, log_, p->replica.get(), h,
                                     [this, p](uint64_t, bool refused) { OnLost(p, refused); });
    p->client->SetParents(Target(p), ParentInfo(), kFederationToken);
  }
  return Status::Ok();
}

void Federation::TryListen() {
  Status st = server_->Listen(config_.listen);
  if (st.ok()) {
    listening_ = true;
    listen_backoff_ = kListenRetryFirst;
    log_->Log(LogLevel::kInfo,
              "federation: subnet prefix %s, listening on %s for %zu peer(s) (%s); a peer's "
              "entries are withdrawn %d s after its link breaks",
              GuidText(own_prefix_).c_str(), server_->address().ToString().c_str(), peers_.size(),
              config_.path.c_str(), config_.hold_s);
    return;
  }
  ++listen_failures_;
  // The peers cannot reach us until the port is ours; what holds it may be
  // a previous life of this SM still closing, or another program.
  limited_.Log(LogLevel::kWarn, "listen",
               "federation: cannot listen on %s: %s; trying again in %lld ms (%" PRIu64
               " failure(s) so far); our peers cannot fetch our entries meanwhile",
               config_.listen.ToString().c_str(), st.ToString().c_str(),
               static_cast<long long>(listen_backoff_.count()), listen_failures_);
  listen_retry_ = reactor_->AddTimer(listen_backoff_, [this] {
    listen_retry_ = 0;
    TryListen();
  });
  listen_backoff_ = std::min(listen_backoff_ * 2, kListenRetryMax);
}

FederationListenStats Federation::ListenStats() const {
  FederationListenStats s;
  s.listening = listening_;
  s.failures = listen_failures_;
  return s;
}

void Federation::Close() {
  for (auto& p : peers_) {
    if (p->withdraw) reactor_->CancelTimer(p->withdraw);
    if (p->retry) reactor_->CancelTimer(p->retry);
    p->withdraw = p->retry = 0;
    if (p->client) p->client->Stop();
    p->client.reset();
    p->replica.reset();
  }
  if (listen_retry_) reactor_->CancelTimer(listen_retry_);
  listen_retry_ = 0;
  listening_ = false;
  listen_backoff_ = kListenRetryFirst;
  if (server_) server_->Close();
  server_.reset();
}

DataAddress Federation::address() const { return server_ ? server_->address() : DataAddress(); }

void Federation::PublishLocal(const smdb::AddrDb& local) {
  size_t others = 0;
  smdb::AddrDb next;
  next.names.records = UnderPrefix(local.names.records, own_prefix_, &others);
  next.ips.records = UnderPrefix(local.ips.records, own_prefix_, &others);
  if (published_.global_epoch == 0) {
    next.global_epoch = next.names.epoch = next.ips.epoch = 1;
  } else {
    smdb::BumpEpochs(published_, &next);
    if (next.global_epoch == published_.global_epoch) return;  // our part did not change
  }
  auto bytes = std::make_shared<std::string>();
  Status st = next.Serialize(bytes.get());
  if (!st.ok()) {
    log_->Log(LogLevel::kError, "federation: cannot serialize our entries: %s",
              st.ToString().c_str());
    return;
  }
  Bytes delta;
  uint64_t from = 0;
  if (published_.global_epoch != 0) {
    auto d = std::make_shared<std::string>();
    if (smdb::MakeDelta(published_, next, d.get()).ok()) {
      delta = d;
      from = published_.global_epoch;
    }
  }
  log_->Log(LogLevel::kInfo,
            "federation: serving epoch %" PRIu64
            " of our entries: %zu names, %zu IPs (%zu "
            "local entries not under our prefix are not announced)",
            next.global_epoch, next.names.records.size(), next.ips.records.size(), others);
  published_ = std::move(next);
  published_bytes_ = bytes;
  if (server_)
    server_->Publish(kPublication, {published_.global_epoch, DigestOf(*bytes), bytes}, delta, from);
}

void Federation::Authorize(const Hello& h, DataServer::AdmitFn done) {
  if (h.kind != DbKind::kAddr || h.token != kFederationToken) {
    limited_.Log(LogLevel::kWarn, "not-federation",
                 "federation: a HELLO that is not a federation peer's (kind %s); refused",
                 DbKindName(h.kind));
    return done(kRefuseBadToken, "", LinkKey());
  }
  for (auto& p : peers_)
    if (p->config.prefix == h.guid) return done(0, kPublication, p->serve_key);
  limited_.Log(LogLevel::kWarn, "unknown-prefix",
               "federation: a peer announcing subnet prefix %s is not in %s; refused",
               GuidText(h.guid).c_str(), config_.path.c_str());
  done(kRefuseBadToken, "", LinkKey());
}

void Federation::OnApplied(Peer* p, const Applied<smdb::AddrDb>& a) {
  size_t refused = 0;
  p->names = UnderPrefix(a.db->names.records, p->config.prefix, &refused);
  p->ips = UnderPrefix(a.db->ips.records, p->config.prefix, &refused);
  const bool full = !a.delta;
  if (full) {
    if (p->lost_since_full && p->stats.full) ++p->stats.resyncs;
    ++p->stats.full;
    p->lost_since_full = false;
  } else {
    ++p->stats.deltas;
  }
  p->stats.refused_entries = refused;
  if (refused) {
    ++p->stats.refused_versions;
    limited_.Log(LogLevel::kWarn, "outside-" + p->config.name,
                 "federation: peer %s epoch %" PRIu64
                 ": %zu entries with a GID outside its prefix %s refused (see its hosts_file)",
                 p->config.name.c_str(), a.version.epoch, refused,
                 GuidText(p->config.prefix).c_str());
  }
  if (p->withdraw) {
    reactor_->CancelTimer(p->withdraw);
    p->withdraw = 0;
  }
  p->misses = 0;
  p->backoff = std::chrono::milliseconds(0);
  p->stats.held = true;
  log_->Log(LogLevel::kInfo,
            "federation: peer %s epoch %" PRIu64 " (%s): %zu names, %zu IPs taken, %zu refused",
            p->config.name.c_str(), a.version.epoch, full ? "full" : "delta", p->names.size(),
            p->ips.size(), refused);
  if (on_changed_) on_changed_();
}

void Federation::OnLost(Peer* p, bool refused) {
  // The next version must come whole: the peer may have restarted with
  // other epochs, or withdrawn entries we would otherwise keep.
  p->replica->Forget();
  p->lost_since_full = true;
  if (p->stats.held && !p->withdraw) {
    log_->Log(LogLevel::kWarn,
              "federation: link to peer %s broken; its %zu names and %zu IPs are served for "
              "%d s more unless it comes back",
              p->config.name.c_str(), p->names.size(), p->ips.size(), config_.hold_s);
    p->withdraw = reactor_->AddTimer(std::chrono::seconds(config_.hold_s), [this, p] {
      p->withdraw = 0;
      Withdraw(p);
    });
  }
  if (refused && !p->retry) {
    limited_.Log(LogLevel::kWarn, "refused-" + p->config.name,
                 "federation: peer %s (%s) refused us: check that its federation file names "
                 "our prefix %s with the key in %s",
                 p->config.name.c_str(), Target(p).address.ToString().c_str(),
                 GuidText(own_prefix_).c_str(), p->config.key_file.c_str());
    // With several addresses, the next is asked then: what refused us may
    // be another core on a standby's host.
    p->dialing = (p->dialing + 1) % p->config.addresses.size();
    p->retry = reactor_->AddTimer(kRetryAfterRefusal, [this, p] {
      p->retry = 0;
      if (p->client) p->client->SetParents(Target(p), ParentInfo(), kFederationToken);
    });
  } else if (!refused && p->config.addresses.size() > 1) {
    DialNext(p);
  }
}

ParentInfo Federation::Target(const Peer* p) const {
  ParentInfo info;
  info.guid = p->config.prefix;
  info.address = p->config.addresses[p->dialing];
  info.key = p->ask_key;
  return info;
}

void Federation::DialNext(Peer* p) {
  if (p->retry) return;
  // Parked first: the client's own failover would dial the same address.
  p->client->SetParents(ParentInfo(), ParentInfo(), kFederationToken);
  const size_t n = p->config.addresses.size();
  p->dialing = (p->dialing + 1) % n;
  std::chrono::milliseconds delay{0};
  if (++p->misses >= n) {
    p->misses = 0;
    p->backoff = std::min(std::chrono::milliseconds(5000),
                          std::max(std::chrono::milliseconds(200), p->backoff * 2));
    delay = p->backoff;
  }
  limited_.Log(LogLevel::kInfo, "dial-" + p->config.name,
               "federation: peer %s: dialling %s (address %zu of %zu) in %lld ms",
               p->config.name.c_str(), Target(p).address.ToString().c_str(), p->dialing + 1, n,
               static_cast<long long>(delay.count()));
  p->retry = reactor_->AddTimer(delay, [this, p] {
    p->retry = 0;
    if (p->client) p->client->SetParents(Target(p), ParentInfo(), kFederationToken);
  });
}

void Federation::Withdraw(Peer* p) {
  log_->Log(LogLevel::kWarn,
            "federation: peer %s away for %d s: its %zu names and %zu IPs withdrawn",
            p->config.name.c_str(), config_.hold_s, p->names.size(), p->ips.size());
  p->names.clear();
  p->ips.clear();
  p->stats.held = false;
  ++p->stats.withdrawals;
  if (on_changed_) on_changed_();
}

void Federation::Remote(smdb::AddrDb* out) const {
  out->names.records.clear();
  out->ips.records.clear();
  for (const auto& p : peers_) {
    if (!p->stats.held) continue;
    out->names.records.insert(out->names.records.end(), p->names.begin(), p->names.end());
    out->ips.records.insert(out->ips.records.end(), p->ips.begin(), p->ips.end());
  }
  conflicts_ = SortUnique(&out->names.records, [](const smdb::AddrName& r) { return r.name; }) +
               SortUnique(&out->ips.records, [](const smdb::AddrIp& r) { return r.ip; });
}

std::vector<FederationPeerStats> Federation::Stats() const {
  std::vector<FederationPeerStats> out;
  for (const auto& p : peers_) {
    FederationPeerStats s = p->stats;
    s.up = p->client && p->client->connected();
    s.names = p->names.size();
    s.ips = p->ips.size();
    s.address = Target(p.get()).address.ToString();
    if (p->client) s.unproven = p->client->counters().unproven_parents;
    out.push_back(s);
  }
  return out;
}

}  // namespace tree
}  // namespace ssa
