// acmp_msg_fuzzer.cc: libFuzzer target for the acmp provider's decoder of
// ACM resolve datagrams (providers/acmp/acmp_wire.cc): what any node of the
// fabric, or anything else that can reach the Q_Key, may send. Built with
// clang by test/fuzz/local.mk and run by test/fuzz/run-fuzzers.sh. Seeds:
// test/fuzz/corpus/acmp_msg/, written by gen_acmp_msg_seeds.py.
//
// Each input must be rejected with a reason, or decode to a message that
// encodes back to 256 bytes which decode to the same message again.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "providers/acmp/acmp_wire.h"
#include "test/fuzz/fuzz_check.h"

using namespace ssa::acmp;

namespace {

bool SameMessage(const AcmMessage& a, const AcmMessage& b) {
  if (a.method != b.method || a.status != b.status || a.tid != b.tid ||
      a.resp_resources != b.resp_resources || a.init_depth != b.init_depth ||
      a.gid_count != b.gid_count)
    return false;
  for (const auto* pair : {&a.dest, &a.src}) {
    const AcmAddress& other = pair == &a.dest ? b.dest : b.src;
    if (pair->type != other.type || pair->length != other.length ||
        memcmp(pair->data, other.data, kAcmAddressSize) != 0)
      return false;
  }
  for (size_t i = 0; i < a.gid_count && i < kAcmMaxGids; ++i)
    if (memcmp(a.gids[i].raw, b.gids[i].raw, 16) != 0) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  AcmMessage msg;
  DecodeError why = DecodeError::kNone;
  ssa::Status st = DecodeAcmMessage(data, size, &msg, &why);
  if (!st.ok()) {
    FUZZ_CHECK(why != DecodeError::kNone && why != DecodeError::kCount);
    FUZZ_CHECK(!st.message().empty());
    FUZZ_CHECK(DecodeErrorName(why) != nullptr);
    return 0;
  }
  FUZZ_CHECK(why == DecodeError::kNone);
  uint8_t out[kAcmMessageSize];
  EncodeAcmMessage(msg, out);
  AcmMessage again;
  st = DecodeAcmMessage(out, sizeof(out), &again, &why);
  FUZZ_CHECK(st.ok());
  FUZZ_CHECK(SameMessage(msg, again));
  return 0;
}
