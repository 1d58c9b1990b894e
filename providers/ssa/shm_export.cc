// shm_export.cc: see shm_export.h.
#include "providers/ssa/shm_export.h"

#include <unistd.h>

#include <cstring>

#include "common/shm_prdb/shm_prdb_builder.h"
#include "common/smdb/path_engine.h"

namespace ssa {
namespace ssa_provider {

namespace {

bool IsIp(uint16_t type) { return type == SSA_ADDR_IP || type == SSA_ADDR_IP6; }

size_t AddrLen(uint16_t type) {
  return type == SSA_ADDR_IP ? 4 : type == SSA_ADDR_IP6 ? 16 : sizeof(ssa_address::data);
}

// The port's records as the provider serves them (view_answer.h).
shm_prdb::PortTables Tables(const ExportPort& in) {
  shm_prdb::PortTables t;
  t.gid = in.gid;
  t.base_lid = in.lid;
  t.lmc = in.lmc;
  t.pkeys = in.pkeys;
  const PrdbView* v = in.view.get();
  if (!v || v->base_lid() != in.lid || v->lmc() != in.lmc) return t;
  t.epoch = v->epoch();
  for (const smdb::PrdbPath& p : v->prdb()->paths.records) {
    if (!(p.flags & smdb::kPathReversible) || (p.flags & smdb::kPathInexact)) continue;
    // A prefix row (smdb/prefix_rows.h) is a choice of router, not a path:
    // DGIDs of other subnets are not in the tables, their readers ask
    // ibacm, which answers them from the PRDB.
    if (smdb::IsPrefixRow(p)) continue;
    ibssa_shm_path r{};
    r.slid = p.slid;
    r.dlid = p.dlid;
    r.pkey = p.pkey;
    r.sl_span = static_cast<uint8_t>(smdb::PathSlSpan(p.flags));
    ibv_path_record rec;
    smdb::FromPrdbPath(p, &rec);
    memcpy(r.path, &rec, sizeof(r.path));
    t.paths.push_back(r);
  }
  // The record ByGid picks, even when it is not served: then the GID has
  // no entry (the builder drops answers naming no served record), as the
  // provider does not look further either.
  v->ForEachDgid([&](const uint8_t* dgid) {
    const smdb::PrdbPath* p = v->ByGid(dgid);
    if (!p) return;
    std::array<uint8_t, 16> g;
    memcpy(g.data(), dgid, 16);
    bool served = (p->flags & smdb::kPathReversible) && !(p->flags & smdb::kPathInexact);
    if (served) t.gid_answers.emplace_back(g, uint32_t{p->slid} << 16 | p->dlid);
  });
  return t;
}

}  // namespace

std::shared_ptr<const ExportAddresses> ResolveAddresses(const smdb::AddrDb& db,
                                                        const OwnAddressFn& own) {
  auto out = std::make_shared<ExportAddresses>();
  out->epoch = db.global_epoch;
  std::array<uint8_t, 16> gid;
  out->names.reserve(db.names.records.size());
  for (const smdb::AddrName& n : db.names.records) {
    ssa_address a{};
    memcpy(a.data, n.name.data(), std::min(sizeof(a.data), n.name.size()));
    bool mine = own && own(SSA_ADDR_NAME, a.data, sizeof(a.data), gid.data());
    out->names.emplace_back(std::string(n.name.data(), strnlen(n.name.data(), n.name.size())),
                            mine ? gid : n.gid);
  }
  static const uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  out->ips.reserve(db.ips.records.size());
  for (const smdb::AddrIp& ip : db.ips.records) {
    bool v4 = memcmp(ip.ip.data(), kMapped, 12) == 0;
    ssa_address a{};
    memcpy(a.data, ip.ip.data() + (v4 ? 12 : 0), v4 ? 4 : 16);
    uint16_t type = v4 ? SSA_ADDR_IP : SSA_ADDR_IP6;
    bool mine = own && own(type, a.data, sizeof(a.data), gid.data());
    out->ips.emplace_back(ip.ip, mine ? gid : ip.gid);
  }
  return out;
}

uint64_t ShmExport::generation() {
  MutexLock lock(&mu_);
  return generation_;
}

ShmExport::Stats ShmExport::stats() {
  MutexLock lock(&mu_);
  Stats s = stats_;
  s.published = publisher_.published();
  s.retired = publisher_.retired();
  return s;
}

void ShmExport::Sweep() {
  MutexLock lock(&mu_);
  publisher_.Sweep(shm_prdb::TablePublisher::Clock::now());
}

void ShmExport::Invalidate() {
  MutexLock lock(&mu_);
  ++generation_;
  publisher_.Withdraw();
}

Status ShmExport::Publish(const std::vector<ExportPort>& ports, const ExportAddresses* addr,
                          uint64_t generation) {
  shm_prdb::TableBuilder b;
  bool any_paths = false;
  uint32_t flags = 0;
  bool default_known = false;
  for (size_t i = 0; i < ports.size() && i < IBSSA_SHM_MAX_PORTS; ++i) {
    shm_prdb::PortTables t = Tables(ports[i]);
    any_paths |= !t.paths.empty();
    b.AddPort(std::move(t));
    for (const ExportPort::Address& a : ports[i].addresses) {
      if (IsIp(a.addr.type)) flags |= IBSSA_SHM_F_IP_SOURCES;
      bool usable = a.addr.type == SSA_ADDR_NAME || IsIp(a.addr.type);
      // The core's choice when a request names no source: the first
      // address of the first port (FirstAddress), whatever its type; one a
      // reader cannot name leaves the choice to the socket.
      if (!default_known && usable) b.set_default_source(static_cast<uint32_t>(b.sources()));
      default_known = true;
      if (usable)
        b.AddSource(a.addr.type, a.addr.data, AddrLen(a.addr.type), static_cast<uint16_t>(i),
                    a.pkey);
    }
  }
  if (!any_paths) {
    // Nothing exact to serve: no tables, the library asks the socket.
    MutexLock lock(&mu_);
    if (generation == generation_) publisher_.Withdraw();
    return Status::Ok();
  }
  b.set_flags(flags);
  if (addr) {
    b.set_addr_epoch(addr->epoch);
    for (const auto& n : addr->names) b.AddName(n.first, n.second.data());
    for (const auto& ip : addr->ips) b.AddIp(ip.first.data(), 16, ip.second.data());
  }
  shm_prdb::Publisher who;
  who.pid = getpid();
  if (!start_) start_ = ibssa_shm_process_start(who.pid);
  who.start = start_;
  who.serial = ++serial_;
  std::string object = b.Build(who);
  MutexLock lock(&mu_);
  if (generation != generation_) return Status::Ok();  // invalidated: the next one follows
  Status st = publisher_.Publish(object);
  ++(st.ok() ? stats_.publications : stats_.failures);
  return st;
}

}  // namespace ssa_provider
}  // namespace ssa
