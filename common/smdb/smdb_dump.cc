// smdb_dump.cc: DumpSmdb/DumpPrdb (smdb_dump.h), driven by the records'
// Fields() lists so a new field shows up without touching this file.
#include "common/smdb/smdb_dump.h"

#include <cinttypes>
#include <cstdio>

#include "common/smdb/smdb_codec.h"

namespace ssa {
namespace smdb {
namespace {

class FieldDumper {
 public:
  explicit FieldDumper(std::string* out) : out_(out) {}

  template <class T>
  void Num(const char* name, const T& x) {
    Name(name);
    *out_ += std::to_string(uint64_t{x});
  }
  template <class T>
  void Hex(const char* name, const T& x) {
    Name(name);
    AppendHex(uint64_t{x}, sizeof(T));
  }
  template <size_t N>
  void Bytes(const char* name, const std::array<uint8_t, N>& a) {
    Name(name);
    *out_ += "0x";
    for (uint8_t b : a) AppendHexDigits(b, 1);
  }
  template <size_t N>
  void Text(const char* name, const std::array<char, N>& a) {
    Name(name);
    // Up to the last non-NUL byte, so that NULs inside the text still show.
    size_t end = N;
    while (end > 0 && a[end - 1] == '\0') --end;
    *out_ += '"';
    for (size_t i = 0; i < end; ++i) {
      unsigned char c = static_cast<unsigned char>(a[i]);
      if (c == '"' || c == '\\') {
        *out_ += '\\';
        *out_ += static_cast<char>(c);
      } else if (c >= 0x20 && c < 0x7f) {
        *out_ += static_cast<char>(c);
      } else {
        *out_ += "\\x";
        AppendHexDigits(c, 1);
      }
    }
    *out_ += '"';
  }
  template <class T, size_t N>
  void NumArray(const char* name, const std::array<T, N>& a) {
    Name(name);
    for (size_t i = 0; i < N; ++i) {
      if (i) *out_ += ',';
      *out_ += std::to_string(uint64_t{a[i]});
    }
  }
  template <class T, size_t N>
  void HexArray(const char* name, const std::array<T, N>& a) {
    Name(name);
    for (size_t i = 0; i < N; ++i) {
      if (i) *out_ += ',';
      AppendHex(uint64_t{a[i]}, sizeof(T));
    }
  }

 private:
  void Name(const char* name) {
    *out_ += ' ';
    *out_ += name;
    *out_ += '=';
  }
  void AppendHex(uint64_t v, size_t bytes) {
    *out_ += "0x";
    AppendHexDigits(v, bytes);
  }
  void AppendHexDigits(uint64_t v, size_t bytes) {
    char buf[24];
    std::snprintf(buf, sizeof(buf), "%0*" PRIx64, static_cast<int>(2 * bytes), v);
    *out_ += buf;
  }

  std::string* out_;
};

template <class Db>
std::string DumpDb(const Db& db) {
  const DbSchema& schema = Db::Schema();
  std::string out = std::string(schema.name()) +
                    " global_epoch=" + std::to_string(db.global_epoch) +
                    " tables=" + std::to_string(schema.tables.size()) + "\n";
  Db::ForEachTable(db, [&](const auto& table) {
    using R = typename std::decay_t<decltype(table)>::Record;
    out += std::string("table ") + R::kTableName + " id=" + std::to_string(R::kTableId) +
           " epoch=" + std::to_string(table.epoch) +
           " records=" + std::to_string(table.records.size()) + "\n";
    FieldDumper dumper(&out);
    for (const R& r : table.records) {
      out += R::kRecordName;
      R::Fields(r, dumper);
      out += '\n';
    }
  });
  return out;
}

}  // namespace

std::string DumpSmdb(const Smdb& db) { return DumpDb(db); }
std::string DumpPrdb(const Prdb& db) { return DumpDb(db); }
std::string DumpAddrDb(const AddrDb& db) { return DumpDb(db); }

}  // namespace smdb
}  // namespace ssa
