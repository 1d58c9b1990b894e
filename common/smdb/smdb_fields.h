// smdb_fields.h: how a database record lists its fields, once, for every
// use: wire encoding, decoding, size, key, equality and the text dump; and
// DbTable, the in-memory table of such records.
//
// A record type R (a plain struct, see smdb_records.h) provides
//   static constexpr uint16_t kTableId;      // its table's id in its db type
//   static constexpr const char* kTableName; // "ports"
//   static constexpr const char* kRecordName;// "port" (one dump line each)
//   static constexpr int kKeyFields;         // leading fields forming the key
//   template <class Self, class V> static constexpr void Fields(Self& r, V& v);
// where Fields calls, in wire order, one of these per field:
//   v.Num(name, x)       unsigned integer, big-endian, sizeof(x) bytes;
//                        dumped in decimal
//   v.Hex(name, x)       the same on the wire; dumped as 0x + 2*sizeof(x)
//                        hex digits (GUIDs, P_Keys, masks)
//   v.Bytes(name, a)     std::array<uint8_t, N>, as is (GIDs); dumped hex
//   v.Text(name, a)      std::array<char, N>, NUL-padded text, as is;
//                        dumped quoted with escapes
//   v.NumArray(name, a)  std::array<uintX_t, N>, each element big-endian;
//   v.HexArray(name, a)  dumped as a comma-separated list
// `Self` is R or const R, so one list serves readers and writers.
//
// Header-only, no state; any thread.
#ifndef IBACM_SSA_COMMON_SMDB_SMDB_FIELDS_H
#define IBACM_SSA_COMMON_SMDB_SMDB_FIELDS_H

#include <array>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace ssa {
namespace smdb {

template <class T>
constexpr bool kIsWireInt =
    std::is_integral<T>::value&& std::is_unsigned<T>::value && !std::is_same<T, bool>::value;

// Counts the wire bytes of the first `max_fields` fields of a record.
class WireSizeCounter {
 public:
  constexpr explicit WireSizeCounter(int max_fields) : max_fields_(max_fields) {}

  template <class T>
  constexpr void Num(const char*, const T&) {
    static_assert(kIsWireInt<T>, "wire integers are unsigned");
    Add(sizeof(T));
  }
  template <class T>
  constexpr void Hex(const char* n, const T& x) {
    Num(n, x);
  }
  template <size_t N>
  constexpr void Bytes(const char*, const std::array<uint8_t, N>&) {
    Add(N);
  }
  template <size_t N>
  constexpr void Text(const char*, const std::array<char, N>&) {
    Add(N);
  }
  template <class T, size_t N>
  constexpr void NumArray(const char*, const std::array<T, N>&) {
    static_assert(kIsWireInt<T>, "wire integers are unsigned");
    Add(N * sizeof(T));
  }
  template <class T, size_t N>
  constexpr void HexArray(const char* n, const std::array<T, N>& a) {
    NumArray(n, a);
  }

  constexpr size_t bytes() const { return bytes_; }

 private:
  constexpr void Add(size_t n) {
    if (fields_++ < max_fields_) bytes_ += n;
  }

  int max_fields_;
  int fields_ = 0;
  size_t bytes_ = 0;
};

// Wire size of a whole record of type R, or of its first `max_fields` fields.
template <class R>
constexpr size_t WireSize(int max_fields = INT_MAX) {
  const R r{};
  WireSizeCounter counter(max_fields);
  R::Fields(r, counter);
  return counter.bytes();
}

template <class R>
constexpr size_t KeySize() {
  return WireSize<R>(R::kKeyFields);
}

// Compares two records of type R field by field in memory, in the order
// of their encodings: the first `max_fields` fields, as memcmp would order
// their wire bytes (unsigned big-endian integers compare as numbers, byte
// and text arrays as bytes), without encoding either. Each field of `a`
// the list visits is found in `b` at the same offset.
template <class R>
class FieldComparer {
 public:
  FieldComparer(const R& a, const R& b, int max_fields) : a_(a), b_(b), max_fields_(max_fields) {}

  template <class T>
  void Num(const char*, const T& x) {
    if (Open()) Set(x == Peer(x) ? 0 : x < Peer(x) ? -1 : 1);
  }
  template <class T>
  void Hex(const char* n, const T& x) {
    Num(n, x);
  }
  template <size_t N>
  void Bytes(const char*, const std::array<uint8_t, N>& x) {
    if (Open()) Set(std::memcmp(x.data(), Peer(x).data(), N));
  }
  template <size_t N>
  void Text(const char*, const std::array<char, N>& x) {
    if (Open()) Set(std::memcmp(x.data(), Peer(x).data(), N));  // memcmp: unsigned bytes
  }
  template <class T, size_t N>
  void NumArray(const char*, const std::array<T, N>& x) {
    if (!Open()) return;
    const std::array<T, N>& y = Peer(x);
    // Equal arrays (the common case: an LFT block of 64 ports) in one
    // memcmp; the element loop only finds where unequal ones part.
    if (std::memcmp(x.data(), y.data(), sizeof(x)) == 0) return Set(0);
    size_t i = 0;
    while (i < N && x[i] == y[i]) ++i;
    Set(i == N ? 0 : x[i] < y[i] ? -1 : 1);
  }
  template <class T, size_t N>
  void HexArray(const char* n, const std::array<T, N>& x) {
    NumArray(n, x);
  }

  int result() const { return result_; }

 private:
  bool Open() const { return result_ == 0 && fields_ < max_fields_; }
  void Set(int c) {
    result_ = c < 0 ? -1 : c > 0 ? 1 : 0;
    ++fields_;
  }
  template <class T>
  const T& Peer(const T& x) const {
    const size_t offset =
        static_cast<size_t>(reinterpret_cast<const char*>(&x) - reinterpret_cast<const char*>(&a_));
    return *reinterpret_cast<const T*>(reinterpret_cast<const char*>(&b_) + offset);
  }

  const R& a_;
  const R& b_;
  int max_fields_;
  int fields_ = 0;
  int result_ = 0;
};

// -1, 0, 1 as the encoded keys of `a` and `b` compare.
template <class R>
int CompareKeys(const R& a, const R& b) {
  FieldComparer<R> c(a, b, R::kKeyFields);
  R::Fields(a, c);
  return c.result();
}
// Whether every field of `a` equals `b`'s (their encodings are the same).
template <class R>
bool RecordsEqual(const R& a, const R& b) {
  FieldComparer<R> c(a, b, INT_MAX);
  R::Fields(a, c);
  return c.result() == 0;
}

// One table of a database in memory: its records, in key order (see
// smdb_format.h), and the global epoch at which it last changed.
template <class R>
struct DbTable {
  using Record = R;
  uint64_t epoch = 0;
  std::vector<R> records;
};

}  // namespace smdb
}  // namespace ssa

#endif
