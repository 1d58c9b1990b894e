// sa_reply.h: the SA's answer to a PathRecord query, as the tests and
// benchmarks that play the SA for a provider (sa_provider_fake_core.h,
// bench_fallback.cc) hand it back: a GetResp MAD with one record, and the
// record fields a typical fabric's SA fills in. Header only (it needs the
// MAD library, which only its users link).
#ifndef IBACM_SSA_TEST_SUPPORT_SA_REPLY_H
#define IBACM_SSA_TEST_SUPPORT_SA_REPLY_H

#include <cstdint>

#include "common/mad/mad_wire.h"

namespace ssa {
namespace test {

// Reversible, MTU 4096, 10 Gb/s, packet lifetime 18, all "exactly".
inline void TypicalPathFields(mad::PathRecord* r) {
  r->reversible = true;
  r->mtu_selector = 2;
  r->mtu = 4;
  r->rate_selector = 2;
  r->rate = 3;
  r->packet_life_time_selector = 2;
  r->packet_life_time = 18;
}

// `m` (mad::kMadSize bytes, zeroed) becomes the SA's GetResp with status
// `sa_status`, carrying `rec` when the status is 0.
inline void EncodeSaPathReply(const mad::PathRecord& rec, uint16_t sa_status, uint8_t* m) {
  mad::MadHeader h;
  h.mgmt_class = mad::kClassSubnAdm;
  h.class_version = mad::kSaClassVersion;
  h.method = mad::kMethodGetResp;
  h.attr_id = mad::kAttrPathRecord;
  h.status = sa_status;
  mad::EncodeMadHeader(h, m);
  mad::SaHeader sa;
  sa.attr_offset = 8;
  mad::EncodeSaHeader(sa, m);
  if (!sa_status) mad::EncodePathRecord(rec, m + mad::kSaDataOffset);
}

}  // namespace test
}  // namespace ssa

#endif
