// path_verifier.cc: SA answers for provider testing (see path_verifier.h).
#include "util/ib_acme/path_verifier.h"

#include <chrono>
#include <cstring>

#include "common/base/big_endian.h"
#include "common/mad/mad_wire.h"
#include "util/ib_acme/acme_output.h"

namespace ssa {
namespace acme {

namespace {

uint64_t GidPrefix(const ibv_gid& gid) { return FromBe64(gid.global.subnet_prefix); }
uint64_t GidGuid(const ibv_gid& gid) { return FromBe64(gid.global.interface_id); }

}  // namespace

// ---- Straight to the SA.

SaPathVerifier::SaPathVerifier(std::string sa_port, int timeout_ms)
    : sa_port_(std::move(sa_port)), timeout_ms_(timeout_ms) {
  // SaClient logs through this; keep the output for ib_acme's own lines.
  logger_.set_level(LogLevel::kError);
}

SaPathVerifier::~SaPathVerifier() {
  for (auto& c : clients_) c.second->CancelAll();
}

Status SaPathVerifier::Init() {
  Status st = DiscoverPorts(&ports_);
  if (!st.ok()) return st;
  bool any_active = false;
  for (const UmadPort& p : ports_) {
    std::string name = p.ca_name + ":" + std::to_string(p.port_num);
    if (!sa_port_.empty() && name != sa_port_) continue;
    if (p.IsActive() && p.IsInfiniBand() && p.sm_lid != 0) any_active = true;
  }
  if (!any_active)
    return Status::Error(ENODEV, sa_port_.empty()
                                     ? "no active InfiniBand port with an SM on this host"
                                     : "port " + sa_port_ + " is not an active InfiniBand port");
  return loop_.Init();
}

const UmadPort* SaPathVerifier::PickPort(const PathKey& key) const {
  const UmadPort* first_active = nullptr;
  for (const UmadPort& p : ports_) {
    if (!p.IsActive() || !p.IsInfiniBand() || p.sm_lid == 0) continue;
    if (!sa_port_.empty()) {
      if (p.ca_name + ":" + std::to_string(p.port_num) == sa_port_) return &p;
      continue;
    }
    if (!first_active) first_active = &p;
    bool starts_here =
        key.by_lid ? (key.slid != 0 && key.slid >= p.lid && key.slid < p.lid + (1u << p.lmc))
                   : (GidPrefix(key.sgid) == p.gid_prefix && GidGuid(key.sgid) == p.port_guid);
    if (starts_here) return &p;
  }
  return first_active;
}

Status SaPathVerifier::ClientFor(const UmadPort& port, SaClient** out) {
  std::string name = port.ca_name + ":" + std::to_string(port.port_num);
  auto it = clients_.find(name);
  if (it == clients_.end()) {
    SaClientOptions o;
    o.timeout_ms = timeout_ms_;
    o.retries = 2;
    auto client = std::make_unique<SaClient>(&loop_, &logger_, port, o);
    Status st = client->Open();
    if (!st.ok()) return st.WithContext("SA client on " + name);
    it = clients_.emplace(name, std::move(client)).first;
  }
  *out = it->second.get();
  return Status::Ok();
}

VerifyResult SaPathVerifier::Verify(const PathKey& key) {
  VerifyResult result;
  const UmadPort* port = PickPort(key);
  if (!port) {
    result.error = "no active local port to ask the SA from";
    return result;
  }
  SaClient* client = nullptr;
  Status st = ClientFor(*port, &client);
  if (!st.ok()) {
    result.error = st.ToString();
    return result;
  }
  uint8_t mad[mad::kMadSize];
  if (key.by_lid) {
    uint16_t slid = key.slid ? key.slid : port->lid;
    mad::BuildPathRecordGetByLid(0, slid, key.dlid, key.pkey, mad);
  } else {
    mad::BuildPathRecordGetByGid(0, key.sgid.raw, key.dgid.raw, key.pkey, mad);
  }
  bool done = false;
  st = client->Send(mad, sizeof(mad), [&](int status, const uint8_t* resp, size_t len) {
    done = true;
    if (status != 0) {
      result.error = std::string("SA query failed: ") + strerror(-status);
      return;
    }
    mad::PathRecord rec;
    Status d = mad::DecodePathRecordResponse(resp, len, &rec);
    if (d.ok()) {
      result.kind = VerifyResult::kRecord;
      mad::ToIbvPathRecord(rec, &result.path);
    } else if (d.code() == -ENODATA) {
      result.kind = VerifyResult::kNoRecord;
    } else {
      result.error = "SA answer: " + d.ToString();
    }
  });
  if (!st.ok()) {
    result.error = st.ToString();
    return result;
  }
  // The client's own timers end every try; this is only a backstop.
  auto budget =
      std::chrono::milliseconds(static_cast<int64_t>(client->try_timeout_ms()) * 4 + 1000);
  if (!loop_.RunUntil([&] { return done; }, budget)) {
    client->CancelAll();
    if (!done) result.error = "no SA answer in time";
  }
  return result;
}

// ---- Through the daemon (QUERY_SA), as upstream's -v.

VerifyResult DaemonPathVerifier::Verify(const PathKey& key) {
  VerifyResult result;
  ibv_path_record query;
  memset(&query, 0, sizeof(query));
  if (key.by_lid) {
    query.slid = ToBe16(key.slid);
    query.dlid = ToBe16(key.dlid);
  } else {
    query.sgid = key.sgid;
    query.dgid = key.dgid;
  }
  query.pkey = ToBe16(key.pkey);
  query.reversible_numpath = IBV_PATH_RECORD_REVERSIBLE | 1;
  acm::EpAddr entry;
  entry.flags = acm::kFlagQuerySa;
  entry.SetPath(query);
  acm::ResolveResponse resp;
  Status st = client_->Resolve({entry}, &resp);
  if (!st.ok()) {
    result.error = "SA query through the daemon: " + st.ToString();
  } else if (resp.hdr.status == acm::kStatusSuccess) {
    result.kind = VerifyResult::kRecord;
    result.path = resp.paths[0].path;
  } else if (resp.hdr.status == acm::kStatusENoData || resp.hdr.status == acm::kStatusEDestAddr) {
    result.kind = VerifyResult::kNoRecord;
  } else {
    result.error =
        std::string("SA query through the daemon: ") + acm::AcmStatusName(resp.hdr.status);
  }
  return result;
}

}  // namespace acme
}  // namespace ssa
