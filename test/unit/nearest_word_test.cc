// nearest_word_test.cc: the one "did you mean" of every option reader
// (common/base/nearest_word.h).
#include <string>

#include "common/base/nearest_word.h"

#include "CppUTest/TestHarness.h"

TEST_GROUP(NearestWord){};

TEST(NearestWord, TyposFindTheirWordAndStrangersFindNone) {
  const std::vector<std::string> keys = {"provider", "log_level", "route_prot", "timeout"};
  STRCMP_EQUAL("provider", ssa::NearestWord("provder", keys).c_str());      // a letter missing
  STRCMP_EQUAL("provider", ssa::NearestWord("provdier", keys).c_str());     // two swapped
  STRCMP_EQUAL("route_prot", ssa::NearestWord("ROUT_PROT", keys).c_str());  // any case
  STRCMP_EQUAL("", ssa::NearestWord("colour", keys).c_str());
  STRCMP_EQUAL("", ssa::NearestWord("provider", keys).c_str());  // itself: nothing to add
  // A prefix is a likely shorthand: "distrib" for "distribution".
  STRCMP_EQUAL("distribution", ssa::NearestWord("distrib", {"distribution", "access"}).c_str());
  STRCMP_EQUAL("; did you mean 'sa'?", ssa::DidYouMean("sab", {"sa", "acmp", "ssa"}).c_str());
  STRCMP_EQUAL("", ssa::DidYouMean("zzz", {"sa"}).c_str());
  STRCMP_EQUAL("a, b or c", ssa::WordList({"a", "b", "c"}).c_str());
}
