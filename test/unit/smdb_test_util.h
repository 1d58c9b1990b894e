// smdb_test_util.h: fixtures for the SMDB tests: a small sample fabric,
// randomized databases and edits, and a byte-level walker over serialized
// databases (written from the format spec in smdb_format.h, not from the
// reader) to corrupt them precisely.
#ifndef IBACM_SSA_TEST_UNIT_SMDB_TEST_UTIL_H
#define IBACM_SSA_TEST_UNIT_SMDB_TEST_UTIL_H

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "common/smdb/smdb.h"
#include "common/smdb/smdb_prdb.h"

namespace smdb_test {

// Two CAs behind one switch, every SMDB table populated, sorted.
ssa::smdb::Smdb SampleSmdb();
// Three paths from one source port.
ssa::smdb::Prdb SamplePrdb();

// SampleSmdb plus up to `max_extra` random records per multi-record table.
ssa::smdb::Smdb RandomSmdb(std::mt19937* rng, int max_extra);
// Adds, removes and changes records in a few random tables (at least one
// change overall); keeps the database valid (sorted, unique keys).
void RandomEdits(std::mt19937* rng, ssa::smdb::Smdb* db);
ssa::smdb::Prdb RandomPrdb(std::mt19937* rng, int max_paths);
void RandomEdits(std::mt19937* rng, ssa::smdb::Prdb* db);

// Serializes, failing the current test on error.
std::string Serialized(const ssa::smdb::Smdb& db);
std::string Serialized(const ssa::smdb::Prdb& db);

// Where a table section sits in a serialized database (format 1.0).
struct Section {
  size_t header = 0;   // offset of the section header
  size_t payload = 0;  // offset of the first record
  uint16_t id = 0;
  uint32_t record_size = 0;
  uint32_t count = 0;
  size_t end() const { return payload + size_t{record_size} * count; }
};
std::vector<Section> Sections(const std::string& bytes);

// Recomputes the header CRC of the file header / a section header, and a
// section's payload CRC, after a test edited them on purpose.
void ResealFileHeader(std::string* bytes);
void ResealSection(std::string* bytes, size_t header_offset);
void RecrcPayload(std::string* bytes, const Section& s);

void PutU16(std::string* bytes, size_t offset, uint16_t v);
void PutU32(std::string* bytes, size_t offset, uint32_t v);
uint32_t GetU32(const std::string& bytes, size_t offset);

}  // namespace smdb_test

#endif
