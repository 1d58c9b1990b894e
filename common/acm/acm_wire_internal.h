// acm_wire_internal.h: byte-level helpers shared by the acm_wire*.cc files.
// Private to them: nothing else includes this.
//
// All loads and stores go through memcpy or explicit shifts (the big-endian
// ones are common/base/big_endian.h's), so no buffer is ever read through a
// cast pointer and alignment never matters.
#ifndef IBACM_SSA_COMMON_ACM_ACM_WIRE_INTERNAL_H
#define IBACM_SSA_COMMON_ACM_ACM_WIRE_INTERNAL_H

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common/acm/acm_wire.h"
#include "common/base/big_endian.h"
#include "common/base/text_util.h"

namespace ssa {
namespace acm {
namespace internal {

// Host order: what the stock client writes for resolve lengths and for
// EpAddr flags/type (it fills a struct and sends its memory).
inline uint16_t LoadHost16(const uint8_t* p) {
  uint16_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
inline uint32_t LoadHost32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
inline void StoreHost16(uint8_t* p, uint16_t v) { std::memcpy(p, &v, sizeof(v)); }
inline void StoreHost32(uint8_t* p, uint32_t v) { std::memcpy(p, &v, sizeof(v)); }

// Bytes up to the first NUL, at most `max` of them.
inline std::string TextField(const uint8_t* p, size_t max) {
  size_t n = 0;
  while (n < max && p[n] != 0) ++n;
  return std::string(reinterpret_cast<const char*>(p), n);
}

// Copies at most max-1 bytes of `text` so the field stays NUL-terminated;
// the rest of the field must already be zero.
inline void PutTextField(uint8_t* p, size_t max, const std::string& text) {
  size_t n = text.size() < max ? text.size() : max - 1;
  std::memcpy(p, text.data(), n);
}

// A zeroed message buffer of `length` bytes starting with `hdr` (whose
// length field is set to `length`).
inline std::vector<uint8_t> NewMessage(MsgHeader hdr, size_t length) {
  std::vector<uint8_t> msg(length, 0);
  hdr.length = static_cast<uint16_t>(length);
  hdr.Encode(msg.data());
  return msg;
}

// The reply header for `request`: same opcode and tid, kOpAck set, data[]
// zero (upstream clears it in every reply), always our protocol version.
inline MsgHeader ReplyHeader(const MsgHeader& request, uint8_t status) {
  MsgHeader h;
  h.opcode = static_cast<uint8_t>(request.opcode | kOpAck);
  h.status = status;
  h.tid = request.tid;
  return h;
}

}  // namespace internal
}  // namespace acm
}  // namespace ssa

#endif
