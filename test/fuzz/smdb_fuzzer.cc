// smdb_fuzzer.cc: libFuzzer target for the SMDB/PRDB readers and the delta
// applier (common/smdb*). Built with clang by test/fuzz/local.mk and run by
// test/fuzz/run-fuzzers.sh; not part of any daemon. Seeds:
// test/fuzz/corpus/smdb/, written by gen_smdb_seeds.py.
//
// Each input is read every way the system meets such bytes:
//   1. as a whole SMDB and as a whole PRDB (Smdb::Parse, Prdb::Parse);
//   2. as a stream in chunks of pseudo-random sizes, which must reach the
//      same verdict, the same message and the same database as (1);
//   3. when it parses: re-serialized, it parses to the same database, and
//      is the input byte for byte if it was written in this reader's minor;
//      a delta from the empty database to it and back applies exactly;
//   4. as a delta applied to the empty SMDB and to the empty PRDB (the
//      delta seeds are made against that base), whose result must again
//      round-trip through Serialize and MakeDelta.
// ASan/UBSan catch memory and arithmetic errors; FUZZ_CHECK catches broken
// invariants.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/smdb/smdb.h"
#include "common/smdb/smdb_delta.h"
#include "common/smdb/smdb_dump.h"
#include "common/smdb/smdb_format.h"
#include "common/smdb/smdb_prdb.h"
#include "common/smdb/smdb_stream.h"
#include "test/fuzz/fuzz_check.h"

using namespace ssa::smdb;

namespace {

std::string Dump(const Smdb& db) { return DumpSmdb(db); }
std::string Dump(const Prdb& db) { return DumpPrdb(db); }

const uint8_t* Bytes(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }

template <class Db>
ssa::Status ParseInChunks(const uint8_t* data, size_t size, Db* out) {
  DbReader<Db> reader;
  uint32_t x = static_cast<uint32_t>(size) * 2654435761u + 1;
  size_t off = 0;
  while (off < size) {
    x = x * 1103515245u + 12345u;
    size_t n = std::min(size - off, size_t{1} + (x >> 16) % 97);
    ssa::Status s = reader.Feed(data + off, n);
    if (!s.ok()) return s;
    off += n;
  }
  return reader.Finish(out);
}

// `db` parsed fine: everything built on it must hold.
template <class Db>
void CheckValid(const Db& db, const uint8_t* data, size_t size) {
  std::string bytes;
  FUZZ_CHECK(db.Serialize(&bytes).ok());
  Db again;
  FUZZ_CHECK(Db::Parse(Bytes(bytes), bytes.size(), &again).ok());
  FUZZ_CHECK(again == db);
  if (data && GetBe16(data + 6) == kFormatMinor) {
    FUZZ_CHECK(bytes.size() == size &&
               bytes.compare(0, size, reinterpret_cast<const char*>(data), size) == 0);
  }
  (void)Dump(db);
  const Db empty;
  std::string delta;
  FUZZ_CHECK(MakeDelta(empty, db, &delta).ok());
  Db applied;
  FUZZ_CHECK(ApplyDelta(empty, Bytes(delta), delta.size(), &applied).ok());
  FUZZ_CHECK(applied == db);
  FUZZ_CHECK(MakeDelta(db, empty, &delta).ok());
  FUZZ_CHECK(ApplyDelta(db, Bytes(delta), delta.size(), &applied).ok());
  FUZZ_CHECK(applied == empty);
}

template <class Db>
void FuzzDb(const uint8_t* data, size_t size) {
  Db whole, chunked;
  ssa::Status a = Db::Parse(data, size, &whole);
  ssa::Status b = ParseInChunks(data, size, &chunked);
  FUZZ_CHECK(a.ok() == b.ok());
  FUZZ_CHECK(a.code() == b.code());
  FUZZ_CHECK(a.message() == b.message());
  if (!a.ok()) return;
  FUZZ_CHECK(whole == chunked);
  CheckValid(whole, data, size);
}

template <class Db>
void FuzzDelta(const uint8_t* data, size_t size) {
  const Db empty;
  Db out;
  ssa::Status s = ApplyDelta(empty, data, size, &out);
  if (!s.ok()) {
    FUZZ_CHECK(out == empty);  // untouched
    return;
  }
  CheckValid(out, nullptr, 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzDb<Smdb>(data, size);
  FuzzDb<Prdb>(data, size);
  FuzzDelta<Smdb>(data, size);
  FuzzDelta<Prdb>(data, size);
  return 0;
}
