// big_endian.h: big-endian (network order) integers, as every wire and file
// format in the project lays them out (MADs, SA records, the acmp protocol,
// the simulated datagrams, SMDB files, socket addresses): read from and
// written to byte buffers (GetBe*, PutBe*), or converted in place for the
// fields of structures that hold them in network order (ToBe*, FromBe*,
// e.g. ibv_path_record). The C++ code's one vocabulary for byte order; C
// files use <endian.h> directly. Pure inline functions; callers guarantee
// the bytes exist.
#ifndef IBACM_SSA_COMMON_BASE_BIG_ENDIAN_H
#define IBACM_SSA_COMMON_BASE_BIG_ENDIAN_H

#include <endian.h>

#include <cstdint>
#include <cstring>

namespace ssa {

// This host's byte order, for what mirrors another program's host order.
constexpr bool kHostBigEndian = __BYTE_ORDER == __BIG_ENDIAN;

// One load or store and a byte swap each (memcpy: no alignment needed).
// Byte-by-byte shifts cost a consumer's decode of its PRDB (10,598 records
// at 10,000 HCAs) a fifth more instructions (callgrind, bench_tree --pieces).
inline void PutBe16(uint8_t* p, uint16_t v) {
  v = htobe16(v);
  std::memcpy(p, &v, sizeof(v));
}
inline void PutBe32(uint8_t* p, uint32_t v) {
  v = htobe32(v);
  std::memcpy(p, &v, sizeof(v));
}
inline void PutBe64(uint8_t* p, uint64_t v) {
  v = htobe64(v);
  std::memcpy(p, &v, sizeof(v));
}
// A host-order value as the network-order value a structure field holds,
// and back.
inline uint16_t ToBe16(uint16_t v) { return htobe16(v); }
inline uint32_t ToBe32(uint32_t v) { return htobe32(v); }
inline uint64_t ToBe64(uint64_t v) { return htobe64(v); }
inline uint16_t FromBe16(uint16_t v) { return be16toh(v); }
inline uint32_t FromBe32(uint32_t v) { return be32toh(v); }
inline uint64_t FromBe64(uint64_t v) { return be64toh(v); }

inline uint16_t GetBe16(const uint8_t* p) {
  uint16_t v;
  std::memcpy(&v, p, sizeof(v));
  return be16toh(v);
}
inline uint32_t GetBe32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof(v));
  return be32toh(v);
}
inline uint64_t GetBe64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof(v));
  return be64toh(v);
}

}  // namespace ssa

#endif
