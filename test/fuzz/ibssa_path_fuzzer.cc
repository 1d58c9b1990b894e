// ibssa_path_fuzzer.cc: libFuzzer target for what libibssa_path does with
// input another process controls: the daemon's socket replies
// (path_socket.c) and the table objects it maps (path_tables.c: opening,
// the type, owner and mode checks, mapping, validation; path.c: every
// lookup on what validated). Built with clang by test/fuzz/local.mk and
// run by test/fuzz/run-fuzzers.sh. Seeds: test/fuzz/corpus/ibssa_path/,
// written by gen_ibssa_path_seeds.py.
//
// The first byte picks what the rest is:
//   0: a reply the daemon sends to a resolve request, read by the library
//      from a socket pair whose far end then closes (no wait);
//   1-5: a table object placed at the name the library opens, as a regular
//      file of mode 0644 (1), writable by others (2), a FIFO (3), a
//      directory (4) or a symbolic link to the object (5). A regular
//      object gets the fuzzer's own PID and start time and is resealed
//      (size and checksum), so that most inputs reach the lookups, which
//      run with every key the object holds and some of the input's.
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <ibacm_ssa/path.h>

#include "common/base/big_endian.h"
#include "common/shm_prdb/shm_prdb_format.h"
#include "libibssa_path/path_socket.h"
#include "test/fuzz/fuzz_check.h"

namespace {

// Where a daemon with our socket publishes, and the handle that reads it.
struct Place {
  std::string socket, dir, object;
  ibssa_path* h = nullptr;
};

// One socket path per build directory (the fuzzer runs from there), so
// that each run reuses one name in the tables' directory and removes what
// the last run left.
Place* Setup() {
  static Place* p = [] {
    Place* q = new Place;
    char cwd[4096];
    FUZZ_CHECK(getcwd(cwd, sizeof(cwd)) != nullptr);
    q->socket = std::string(cwd) + "/ibssa-path-fuzzer.sock";
    unlink(q->socket.c_str());
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un sa{};
    sa.sun_family = AF_UNIX;
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", q->socket.c_str());
    FUZZ_CHECK(bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) == 0);
    char dir[128], name[64];
    FUZZ_CHECK(ibssa_shm_dir(geteuid(), dir, sizeof(dir)) == 0);
    FUZZ_CHECK(ibssa_shm_object_name(q->socket.c_str(), name, sizeof(name)) == 0);
    mkdir(dir, 0755);
    q->dir = dir;
    q->object = q->dir + "/" + name;
    ibssa_path_options o{};
    o.size = sizeof(o);
    o.flags = IBSSA_PATH_NO_SOCKET;
    o.check_ms = 3600 * 1000;  // looks only when told
    FUZZ_CHECK(ibssa_path_open(q->socket.c_str(), &o, &q->h) == 0);
    return q;
  }();
  return p;
}

void SocketReply(const uint8_t* data, size_t size) {
  int sv[2];
  FUZZ_CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  // The reply waits in the pair before the request is sent; then EOF.
  size_t n = size < 4096 ? size : 4096;
  if (n) FUZZ_CHECK(write(sv[1], data, n) == static_cast<ssize_t>(n));
  shutdown(sv[1], SHUT_WR);
  path_socket s;
  FUZZ_CHECK(socket_init(&s, "/nonexistent", 50) == 0);
  s.fd = sv[0];
  acm_ep_addr_data e{};
  e.type = ACM_EP_INFO_PATH;
  e.info.path.dlid = ssa::ToBe16(3);
  ibv_path_record out{};
  acm_ep_addr_data src{};
  int rc = socket_resolve(&s, &e, 1, &out, &src);
  FUZZ_CHECK(rc <= 0);
  socket_destroy(&s);
  close(sv[1]);
}

// With the socket off: an answer, no data, or an argument refused (an
// empty name from the object).
bool Expected(int rc) { return rc == 0 || rc == -ENODATA || rc == -EINVAL; }

void Lookups(ibssa_path* h, const uint8_t* o, const uint8_t* extra, size_t extra_len) {
  const ibssa_shm_header* hd = reinterpret_cast<const ibssa_shm_header*>(o);
  const ibssa_shm_port* ports = ibssa_shm_ports(o);
  ibv_path_record p;
  ibssa_path_answer a;
  for (uint32_t i = 0; i < hd->port_count; ++i) {
    const ibssa_shm_path* paths =
        reinterpret_cast<const ibssa_shm_path*>(o + ports[i].paths_offset);
    for (uint32_t k = 0; k < ports[i].paths_count && k < 64; ++k) {
      int rc = ibssa_path_by_lid(h, paths[k].slid, paths[k].dlid, 0, &p, &a);
      FUZZ_CHECK(Expected(rc));
    }
    const ibssa_shm_gid* gids = reinterpret_cast<const ibssa_shm_gid*>(o + ports[i].gids_offset);
    for (uint32_t k = 0; k < ports[i].gids_count && k < 64; ++k) {
      int rc = ibssa_path_by_gid(h, ports[i].gid, gids[k].dgid, 0, &p, &a);
      FUZZ_CHECK(Expected(rc));
    }
  }
  const ibssa_shm_name* names = reinterpret_cast<const ibssa_shm_name*>(o + hd->names_offset);
  for (uint32_t k = 0; k < hd->names_count && k < 64; ++k) {
    int rc = ibssa_path_by_addr(h, IBSSA_PATH_ADDR_NAME, names[k].name, strnlen(names[k].name, 63),
                                nullptr, 0, &p, &a);
    FUZZ_CHECK(Expected(rc));
  }
  const ibssa_shm_ip* ips = reinterpret_cast<const ibssa_shm_ip*>(o + hd->ips_offset);
  for (uint32_t k = 0; k < hd->ips_count && k < 64; ++k) {
    int rc = ibssa_path_by_addr(h, IBSSA_PATH_ADDR_IP6, ips[k].ip, 16, nullptr, 0, &p, &a);
    FUZZ_CHECK(Expected(rc));
  }
  // Keys from the input: any LID pair, GID, name or address, any source.
  if (extra_len >= 36) {
    uint16_t slid, dlid, pkey;
    memcpy(&slid, extra, 2);
    memcpy(&dlid, extra + 2, 2);
    memcpy(&pkey, extra + 4, 2);
    ibssa_path_by_lid(h, slid, dlid, pkey, &p, &a);
    ibssa_path_by_gid(h, extra + 4, extra + 20, pkey, &p, &a);
    ibssa_path_by_addr(h, IBSSA_PATH_ADDR_NAME, extra, 36, extra + 8, 8, &p, &a);
    ibssa_path_by_addr(h, IBSSA_PATH_ADDR_IP, extra, 4, nullptr, 0, &p, &a);
  }
  ibssa_path_epoch(h, 0);
}

// Puts `object` at the name the library opens, as kind `kind` (1-5).
void PutObject(const Place* q, std::vector<uint8_t>* object, int kind) {
  unlink(q->object.c_str());
  rmdir(q->object.c_str());
  unlink((q->object + ".target").c_str());
  if (kind == 3) {
    FUZZ_CHECK(mkfifo(q->object.c_str(), 0644) == 0);
    return;
  }
  if (kind == 4) {
    FUZZ_CHECK(mkdir(q->object.c_str(), 0755) == 0);
    return;
  }
  std::string target = kind == 5 ? q->object + ".target" : q->object;
  std::string tmp = target + ".tmp";
  int fd = open(tmp.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
  FUZZ_CHECK(fd >= 0);
  if (!object->empty())
    FUZZ_CHECK(write(fd, object->data(), object->size()) == static_cast<ssize_t>(object->size()));
  fchmod(fd, kind == 2 ? 0666 : 0644);
  close(fd);
  FUZZ_CHECK(rename(tmp.c_str(), target.c_str()) == 0);
  if (kind == 5) FUZZ_CHECK(symlink(target.c_str(), q->object.c_str()) == 0);
}

void Reseal(std::vector<uint8_t>* v) {
  if (v->size() < sizeof(ibssa_shm_header)) return;
  ibssa_shm_header hd;
  memcpy(&hd, v->data(), sizeof(hd));
  hd.daemon_pid = getpid();
  hd.daemon_start = ibssa_shm_process_start(getpid());
  hd.total_size = v->size();
  hd.retired = 0;
  memcpy(v->data(), &hd, sizeof(hd));
  uint32_t crc = ibssa_shm_checksum(v->data(), v->size());
  memcpy(v->data() + offsetof(ibssa_shm_header, checksum), &crc, 4);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  if (data[0] == 0) {
    SocketReply(data + 1, size - 1);
    return 0;
  }
  const Place* q = Setup();
  const int kind = 1 + (data[0] - 1) % 5;
  std::vector<uint8_t> object(data + 1, data + size);
  if (kind == 1 || kind == 5) Reseal(&object);
  PutObject(q, &object, kind);
  int rc = ibssa_path_refresh(q->h);
  FUZZ_CHECK(rc <= 0);
  char why[320];
  FUZZ_CHECK(ibssa_path_status(q->h, why, sizeof(why)) == rc);
  FUZZ_CHECK(why[0] != '\0');
  if (kind == 2 || kind == 3 || kind == 4 || kind == 5) FUZZ_CHECK(rc != 0);
  if (rc == 0) Lookups(q->h, object.data(), data + 1, size - 1);
  return 0;
}
