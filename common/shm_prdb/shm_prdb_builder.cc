// shm_prdb_builder.cc: see shm_prdb_builder.h.
#include "common/shm_prdb/shm_prdb_builder.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>

namespace ssa {
namespace shm_prdb {

namespace {

size_t Align8(size_t n) { return (n + 7) & ~size_t{7}; }

uint32_t LidKey(const ibssa_shm_path& p) { return uint32_t{p.slid} << 16 | p.dlid; }

template <class T>
void Put(std::string* out, size_t at, const T* items, size_t count) {
  if (count) memcpy(&(*out)[at], items, count * sizeof(T));
}

// Sorted by the first `key` bytes, the last added of equal keys kept.
template <class T>
std::vector<T> SortedUnique(const std::vector<T>& in, size_t key) {
  std::vector<T> v(in.rbegin(), in.rend());
  std::stable_sort(v.begin(), v.end(),
                   [key](const T& a, const T& b) { return memcmp(&a, &b, key) < 0; });
  v.erase(std::unique(v.begin(), v.end(),
                      [key](const T& a, const T& b) { return memcmp(&a, &b, key) == 0; }),
          v.end());
  return v;
}

}  // namespace

void TableBuilder::AddName(const std::string& name, const uint8_t gid[16]) {
  size_t n = strnlen(name.c_str(), name.size());
  if (n == 0 || n > 63) return;
  ibssa_shm_name e{};
  for (size_t i = 0; i < n; ++i)
    e.name[i] = static_cast<char>(tolower(static_cast<unsigned char>(name[i])));
  memcpy(e.gid, gid, 16);
  names_.push_back(e);
}

void TableBuilder::AddIp(const uint8_t* ip, size_t len, const uint8_t gid[16]) {
  ibssa_shm_ip e{};
  if (len == 4) {
    e.ip[10] = e.ip[11] = 0xff;
    memcpy(e.ip + 12, ip, 4);
  } else if (len == 16) {
    memcpy(e.ip, ip, 16);
  } else {
    return;
  }
  memcpy(e.gid, gid, 16);
  ips_.push_back(e);
}

void TableBuilder::AddSource(uint16_t type, const uint8_t* addr, size_t len, uint16_t port_index,
                             uint16_t pkey) {
  ibssa_shm_src s{};
  s.type = type;
  s.port_index = port_index;
  s.pkey = pkey;
  memcpy(s.addr, addr, std::min(len, sizeof(s.addr)));
  srcs_.push_back(s);
}

std::string TableBuilder::Build(const Publisher& who) const {
  std::vector<ibssa_shm_name> names = SortedUnique(names_, sizeof(ibssa_shm_name::name));
  std::vector<ibssa_shm_ip> ips = SortedUnique(ips_, sizeof(ibssa_shm_ip::ip));
  size_t nports = std::min<size_t>(ports_.size(), IBSSA_SHM_MAX_PORTS);

  // Each port's paths sorted, and its GID answers turned into indexes.
  std::vector<std::vector<ibssa_shm_path>> paths(nports);
  std::vector<std::vector<ibssa_shm_gid>> gids(nports);
  for (size_t i = 0; i < nports; ++i) {
    paths[i] = ports_[i].paths;
    std::stable_sort(
        paths[i].begin(), paths[i].end(),
        [](const ibssa_shm_path& a, const ibssa_shm_path& b) { return LidKey(a) < LidKey(b); });
    paths[i].erase(std::unique(paths[i].begin(), paths[i].end(),
                               [](const ibssa_shm_path& a, const ibssa_shm_path& b) {
                                 return LidKey(a) == LidKey(b);
                               }),
                   paths[i].end());
    std::map<std::array<uint8_t, 16>, uint32_t> by_gid;
    for (const auto& ga : ports_[i].gid_answers) {
      ibssa_shm_path key{};
      key.slid = static_cast<uint16_t>(ga.second >> 16);
      key.dlid = static_cast<uint16_t>(ga.second);
      auto it = std::lower_bound(
          paths[i].begin(), paths[i].end(), key,
          [](const ibssa_shm_path& a, const ibssa_shm_path& b) { return LidKey(a) < LidKey(b); });
      if (it == paths[i].end() || LidKey(*it) != ga.second) continue;  // not served
      by_gid[ga.first] = static_cast<uint32_t>(it - paths[i].begin());
    }
    for (const auto& kv : by_gid) {
      ibssa_shm_gid g{};
      memcpy(g.dgid, kv.first.data(), 16);
      g.path_index = kv.second;
      gids[i].push_back(g);
    }
  }

  // Layout: header, ports, sources, names, IPs, then each port's tables.
  size_t at = sizeof(ibssa_shm_header);
  ibssa_shm_header h{};
  memcpy(h.magic, IBSSA_SHM_MAGIC, IBSSA_SHM_MAGIC_LEN);
  h.version = IBSSA_SHM_VERSION;
  h.header_size = sizeof(h);
  h.port_count = static_cast<uint32_t>(nports);
  h.serial = who.serial;
  h.daemon_pid = who.pid;
  h.daemon_start = who.start;
  h.flags = flags_;
  h.addr_epoch = addr_epoch_;
  h.ports_offset = at;
  at = Align8(at + nports * sizeof(ibssa_shm_port));
  h.srcs_offset = at;
  h.srcs_count = static_cast<uint32_t>(srcs_.size());
  h.default_src = default_src_ < srcs_.size() ? default_src_ : IBSSA_SHM_NO_INDEX;
  at = Align8(at + srcs_.size() * sizeof(ibssa_shm_src));
  h.names_offset = at;
  h.names_count = static_cast<uint32_t>(names.size());
  at = Align8(at + names.size() * sizeof(ibssa_shm_name));
  h.ips_offset = at;
  h.ips_count = static_cast<uint32_t>(ips.size());
  at = Align8(at + ips.size() * sizeof(ibssa_shm_ip));
  std::vector<ibssa_shm_port> ports(nports);
  for (size_t i = 0; i < nports; ++i) {
    const PortTables& in = ports_[i];
    ibssa_shm_port& p = ports[i];
    memcpy(p.gid, in.gid.data(), 16);
    p.base_lid = in.base_lid;
    p.lmc = in.lmc;
    p.epoch = in.epoch;
    p.pkey_count = static_cast<uint8_t>(std::min<size_t>(in.pkeys.size(), IBSSA_SHM_MAX_PKEYS));
    std::copy(in.pkeys.begin(), in.pkeys.begin() + p.pkey_count, p.pkeys);
    p.paths_offset = at;
    p.paths_count = static_cast<uint32_t>(paths[i].size());
    at = Align8(at + paths[i].size() * sizeof(ibssa_shm_path));
    p.gids_offset = at;
    p.gids_count = static_cast<uint32_t>(gids[i].size());
    at = Align8(at + gids[i].size() * sizeof(ibssa_shm_gid));
  }
  h.total_size = at;

  std::string out(at, '\0');
  Put(&out, h.ports_offset, ports.data(), ports.size());
  Put(&out, h.srcs_offset, srcs_.data(), srcs_.size());
  Put(&out, h.names_offset, names.data(), names.size());
  Put(&out, h.ips_offset, ips.data(), ips.size());
  for (size_t i = 0; i < nports; ++i) {
    Put(&out, ports[i].paths_offset, paths[i].data(), paths[i].size());
    Put(&out, ports[i].gids_offset, gids[i].data(), gids[i].size());
  }
  Put(&out, 0, &h, 1);
  uint32_t crc = ibssa_shm_checksum(out.data(), out.size());
  memcpy(&out[offsetof(ibssa_shm_header, checksum)], &crc, sizeof(crc));
  return out;
}

}  // namespace shm_prdb
}  // namespace ssa
