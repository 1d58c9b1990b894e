// smdb_format.cc: CRC32 and the header codecs of the SMDB container format
// (layouts in smdb_format.h).
#include "common/smdb/smdb_format.h"

#include <algorithm>
#include <array>
#include <cstdio>

namespace ssa {
namespace smdb {
namespace {

// Slicing-by-8 tables, built at compile time: table[0] is the classic
// byte-at-a-time table, table[k][b] advances table[k-1][b] by one more zero
// byte. Eight bytes per step matter here: the LFT table of a large fabric is
// over 100 MB and every copy of it is CRC'd on each hop of the tree.
using CrcTables = std::array<std::array<uint32_t, 256>, 8>;

constexpr CrcTables MakeCrcTables() {
  CrcTables t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0xEDB88320u : c >> 1;
    t[0][i] = c;
  }
  for (size_t k = 1; k < 8; ++k) {
    for (size_t i = 0; i < 256; ++i) t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xFF];
  }
  return t;
}

constexpr CrcTables kCrcTables = MakeCrcTables();

uint32_t LoadLe32(const uint8_t* p) {
  return uint32_t{p[0]} | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) | (uint32_t{p[3]} << 24);
}

std::string Hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "0x%08x", v);
  return buf;
}

}  // namespace

uint32_t Crc32(const uint8_t* data, size_t len, uint32_t crc) {
  const CrcTables& t = kCrcTables;
  uint32_t c = ~crc;
  while (len >= 8) {
    uint32_t lo = c ^ LoadLe32(data);
    uint32_t hi = LoadLe32(data + 4);
    c = t[7][lo & 0xFF] ^ t[6][(lo >> 8) & 0xFF] ^ t[5][(lo >> 16) & 0xFF] ^ t[4][lo >> 24] ^
        t[3][hi & 0xFF] ^ t[2][(hi >> 8) & 0xFF] ^ t[1][(hi >> 16) & 0xFF] ^ t[0][hi >> 24];
    data += 8;
    len -= 8;
  }
  while (len--) c = (c >> 8) ^ t[0][(c ^ *data++) & 0xFF];
  return ~c;
}

namespace {

// Polynomials modulo the CRC's in its reflected form: bit 31 is x^0.
constexpr uint32_t kCrcPoly = 0xEDB88320u;

uint32_t MulModP(uint32_t a, uint32_t b) {
  uint32_t product = 0;
  for (uint32_t m = 1u << 31; m != 0 && a != 0; m >>= 1) {
    if (a & m) {
      product ^= b;
      a &= ~m;
    }
    b = (b & 1) ? (b >> 1) ^ kCrcPoly : b >> 1;  // b *= x
  }
  return product;
}

// x^(2^k) mod P for k = 0..63.
struct PowersOfX {
  uint32_t p[64];
  PowersOfX() {
    p[0] = 1u << 30;  // x^1
    for (int k = 1; k < 64; ++k) p[k] = MulModP(p[k - 1], p[k - 1]);
  }
};

// x^(8 * bytes) mod P: what appending `bytes` zero bytes multiplies by.
uint32_t ZerosOperator(uint64_t bytes) {
  static const PowersOfX powers;
  uint32_t r = 1u << 31;  // x^0
  for (int k = 3; bytes != 0 && k < 64; ++k, bytes >>= 1)
    if (bytes & 1) r = MulModP(powers.p[k], r);
  return r;
}

}  // namespace

uint32_t Crc32Combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b) {
  return MulModP(ZerosOperator(len_b), crc_a) ^ crc_b;
}

uint32_t Crc32Patch(uint32_t crc, uint64_t total, uint64_t offset, const uint8_t* before,
                    const uint8_t* after, size_t n) {
  // crc(m) ^ crc(m') is the plain CRC register (no initial value, no final
  // XOR) of m ^ m': zeros, the XOR of the changed bytes, then zeros.
  uint8_t x[64];
  uint32_t reg = 0;
  for (size_t done = 0; done < n;) {
    size_t k = std::min(sizeof(x), n - done);
    for (size_t i = 0; i < k; ++i) x[i] = before[done + i] ^ after[done + i];
    reg = ~Crc32(x, k, ~reg);  // ~reg in, ~register out: the raw register
    done += k;
  }
  return crc ^ MulModP(ZerosOperator(total - offset - n), reg);
}

const char* DbTypeName(uint16_t db_type) {
  switch (db_type) {
    case static_cast<uint16_t>(DbType::kSmdb): return "smdb";
    case static_cast<uint16_t>(DbType::kPrdb): return "prdb";
    case static_cast<uint16_t>(DbType::kAddr): return "addr";
    default: return "unknown db type";
  }
}

int DbSchema::IndexOf(uint16_t id) const {
  for (size_t i = 0; i < tables.size(); ++i) {
    if (tables[i].id == id) return static_cast<int>(i);
  }
  return -1;
}

std::string DescribeTable(const DbSchema& schema, uint16_t id) {
  int i = schema.IndexOf(id);
  if (i < 0) return "table id " + std::to_string(id);
  return std::string("table '") + schema.tables[static_cast<size_t>(i)].name + "' (id " +
         std::to_string(id) + ")";
}

bool HeaderCrcMatches(const uint8_t* p, size_t header_size, size_t crc_offset) {
  uint32_t crc = Crc32(p, crc_offset);
  crc = Crc32(p + crc_offset + 4, header_size - crc_offset - 4, crc);
  return crc == GetBe32(p + crc_offset);
}

void SealHeader(uint8_t* p, size_t header_size, size_t crc_offset) {
  uint32_t crc = Crc32(p, crc_offset);
  crc = Crc32(p + crc_offset + 4, header_size - crc_offset - 4, crc);
  PutBe32(p + crc_offset, crc);
}

void EncodeFileHeader(const FileHeader& h, uint8_t* out) {
  PutBe32(out, kDbMagic);
  PutBe16(out + 4, h.major);
  PutBe16(out + 6, h.minor);
  PutBe16(out + 8, h.db_type);
  PutBe16(out + 10, static_cast<uint16_t>(kFileHeaderSize));
  PutBe32(out + 12, h.table_count);
  PutBe64(out + 16, h.global_epoch);
  PutBe32(out + 24, 0);
  SealHeader(out, kFileHeaderSize, 28);
}

void EncodeSectionHeader(const SectionHeader& h, uint8_t* out) {
  PutBe16(out, h.table_id);
  PutBe16(out + 2, static_cast<uint16_t>(kSectionHeaderSize));
  PutBe32(out + 4, h.record_size);
  PutBe32(out + 8, h.record_count);
  PutBe32(out + 12, h.payload_crc);
  PutBe64(out + 16, h.table_epoch);
  PutBe32(out + 24, 0);
  SealHeader(out, kSectionHeaderSize, 28);
}

// Shared by database and delta headers: magic at 0, major at 4, minor at 6,
// header_size at 10 in both.
Status CheckHeaderStart(const uint8_t* p, uint32_t magic, size_t fixed_size,
                        const std::string& what, uint16_t* header_size) {
  uint32_t got_magic = GetBe32(p);
  if (got_magic != magic) {
    return Status::Error(
        kErrCorrupt, what + ": bad magic " + Hex32(got_magic) + " (expected " + Hex32(magic) + ")");
  }
  uint16_t major = GetBe16(p + 4);
  uint16_t minor = GetBe16(p + 6);
  if (major != kFormatMajor) {
    return Status::Error(kErrVersion, what + ": format version " + std::to_string(major) + "." +
                                          std::to_string(minor) +
                                          " not supported (this reader reads " +
                                          std::to_string(kFormatMajor) + ".x)");
  }
  uint16_t size = GetBe16(p + 10);
  bool newer = minor > kFormatMinor;
  if (size < fixed_size || size > kMaxHeaderSize || (!newer && size != fixed_size)) {
    return Status::Error(kErrCorrupt, what + ": header: header_size " + std::to_string(size) +
                                          " invalid for version " + std::to_string(major) + "." +
                                          std::to_string(minor) + " (expected " +
                                          std::to_string(fixed_size) + ")");
  }
  *header_size = size;
  return Status::Ok();
}

Status DecodeFileHeader(const uint8_t* p, size_t header_size, const std::string& what,
                        FileHeader* out) {
  if (!HeaderCrcMatches(p, header_size, 28)) {
    return Status::Error(kErrCorrupt,
                         what + ": header: CRC mismatch (stored " + Hex32(GetBe32(p + 28)) + ")");
  }
  FileHeader h;
  h.major = GetBe16(p + 4);
  h.minor = GetBe16(p + 6);
  h.db_type = GetBe16(p + 8);
  h.header_size = static_cast<uint16_t>(header_size);
  h.table_count = GetBe32(p + 12);
  h.global_epoch = GetBe64(p + 16);
  if (h.minor <= kFormatMinor && GetBe32(p + 24) != 0) {
    return Status::Error(kErrCorrupt, what + ": header: reserved field is not zero");
  }
  *out = h;
  return Status::Ok();
}

Status CheckSectionHeaderSize(const uint8_t* p, uint16_t minor, size_t fixed_size,
                              const std::string& where, uint16_t* header_size) {
  uint16_t size = GetBe16(p + 2);
  bool newer = minor > kFormatMinor;
  if (size < fixed_size || size > kMaxHeaderSize || (!newer && size != fixed_size)) {
    return Status::Error(kErrCorrupt, where + ": section header_size " + std::to_string(size) +
                                          " invalid (expected " + std::to_string(fixed_size) + ")");
  }
  *header_size = size;
  return Status::Ok();
}

Status DecodeSectionHeader(const uint8_t* p, size_t header_size, uint16_t minor,
                           const std::string& where, SectionHeader* out) {
  if (!HeaderCrcMatches(p, header_size, 28)) {
    return Status::Error(kErrCorrupt, where + ": section header CRC mismatch (stored " +
                                          Hex32(GetBe32(p + 28)) + ")");
  }
  if (minor <= kFormatMinor && GetBe32(p + 24) != 0) {
    return Status::Error(kErrCorrupt, where + ": section header reserved field is not zero");
  }
  SectionHeader h;
  h.table_id = GetBe16(p);
  h.header_size = static_cast<uint16_t>(header_size);
  h.record_size = GetBe32(p + 4);
  h.record_count = GetBe32(p + 8);
  h.payload_crc = GetBe32(p + 12);
  h.table_epoch = GetBe64(p + 16);
  *out = h;
  return Status::Ok();
}

}  // namespace smdb
}  // namespace ssa
