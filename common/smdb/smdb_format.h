// smdb_format.h: the container format of the replicated subnet databases
// (SMDB, PRDB) and of their deltas: byte layouts, constants, CRC32 and the
// header codecs. This comment is the specification; another implementation
// needs nothing else (plus the record layouts in smdb_records.h and
// smdb_prdb.h, whose field order is the wire order).
//
// Pure functions and constants: no state, any thread.
//
// ## Conventions
//
// Every integer is unsigned and big-endian. CRC32 is the IEEE 802.3 / zlib
// CRC-32 (reflected polynomial 0xEDB88320, initial value and final XOR
// 0xFFFFFFFF; CRC32("123456789") = 0xCBF43926). Offsets are in bytes.
// A record is its fields in Fields() order with no padding: integers
// big-endian, byte and text arrays as is, integer arrays element by element
// (smdb_fields.h). Every piece's length is known from the bytes before it,
// so a stream can be checked table by table as it arrives.
//
// ## Database file / stream
//
//   file header, then table_count table sections, then nothing.
//
// File header (32 bytes in format 1.0):
//    0 u32 magic          0x53534442 ("SSDB")
//    4 u16 major          1. A reader rejects any other major.
//    6 u16 minor          1 (0 before the SMDB's QoS tables). Minors only
//                         append: new header fields, new trailing record
//                         fields, new tables (absent from older files).
//    8 u16 db_type        1 = SMDB (smdb_records.h), 2 = PRDB (smdb_prdb.h),
//                         3 = address DB (addr_db.h)
//   10 u16 header_size    32; larger only in a newer minor (extra bytes follow
//                         offset 32, are covered by header_crc, and ignored)
//   12 u32 table_count    number of table sections that follow
//   16 u64 global_epoch   version of the whole database (see BumpEpochs)
//   24 u32 reserved       0
//   28 u32 header_crc     CRC32 of bytes [0, 28) followed by [32, header_size)
//
// Table section: a section header, then record_count * record_size bytes of
// records. Section header (32 bytes in format 1.0):
//    0 u16 table_id       per db_type, see the record headers
//    2 u16 header_size    32; larger only in a newer minor (as above)
//    4 u32 record_size    bytes per record; every record of a table has it
//    8 u32 record_count
//   12 u32 payload_crc    CRC32 of the record_count * record_size bytes
//   16 u64 table_epoch    global epoch at which this table last changed
//   24 u32 reserved       0
//   28 u32 header_crc     CRC32 of bytes [0, 28) followed by [32, header_size)
//
// Rules a reader enforces (each violation is an error naming the table):
//   - magic, then major, are checked first: they keep their offsets forever;
//   - header_size in [32, 4096]; exactly 32 unless the file's minor is newer
//     than the reader's; the same for reserved fields being 0;
//   - sections appear in strictly increasing table_id order; every table the
//     reader knows for db_type appears exactly once, except tables added by
//     a minor newer than the file's, which it lacks (they read as empty);
//   - a table_id the reader does not know is an error, unless the file's
//     minor is newer, in which case the section is CRC-checked and skipped;
//   - record_size of a known table equals the reader's size for it; a file of
//     a newer minor may have larger records (appended fields): the reader
//     decodes its known prefix of each record and ignores the rest;
//   - record_count * record_size <= kMaxTableBytes (1 GiB);
//   - single-record tables (SMDB "subnet", PRDB "source") hold exactly 1;
//   - records are sorted by their key (the first key_size bytes, compared as
//     unsigned bytes, which for big-endian fields is numeric order), with no
//     duplicate keys. This makes the form canonical, lets deltas address
//     records by key and lets readers binary-search.
//   - no bytes follow the last section.
// A database that parses re-serializes to the same bytes when its minor is
// the reader's own (unknown fields and tables of a newer minor are dropped).
//
// ## Delta (smdb_delta.h)
//
// Turns one database (the base) into another; only changed tables appear.
// Delta header (48 bytes in format 1.0):
//    0 u32 magic             0x5353444C ("SSDL")
//    4 u16 major             1
//    6 u16 minor             0. Must equal the reader's: the digests cover
//                            exact serializations, so a peer of another minor
//                            is sent the full database instead (EPROTONOSUPPORT)
//    8 u16 db_type           the db_type of base and result
//   10 u16 header_size       48
//   12 u32 section_count
//   16 u64 base_global_epoch
//   24 u64 new_global_epoch
//   32 u32 base_digest       CRC32 of the base's whole serialization
//   36 u32 new_digest        CRC32 of the result's whole serialization
//   40 u32 reserved          0
//   44 u32 header_crc        CRC32 of bytes [0, 44) followed by [48, header_size)
// Delta section: a header, then removed_count keys of key_size bytes, then
// put_count records of record_size bytes, each list strictly increasing by
// key. Delta section header (64 bytes in format 1.0):
//    0 u16 table_id
//    2 u16 header_size       64
//    4 u32 record_size       must equal the reader's (no newer-minor records)
//    8 u32 key_size          must equal the reader's
//   12 u32 base_count        records in the base table
//   16 u32 new_count         records in the resulting table
//   20 u32 removed_count     keys removed from the base (each must exist)
//   24 u32 put_count         records inserted or replacing the same key
//   28 u32 base_crc          payload_crc of the base table
//   32 u64 base_epoch        table_epoch of the base table
//   40 u64 new_epoch         table_epoch of the resulting table
//   48 u32 new_crc           payload_crc of the resulting table
//   52 u32 ops_crc           CRC32 of the removed keys and put records
//   56 u32 reserved          0
//   60 u32 header_crc        CRC32 of bytes [0, 60) followed by [64, header_size)
// Sections are in strictly increasing table_id order. A key both removed and
// put is an error. The applier checks base_global_epoch and base_digest
// before anything else (a wrong base is rejected as such), each section's
// base fields, each resulting table's count and CRC, and new_digest last.
#ifndef IBACM_SSA_COMMON_SMDB_SMDB_FORMAT_H
#define IBACM_SSA_COMMON_SMDB_SMDB_FORMAT_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "common/base/big_endian.h"
#include "common/base/status.h"

namespace ssa {
namespace smdb {

constexpr uint32_t kDbMagic = 0x53534442;     // "SSDB"
constexpr uint32_t kDeltaMagic = 0x5353444C;  // "SSDL"
constexpr uint16_t kFormatMajor = 1;
// Minor 1 added the SMDB's QoS policy tables (smdb_qos_records.h).
constexpr uint16_t kFormatMinor = 1;

constexpr size_t kFileHeaderSize = 32;
constexpr size_t kSectionHeaderSize = 32;
constexpr size_t kDeltaHeaderSize = 48;
constexpr size_t kDeltaSectionHeaderSize = 64;
constexpr size_t kMaxHeaderSize = 4096;
constexpr uint64_t kMaxTableBytes = uint64_t{1} << 30;

// The db_type field. Table ids are per db type.
enum class DbType : uint16_t { kSmdb = 1, kPrdb = 2, kAddr = 3 };
const char* DbTypeName(uint16_t db_type);  // "smdb", "prdb", "addr" or "unknown db type"

// Error codes carried by the Status of every reader in this family.
constexpr int kErrCorrupt = EBADMSG;          // malformed, truncated, CRC
constexpr int kErrVersion = EPROTONOSUPPORT;  // another major version
constexpr int kErrWrongBase = ESTALE;         // delta for another base
constexpr int kErrInvalidInput = EINVAL;      // in-memory db breaks a rule

// CRC32 (zlib-compatible): Crc32(b, n2, Crc32(a, n1)) == Crc32(a + b).
uint32_t Crc32(const uint8_t* data, size_t len, uint32_t crc = 0);
// CRC32 arithmetic (CRC32 is linear over GF(2)), so a CRC can follow a
// change without reading the unchanged bytes again:
//   Crc32Combine(Crc32(a), Crc32(b), len(b)) == Crc32(a + b);
//   Crc32Patch(Crc32(m), len(m), off, before, after, n) == Crc32(m') where
//   m' is m with the n bytes at `off` changed from `before` to `after`.
// Each costs O(log len) carry-less multiplications, not a pass over len.
uint32_t Crc32Combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b);
uint32_t Crc32Patch(uint32_t crc, uint64_t total, uint64_t offset, const uint8_t* before,
                    const uint8_t* after, size_t n);

// ---- Big-endian helpers (common/base/big_endian.h), also as smdb:: names ----
using ssa::GetBe16;
using ssa::GetBe32;
using ssa::GetBe64;
using ssa::PutBe16;
using ssa::PutBe32;
using ssa::PutBe64;

// ---- Schemas: what a reader knows about each table of a db type ----
struct TableSchema {
  uint16_t id = 0;
  const char* name = "";
  uint32_t record_size = 0;
  uint32_t key_size = 0;  // leading bytes of a record that form its key
  bool single_record = false;
  // The format minor that added the table: a file of an older minor lacks
  // it, and reads as if it were empty.
  uint16_t since_minor = 0;
};

struct DbSchema {
  DbType type = DbType::kSmdb;
  std::vector<TableSchema> tables;  // strictly increasing id
  // Index into `tables`, or -1 if `id` is not known.
  int IndexOf(uint16_t id) const;
  const char* name() const { return DbTypeName(static_cast<uint16_t>(type)); }
};

// "table 'ports' (id 4)" for known tables, "table id 99" otherwise.
std::string DescribeTable(const DbSchema& schema, uint16_t id);
// "0x0123abcd": how messages show magics, CRCs and digests.
std::string Hex32(uint32_t v);

// ---- Header fields and read-only views: the layouts above as code ----
// Each field is one constant that names its type and offset; readers go
// through views, writers through HeaderField::Put, so each offset is
// written down in exactly one place. A view checks nothing: the bytes it
// reads must exist (the header codecs below and the delta reader check
// lengths, sizes and CRCs first).

// A big-endian field of the header `Part`.
template <class T, class Part>
struct HeaderField {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8, "a u16, u32 or u64");
  size_t offset;

  T Get(const uint8_t* header) const {
    if constexpr (sizeof(T) == 2)
      return GetBe16(header + offset);
    else if constexpr (sizeof(T) == 4)
      return GetBe32(header + offset);
    else
      return GetBe64(header + offset);
  }
  void Put(uint8_t* header, T v) const {
    if constexpr (sizeof(T) == 2)
      PutBe16(header + offset, v);
    else if constexpr (sizeof(T) == 4)
      PutBe32(header + offset, v);
    else
      PutBe64(header + offset, v);
  }
};

// The headers, as tags, and their fields, a namespace each. Database and
// delta headers start alike (magic to header_size, which never change),
// and so do table and delta sections (table_id to record_size): those
// fields are declared once and named in both namespaces.
struct HeaderStart {};
struct FileHeaderLayout : HeaderStart {};
struct DeltaHeaderLayout : HeaderStart {};
struct SectionStart {};
struct SectionHeaderLayout : SectionStart {};
struct DeltaSectionLayout : SectionStart {};

namespace header_start {
constexpr HeaderField<uint32_t, HeaderStart> kMagic{0};
constexpr HeaderField<uint16_t, HeaderStart> kMajor{4}, kMinor{6}, kDbType{8}, kHeaderSize{10};
}  // namespace header_start
namespace file_header {
using header_start::kMagic, header_start::kMajor, header_start::kMinor, header_start::kDbType,
    header_start::kHeaderSize;
constexpr HeaderField<uint32_t, FileHeaderLayout> kTableCount{12};
constexpr HeaderField<uint64_t, FileHeaderLayout> kGlobalEpoch{16};
constexpr HeaderField<uint32_t, FileHeaderLayout> kReserved{24}, kCrc{28};
}  // namespace file_header
namespace delta_header {
using header_start::kMagic, header_start::kMajor, header_start::kMinor, header_start::kDbType,
    header_start::kHeaderSize;
constexpr HeaderField<uint32_t, DeltaHeaderLayout> kSectionCount{12};
constexpr HeaderField<uint64_t, DeltaHeaderLayout> kBaseGlobalEpoch{16}, kNewGlobalEpoch{24};
constexpr HeaderField<uint32_t, DeltaHeaderLayout> kBaseDigest{32}, kNewDigest{36}, kReserved{40},
    kCrc{44};
}  // namespace delta_header
namespace section_start {
constexpr HeaderField<uint16_t, SectionStart> kTableId{0}, kHeaderSize{2};
constexpr HeaderField<uint32_t, SectionStart> kRecordSize{4};
}  // namespace section_start
namespace section_header {
using section_start::kTableId, section_start::kHeaderSize, section_start::kRecordSize;
constexpr HeaderField<uint32_t, SectionHeaderLayout> kRecordCount{8}, kPayloadCrc{12};
constexpr HeaderField<uint64_t, SectionHeaderLayout> kTableEpoch{16};
constexpr HeaderField<uint32_t, SectionHeaderLayout> kReserved{24}, kCrc{28};
}  // namespace section_header
namespace delta_section {
using section_start::kTableId, section_start::kHeaderSize, section_start::kRecordSize;
constexpr HeaderField<uint32_t, DeltaSectionLayout> kKeySize{8}, kBaseCount{12}, kNewCount{16},
    kRemovedCount{20}, kPutCount{24}, kBaseCrc{28};
constexpr HeaderField<uint64_t, DeltaSectionLayout> kBaseEpoch{32}, kNewEpoch{40};
constexpr HeaderField<uint32_t, DeltaSectionLayout> kNewCrc{48}, kOpsCrc{52}, kReserved{56},
    kCrc{60};
}  // namespace delta_section

// The bytes of one header of kind `Layout`, read by field:
// view[file_header::kTableCount]. A field of another kind of header does
// not compile.
template <class Layout>
class HeaderView {
 public:
  explicit HeaderView(const uint8_t* p) : p_(p) {}
  template <class T, class Part>
  T operator[](HeaderField<T, Part> f) const {
    static_assert(std::is_base_of<Part, Layout>::value, "a field of another header");
    return f.Get(p_);
  }

 private:
  const uint8_t* p_;
};
using HeaderStartView = HeaderView<HeaderStart>;
using FileHeaderView = HeaderView<FileHeaderLayout>;
using DeltaHeaderView = HeaderView<DeltaHeaderLayout>;
using SectionStartView = HeaderView<SectionStart>;
using SectionHeaderView = HeaderView<SectionHeaderLayout>;
using DeltaSectionView = HeaderView<DeltaSectionLayout>;

// Bytes of records after a section header.
inline uint64_t PayloadSize(const SectionHeaderView& h) {
  return uint64_t{h[section_header::kRecordSize]} * h[section_header::kRecordCount];
}
// Bytes of removed keys and put records after a delta section header.
inline uint64_t ChangesSize(const DeltaSectionView& h) {
  namespace f = delta_section;
  return uint64_t{h[f::kRemovedCount]} * h[f::kKeySize] +
         uint64_t{h[f::kPutCount]} * h[f::kRecordSize];
}

// ---- File header and section header codecs ----
struct FileHeader {
  uint16_t major = kFormatMajor;
  uint16_t minor = kFormatMinor;
  uint16_t db_type = 0;
  uint16_t header_size = kFileHeaderSize;
  uint32_t table_count = 0;
  uint64_t global_epoch = 0;
};

struct SectionHeader {
  uint16_t table_id = 0;
  uint16_t header_size = kSectionHeaderSize;
  uint32_t record_size = 0;
  uint32_t record_count = 0;
  uint32_t payload_crc = 0;
  uint64_t table_epoch = 0;
};

// Writes the kFileHeaderSize / kSectionHeaderSize bytes of this format's
// version (header_size fields are written as the fixed sizes).
void EncodeFileHeader(const FileHeader& h, uint8_t* out);
void EncodeSectionHeader(const SectionHeader& h, uint8_t* out);
// The fields database and delta headers start with, and those table and
// delta section headers start with, for the encoders of each.
void PutHeaderStart(uint8_t* out, uint32_t magic, uint16_t major, uint16_t minor, uint16_t db_type,
                    size_t header_size);
void PutSectionStart(uint8_t* out, uint16_t table_id, size_t header_size, uint32_t record_size);

// Two-step decoding, as bytes arrive: the first `fixed_size` bytes say how
// long the whole header is, then the whole header is checked.
//   CheckHeaderStart: magic, major, header_size range (for the given minor).
//   Finish*: CRC, reserved fields, the remaining fields.
// `what` prefixes messages ("smdb", "smdb delta").
Status CheckHeaderStart(const uint8_t* p, uint32_t magic, size_t fixed_size,
                        const std::string& what, uint16_t* header_size);
Status DecodeFileHeader(const uint8_t* p, size_t header_size, const std::string& what,
                        FileHeader* out);
// `minor` is the file's minor (it decides how strict the checks are).
Status CheckSectionHeaderSize(const uint8_t* p, uint16_t minor, size_t fixed_size,
                              const std::string& where, uint16_t* header_size);
Status DecodeSectionHeader(const uint8_t* p, size_t header_size, uint16_t minor,
                           const std::string& where, SectionHeader* out);

// Verifies the CRC stored at [crc_offset, crc_offset + 4) of a header of
// `header_size` bytes, which covers everything else in the header.
bool HeaderCrcMatches(const uint8_t* p, size_t header_size, size_t crc_offset);
// Computes that CRC and stores it.
void SealHeader(uint8_t* p, size_t header_size, size_t crc_offset);

}  // namespace smdb
}  // namespace ssa

#endif
