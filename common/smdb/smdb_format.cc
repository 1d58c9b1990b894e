// smdb_format.cc: CRC32 and the header codecs of the SMDB container format
// (layouts in smdb_format.h).
#include "common/smdb/smdb_format.h"

#include "common/smdb/crc32_clmul.h"

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

}  // namespace

uint32_t Crc32(const uint8_t* data, size_t len, uint32_t crc) {
  const CrcTables& t = kCrcTables;
  uint32_t c = ~crc;
  // Long runs fold 64 bytes a step where the CPU can (crc32_clmul.h); the
  // tables take the last bytes and short inputs.
  if (len >= 128 && internal::HaveCrc32Clmul()) {
    size_t n = len & ~size_t{15};
    c = internal::Crc32ClmulFold(c, data, n);
    data += n;
    len -= n;
  }
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

std::string Hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "0x%08x", v);
  return buf;
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

// Writes the fields both database and delta headers start with.
void PutHeaderStart(uint8_t* out, uint32_t magic, uint16_t major, uint16_t minor, uint16_t db_type,
                    size_t header_size) {
  header_start::kMagic.Put(out, magic);
  header_start::kMajor.Put(out, major);
  header_start::kMinor.Put(out, minor);
  header_start::kDbType.Put(out, db_type);
  header_start::kHeaderSize.Put(out, static_cast<uint16_t>(header_size));
}

// Writes the fields both table and delta section headers start with.
void PutSectionStart(uint8_t* out, uint16_t table_id, size_t header_size, uint32_t record_size) {
  section_start::kTableId.Put(out, table_id);
  section_start::kHeaderSize.Put(out, static_cast<uint16_t>(header_size));
  section_start::kRecordSize.Put(out, record_size);
}

void EncodeFileHeader(const FileHeader& h, uint8_t* out) {
  PutHeaderStart(out, kDbMagic, h.major, h.minor, h.db_type, kFileHeaderSize);
  file_header::kTableCount.Put(out, h.table_count);
  file_header::kGlobalEpoch.Put(out, h.global_epoch);
  file_header::kReserved.Put(out, 0);
  SealHeader(out, kFileHeaderSize, file_header::kCrc.offset);
}

void EncodeSectionHeader(const SectionHeader& h, uint8_t* out) {
  PutSectionStart(out, h.table_id, kSectionHeaderSize, h.record_size);
  section_header::kRecordCount.Put(out, h.record_count);
  section_header::kPayloadCrc.Put(out, h.payload_crc);
  section_header::kTableEpoch.Put(out, h.table_epoch);
  section_header::kReserved.Put(out, 0);
  SealHeader(out, kSectionHeaderSize, section_header::kCrc.offset);
}

namespace {

// A header_size field's rule, the same for every kind of header: at least
// the fixed size and at most kMaxHeaderSize; exactly the fixed size unless
// the writer's minor is newer than this reader's.
bool HeaderSizeValid(uint16_t size, uint16_t minor, size_t fixed_size) {
  bool newer = minor > kFormatMinor;
  return size >= fixed_size && size <= kMaxHeaderSize && (newer || size == fixed_size);
}

}  // namespace

// Shared by database and delta headers (header_start).
Status CheckHeaderStart(const uint8_t* p, uint32_t magic, size_t fixed_size,
                        const std::string& what, uint16_t* header_size) {
  const HeaderStartView h(p);
  const uint32_t got_magic = h[header_start::kMagic];
  if (got_magic != magic) {
    return Status::Error(
        kErrCorrupt, what + ": bad magic " + Hex32(got_magic) + " (expected " + Hex32(magic) + ")");
  }
  uint16_t major = h[header_start::kMajor];
  uint16_t minor = h[header_start::kMinor];
  if (major != kFormatMajor) {
    return Status::Error(kErrVersion, what + ": format version " + std::to_string(major) + "." +
                                          std::to_string(minor) +
                                          " not supported (this reader reads " +
                                          std::to_string(kFormatMajor) + ".x)");
  }
  uint16_t size = h[header_start::kHeaderSize];
  if (!HeaderSizeValid(size, minor, fixed_size)) {
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
  const FileHeaderView v(p);
  if (!HeaderCrcMatches(p, header_size, file_header::kCrc.offset)) {
    return Status::Error(
        kErrCorrupt, what + ": header: CRC mismatch (stored " + Hex32(v[file_header::kCrc]) + ")");
  }
  FileHeader h;
  h.major = v[file_header::kMajor];
  h.minor = v[file_header::kMinor];
  h.db_type = v[file_header::kDbType];
  h.header_size = static_cast<uint16_t>(header_size);
  h.table_count = v[file_header::kTableCount];
  h.global_epoch = v[file_header::kGlobalEpoch];
  if (h.minor <= kFormatMinor && v[file_header::kReserved] != 0) {
    return Status::Error(kErrCorrupt, what + ": header: reserved field is not zero");
  }
  *out = h;
  return Status::Ok();
}

Status CheckSectionHeaderSize(const uint8_t* p, uint16_t minor, size_t fixed_size,
                              const std::string& where, uint16_t* header_size) {
  uint16_t size = SectionStartView(p)[section_start::kHeaderSize];
  if (!HeaderSizeValid(size, minor, fixed_size)) {
    return Status::Error(kErrCorrupt, where + ": section header_size " + std::to_string(size) +
                                          " invalid (expected " + std::to_string(fixed_size) + ")");
  }
  *header_size = size;
  return Status::Ok();
}

Status DecodeSectionHeader(const uint8_t* p, size_t header_size, uint16_t minor,
                           const std::string& where, SectionHeader* out) {
  const SectionHeaderView v(p);
  if (!HeaderCrcMatches(p, header_size, section_header::kCrc.offset)) {
    return Status::Error(kErrCorrupt, where + ": section header CRC mismatch (stored " +
                                          Hex32(v[section_header::kCrc]) + ")");
  }
  if (minor <= kFormatMinor && v[section_header::kReserved] != 0) {
    return Status::Error(kErrCorrupt, where + ": section header reserved field is not zero");
  }
  SectionHeader h;
  h.table_id = v[section_header::kTableId];
  h.header_size = static_cast<uint16_t>(header_size);
  h.record_size = v[section_header::kRecordSize];
  h.record_count = v[section_header::kRecordCount];
  h.payload_crc = v[section_header::kPayloadCrc];
  h.table_epoch = v[section_header::kTableEpoch];
  *out = h;
  return Status::Ok();
}

}  // namespace smdb
}  // namespace ssa
