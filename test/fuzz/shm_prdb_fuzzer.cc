// shm_prdb_fuzzer.cc: libFuzzer target for the reader of the shared-memory
// path tables (common/shm_prdb/shm_prdb_check.c and _search.c), the code
// libibssa_path runs on every object it maps. Built with clang by
// test/fuzz/local.mk and run by test/fuzz/run-fuzzers.sh. Seeds:
// test/fuzz/corpus/shm_prdb/, written by gen_shm_prdb_seeds.py.
//
// Each input is an object: validated in a buffer of exactly its size (ASan
// sees any read past it). The checksum would turn away nearly every
// mutation, so the input is validated twice: as it is, and resealed (its
// checksum field recomputed), which takes the fuzzer into the checks of
// bounds, order and indexes. When an object validates, every search is
// run with every key it holds, and each must find its own entry.
#include <cstdint>
#include <cstring>
#include <vector>

#include "common/shm_prdb/shm_prdb_format.h"
#include "test/fuzz/fuzz_check.h"

namespace {

void Search(const uint8_t* o) {
  const ibssa_shm_header* h = reinterpret_cast<const ibssa_shm_header*>(o);
  const ibssa_shm_port* ports = ibssa_shm_ports(o);
  for (uint32_t i = 0; i < h->port_count; ++i) {
    const ibssa_shm_port& port = ports[i];
    const ibssa_shm_path* paths = reinterpret_cast<const ibssa_shm_path*>(o + port.paths_offset);
    for (uint32_t k = 0; k < port.paths_count; ++k)
      FUZZ_CHECK(ibssa_shm_find_lid(o, &port, paths[k].slid, paths[k].dlid) == &paths[k]);
    const ibssa_shm_gid* gids = reinterpret_cast<const ibssa_shm_gid*>(o + port.gids_offset);
    for (uint32_t k = 0; k < port.gids_count; ++k)
      FUZZ_CHECK(ibssa_shm_find_gid(o, &port, gids[k].dgid) == &paths[gids[k].path_index]);
  }
  const ibssa_shm_name* names = reinterpret_cast<const ibssa_shm_name*>(o + h->names_offset);
  for (uint32_t k = 0; k < h->names_count; ++k) {
    char name[64];
    memcpy(name, names[k].name, 64);
    name[63] = '\0';
    // Any name searches safely; one stored with no upper case finds itself.
    const uint8_t* gid = ibssa_shm_find_name(o, name);
    bool lower = name[0] != '\0';
    for (const char* c = name; *c; ++c) lower &= !(*c >= 'A' && *c <= 'Z');
    bool padded = true;
    for (size_t i = strlen(name); i < 64; ++i) padded &= names[k].name[i] == '\0';
    if (lower && padded) FUZZ_CHECK(gid == names[k].gid);
  }
  const ibssa_shm_ip* ips = reinterpret_cast<const ibssa_shm_ip*>(o + h->ips_offset);
  for (uint32_t k = 0; k < h->ips_count; ++k)
    FUZZ_CHECK(ibssa_shm_find_ip(o, ips[k].ip, 16) == ips[k].gid);
  const ibssa_shm_src* srcs = reinterpret_cast<const ibssa_shm_src*>(o + h->srcs_offset);
  for (uint32_t k = 0; k < h->srcs_count; ++k)
    FUZZ_CHECK(ibssa_shm_find_src(o, srcs[k].type, srcs[k].addr, sizeof(srcs[k].addr)) != nullptr);
}

void Check(std::vector<uint8_t>* v) {
  char why[160];
  // A std::vector's data is suitably aligned for the header's fields.
  if (ibssa_shm_validate(v->data(), v->size(), why, sizeof(why)) == 0) {
    Search(v->data());
  } else {
    FUZZ_CHECK(why[0] != '\0');
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint8_t> v(data, data + size);
  Check(&v);
  if (size >= sizeof(ibssa_shm_header)) {
    uint32_t crc = ibssa_shm_checksum(v.data(), v.size());
    memcpy(&v[offsetof(ibssa_shm_header, checksum)], &crc, 4);
    // total_size too, or nearly every resealed input stops at the size check.
    uint64_t n = size;
    memcpy(&v[offsetof(ibssa_shm_header, total_size)], &n, 8);
    crc = ibssa_shm_checksum(v.data(), v.size());
    memcpy(&v[offsetof(ibssa_shm_header, checksum)], &crc, 4);
    Check(&v);
  }
  return 0;
}
