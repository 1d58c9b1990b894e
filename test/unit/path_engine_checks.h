// path_engine_checks.h: the checks the path-engine unit tests share: one
// (SLID, DLID) pair's record equal to the one derived by hand, field by
// field, or no record with the expected reason. Include it last (it brings
// CppUTest, which redefines operator new for what follows).
//
// Test code; single thread.
#ifndef IBACM_SSA_TEST_UNIT_PATH_ENGINE_CHECKS_H
#define IBACM_SSA_TEST_UNIT_PATH_ENGINE_CHECKS_H

#include <cstring>
#include <string>

#include "common/smdb/path_engine.h"
#include "util/smdb_tool/path_text.h"

#include <CppUTest/TestHarness.h>

namespace path_engine_test {

inline void CheckPath(const ssa::smdb::PathEngine& e, uint16_t slid, uint16_t dlid,
                      const ibv_path_record& want) {
  ibv_path_record got;
  ssa::smdb::PathStatus st = e.Compute(slid, dlid, &got);
  std::string where = "slid " + std::to_string(slid) + " dlid " + std::to_string(dlid);
  STRCMP_EQUAL_TEXT("ok", ssa::smdb::PathStatusName(st), where.c_str());
  std::string diffs =
      ssa::smdb_tool::DescribeDiffs(ssa::smdb_tool::DiffPathRecords(got, want), "got", "want");
  STRCMP_EQUAL_TEXT("", diffs.c_str(), where.c_str());
  CHECK_TEXT(memcmp(&got, &want, sizeof(got)) == 0, where.c_str());
}

inline void CheckNoPath(const ssa::smdb::PathEngine& e, uint16_t slid, uint16_t dlid,
                        ssa::smdb::PathStatus want) {
  ibv_path_record got;
  memset(&got, 0xAB, sizeof(got));
  ssa::smdb::PathStatus st = e.Compute(slid, dlid, &got);
  std::string where = "slid " + std::to_string(slid) + " dlid " + std::to_string(dlid);
  STRCMP_EQUAL_TEXT(ssa::smdb::PathStatusName(want), ssa::smdb::PathStatusName(st), where.c_str());
  ibv_path_record zero;
  memset(&zero, 0, sizeof(zero));
  CHECK_TEXT(memcmp(&got, &zero, sizeof(got)) == 0, where.c_str());
}

}  // namespace path_engine_test

#endif
