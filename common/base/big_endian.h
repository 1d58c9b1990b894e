// big_endian.h: reading and writing big-endian (network order) integers in
// byte buffers, as every wire and file format in the project lays them out
// (MADs, SA records, the acmp protocol, the simulated datagrams, SMDB
// files). Pure inline functions; callers guarantee the bytes exist.
#ifndef IBACM_SSA_COMMON_BASE_BIG_ENDIAN_H
#define IBACM_SSA_COMMON_BASE_BIG_ENDIAN_H

#include <cstdint>

namespace ssa {

inline void PutBe16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v >> 8);
  p[1] = static_cast<uint8_t>(v);
}
inline void PutBe32(uint8_t* p, uint32_t v) {
  PutBe16(p, static_cast<uint16_t>(v >> 16));
  PutBe16(p + 2, static_cast<uint16_t>(v));
}
inline void PutBe64(uint8_t* p, uint64_t v) {
  PutBe32(p, static_cast<uint32_t>(v >> 32));
  PutBe32(p + 4, static_cast<uint32_t>(v));
}
inline uint16_t GetBe16(const uint8_t* p) {
  return static_cast<uint16_t>((uint32_t{p[0]} << 8) | p[1]);
}
inline uint32_t GetBe32(const uint8_t* p) { return (uint32_t{GetBe16(p)} << 16) | GetBe16(p + 2); }
inline uint64_t GetBe64(const uint8_t* p) { return (uint64_t{GetBe32(p)} << 32) | GetBe32(p + 4); }

}  // namespace ssa

#endif
