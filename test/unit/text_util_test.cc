// text_util_test.cc: the shared string helpers (common/base/text_util.h).
#include <string>

#include "common/base/text_util.h"

#include "CppUTest/TestHarness.h"

TEST_GROUP(TextUtil){};

TEST(TextUtil, TrimHexAndGuidTexts) {
  STRCMP_EQUAL("a b", ssa::Trim(" \t a b\r\n").c_str());
  STRCMP_EQUAL("", ssa::Trim(" \t\r\n").c_str());
  STRCMP_EQUAL("0x0", ssa::HexText(0).c_str());
  STRCMP_EQUAL("0x1f", ssa::HexText(31).c_str());
  // As OpenSM writes GUIDs (partitions.conf, logs): 16 digits, lower case.
  STRCMP_EQUAL("0x0000000000000000", ssa::GuidText(0).c_str());
  STRCMP_EQUAL("0x0002c90300a1b2c3", ssa::GuidText(0x0002c90300a1b2c3ULL).c_str());
  STRCMP_EQUAL("0xffffffffffffffff", ssa::GuidText(~0ULL).c_str());
}
