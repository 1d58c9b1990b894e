// shm_path_fixture.h: what the path-table tests share: a small table
// object built with the provider's builder (shm_prdb_builder.h), published
// under the name a daemon with a socket in a temporary directory would use.
#ifndef IBACM_SSA_TEST_UNIT_SHM_PATH_FIXTURE_H
#define IBACM_SSA_TEST_UNIT_SHM_PATH_FIXTURE_H

#include <infiniband/sa.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "common/base/big_endian.h"
#include "common/shm_prdb/shm_prdb_builder.h"

namespace shm_test {

// Port GID fe80::2:0:0:<base_lid>, destination GIDs fe80::1:0:0:<dlid>.
inline std::array<uint8_t, 16> Gid(uint16_t hi, uint16_t lid) {
  std::array<uint8_t, 16> g{};
  g[0] = 0xfe;
  g[1] = 0x80;
  g[9] = static_cast<uint8_t>(hi);
  g[14] = static_cast<uint8_t>(lid >> 8);
  g[15] = static_cast<uint8_t>(lid);
  return g;
}

// The record (base_lid -> dlid): its flow label carries `mark` (readers
// check that it matches the epoch they were told), SL 2.
inline ibssa_shm_path Path(uint16_t slid, uint16_t dlid, uint32_t mark, uint8_t span = 1,
                           uint16_t pkey = 0xffff) {
  ibssa_shm_path p{};
  p.slid = slid;
  p.dlid = dlid;
  p.pkey = pkey;
  p.sl_span = span;
  ibv_path_record r{};
  r.slid = ssa::ToBe16(slid);
  r.dlid = ssa::ToBe16(dlid);
  std::array<uint8_t, 16> d = Gid(1, dlid), s = Gid(2, slid);
  memcpy(r.dgid.raw, d.data(), 16);
  memcpy(r.sgid.raw, s.data(), 16);
  r.flowlabel_hoplimit = ssa::ToBe32((mark & 0xfffff) << 8);
  r.qosclass_sl = ssa::ToBe16(2);
  r.reversible_numpath = 0x80;
  memcpy(p.path, &r, sizeof(p.path));
  return p;
}

// One port (LID 1, P_Keys 0xffff and 0x8001) with records to LIDs 2..n+1
// (LID 5: the SA draws among 4 SLs; LID 6: another partition), names
// "hca<lid>" and IPs 10.0.0.<lid>, a name source "self".
inline std::string Object(uint64_t epoch, int pid, uint64_t start, uint16_t n = 20) {
  ssa::shm_prdb::TableBuilder b;
  ssa::shm_prdb::PortTables t;
  t.gid = Gid(2, 1);
  t.base_lid = 1;
  t.epoch = epoch;
  t.pkeys = {0xffff, 0x8001};
  for (uint16_t d = 2; d < n + 2; ++d) {
    uint8_t span = d == 5 ? 4 : 1;
    uint16_t pkey = d == 6 ? 0x8002 : 0xffff;
    t.paths.push_back(Path(1, d, static_cast<uint32_t>(epoch), span, pkey));
    t.gid_answers.emplace_back(Gid(1, d), uint32_t{1} << 16 | d);
    uint8_t ip[4] = {10, 0, 0, static_cast<uint8_t>(d)};
    b.AddIp(ip, 4, Gid(1, d).data());
    b.AddName("HCA" + std::to_string(d), Gid(1, d).data());
  }
  b.AddPort(t);
  const char self[] = "self";
  b.AddSource(1, reinterpret_cast<const uint8_t*>(self), 4, 0, 0xffff);
  b.set_default_source(0);
  ssa::shm_prdb::Publisher who;
  who.pid = pid;
  who.start = start;
  who.serial = epoch;
  return b.Build(who);
}

// A socket bound at `path` (the daemon's, whose owner vouches for its
// tables), for tests of the tables alone; -1 when it cannot be bound. The
// caller closes it.
inline int BindSocket(const std::string& path) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un sa{};
  sa.sun_family = AF_UNIX;
  snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path.c_str());
  if (fd >= 0 && bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

}  // namespace shm_test

#endif
