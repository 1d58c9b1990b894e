// crc32_clmul.h: the CRC32 of smdb_format.h folded 64 bytes a step with
// carry-less multiplication (x86-64 PCLMULQDQ), for the long runs: every
// database byte is CRC'd several times on its way down the tree (the
// table CRCs, the digest, each data frame at both ends), and slicing-by-8
// runs about ten times slower than the folding. Crc32 calls it when the CPU
// has the instruction and falls back to the tables everywhere else.
//
// The method: Intel's "Fast CRC Computation for Generic Polynomials Using
// PCLMULQDQ Instruction" (2009), bit-reflected, with the folding and
// Barrett constants for the polynomial 0x04C11DB7.
#ifndef IBACM_SSA_COMMON_SMDB_CRC32_CLMUL_H
#define IBACM_SSA_COMMON_SMDB_CRC32_CLMUL_H

#include <cstddef>
#include <cstdint>

namespace ssa {
namespace smdb {
namespace internal {

// Whether Crc32ClmulFold may run here (the CPU has PCLMULQDQ).
bool HaveCrc32Clmul();
// The CRC register (the raw, bit-reflected register: no initial value or
// final XOR applied) after `len` more bytes; `len` is a multiple of 16 and
// at least 64.
uint32_t Crc32ClmulFold(uint32_t reg, const uint8_t* data, size_t len);

}  // namespace internal
}  // namespace smdb
}  // namespace ssa

#endif
