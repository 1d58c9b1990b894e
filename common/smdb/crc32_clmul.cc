// crc32_clmul.cc: see crc32_clmul.h.
#include "common/smdb/crc32_clmul.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SSA_CRC32_CLMUL 1
#endif

namespace ssa {
namespace smdb {
namespace internal {

#ifdef SSA_CRC32_CLMUL

bool HaveCrc32Clmul() {
  static const bool have = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
  return have;
}

namespace {

// x^k mod P for the reflected polynomial, as the folds need them: a
// 128-bit lane times (x^(512+32), x^(512-32)) moves it 64 bytes on, times
// (x^(128+32), x^(128-32)) 16 bytes on; then 128 -> 64 -> 32 bits and
// Barrett's reduction with P and floor(x^64 / P).
constexpr uint64_t kFold64Lo = 0x154442bd4, kFold64Hi = 0x1c6e41596;
constexpr uint64_t kFold16Lo = 0x1751997d0, kFold16Hi = 0x0ccaa009e;
constexpr uint64_t kFold8 = 0x163cd6124;
constexpr uint64_t kPoly = 0x1db710641, kMu = 0x1f7011641;

__attribute__((target("pclmul,sse4.1"))) inline __m128i Fold(__m128i acc, __m128i k, __m128i next) {
  __m128i lo = _mm_clmulepi64_si128(acc, k, 0x00);
  __m128i hi = _mm_clmulepi64_si128(acc, k, 0x11);
  return _mm_xor_si128(_mm_xor_si128(lo, hi), next);
}

__attribute__((target("pclmul,sse4.1"))) inline __m128i Load(const uint8_t* p) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}

}  // namespace

__attribute__((target("pclmul,sse4.1"))) uint32_t Crc32ClmulFold(uint32_t reg, const uint8_t* data,
                                                                 size_t len) {
  // Four lanes of 16 bytes; the register enters through the first one.
  __m128i x0 = _mm_xor_si128(Load(data), _mm_cvtsi32_si128(static_cast<int>(reg)));
  __m128i x1 = Load(data + 16), x2 = Load(data + 32), x3 = Load(data + 48);
  data += 64;
  len -= 64;
  const __m128i k64 =
      _mm_set_epi64x(static_cast<long long>(kFold64Hi), static_cast<long long>(kFold64Lo));
  while (len >= 64) {
    x0 = Fold(x0, k64, Load(data));
    x1 = Fold(x1, k64, Load(data + 16));
    x2 = Fold(x2, k64, Load(data + 32));
    x3 = Fold(x3, k64, Load(data + 48));
    data += 64;
    len -= 64;
  }
  // The four lanes into one, then the remaining 16-byte blocks.
  const __m128i k16 =
      _mm_set_epi64x(static_cast<long long>(kFold16Hi), static_cast<long long>(kFold16Lo));
  x0 = Fold(x0, k16, x1);
  x0 = Fold(x0, k16, x2);
  x0 = Fold(x0, k16, x3);
  while (len >= 16) {
    x0 = Fold(x0, k16, Load(data));
    data += 16;
    len -= 16;
  }
  // 128 bits to 64 (this also appends the 32 zero bits the reduction
  // needs), then to 32, then Barrett's reduction.
  const __m128i mask32 = _mm_set_epi32(0, 0, 0, -1);
  __m128i t = _mm_clmulepi64_si128(k16, x0, 0x01);  // low half times x^(128-32)
  x0 = _mm_xor_si128(_mm_srli_si128(x0, 8), t);
  t = _mm_srli_si128(x0, 4);
  x0 = _mm_clmulepi64_si128(_mm_and_si128(x0, mask32),
                            _mm_set_epi64x(0, static_cast<long long>(kFold8)), 0x00);
  x0 = _mm_xor_si128(x0, t);
  const __m128i pmu = _mm_set_epi64x(static_cast<long long>(kMu), static_cast<long long>(kPoly));
  t = _mm_clmulepi64_si128(_mm_and_si128(x0, mask32), pmu, 0x10);
  t = _mm_clmulepi64_si128(_mm_and_si128(t, mask32), pmu, 0x00);
  x0 = _mm_xor_si128(x0, t);
  return static_cast<uint32_t>(_mm_extract_epi32(x0, 1));
}

#else

bool HaveCrc32Clmul() { return false; }
uint32_t Crc32ClmulFold(uint32_t reg, const uint8_t*, size_t) { return reg; }

#endif

}  // namespace internal
}  // namespace smdb
}  // namespace ssa
