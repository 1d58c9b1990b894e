// ib_acme_range_test.cc: upstream ib_acme's bracket ranges, quirks included.
#include <string>
#include <vector>

#include "util/ib_acme/range_list.h"

// Last: CppUTest redefines new for leak checking.
#include <CppUTest/TestHarness.h>

using ssa::acme::CAtoi;
using ssa::acme::ExpandRangeList;

namespace {

std::string Join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : " ") + s;
  return out;
}

}  // namespace

TEST_GROUP(IbAcmeRange){};

TEST(IbAcmeRange, NamesAndAddresses) {
  STRCMP_EQUAL("node1 node2 node3 node4", Join(ExpandRangeList("node[1-4]")).c_str());
  STRCMP_EQUAL("10.0.0.1 10.0.0.2 10.0.0.3", Join(ExpandRangeList("10.0.0.[1-3]")).c_str());
  STRCMP_EQUAL("node1 node2 node3 node5 node7 node8",
               Join(ExpandRangeList("node[1-3,5,7-8]")).c_str());
}

TEST(IbAcmeRange, LeadingBracketHasNoBase) {
  STRCMP_EQUAL("1 2 3 4 5 6", Join(ExpandRangeList("[1-6]")).c_str());
  STRCMP_EQUAL("7", Join(ExpandRangeList("[7]")).c_str());
}

TEST(IbAcmeRange, WidthIsTheTextBeforeTheDash) {
  STRCMP_EQUAL("n08 n09 n10", Join(ExpandRangeList("n[08-10]")).c_str());
  // One digit before the dash: no padding, even past 9.
  STRCMP_EQUAL("n9 n10 n11", Join(ExpandRangeList("n[9-11]")).c_str());
  // A lone item keeps its own width.
  STRCMP_EQUAL("n007", Join(ExpandRangeList("n[007]")).c_str());
}

TEST(IbAcmeRange, WithoutBracketsOneEntryCommasAndAll) {
  STRCMP_EQUAL("plain", Join(ExpandRangeList("plain")).c_str());
  LONGS_EQUAL(1, ExpandRangeList("a,b").size());
  STRCMP_EQUAL("a,b", ExpandRangeList("a,b")[0].c_str());
  STRCMP_EQUAL("/run/ibacm-unix.sock", ExpandRangeList("/run/ibacm-unix.sock")[0].c_str());
}

TEST(IbAcmeRange, UpstreamQuirks) {
  // Text after ']' is dropped.
  STRCMP_EQUAL("node1 node2", Join(ExpandRangeList("node[1-2].ib")).c_str());
  // A descending range gives nothing; empty items are skipped.
  LONGS_EQUAL(0, ExpandRangeList("node[3-1]").size());
  STRCMP_EQUAL("x1 x2", Join(ExpandRangeList("x[,1,,2,]")).c_str());
  // "[]" has no list: the base alone. A missing ']' still ends the list.
  STRCMP_EQUAL("node", Join(ExpandRangeList("node[]")).c_str());
  STRCMP_EQUAL("node1 node2", Join(ExpandRangeList("node[1-2")).c_str());
  // Items are read like atoi: a non-number is 0.
  STRCMP_EQUAL("h0", Join(ExpandRangeList("h[x]")).c_str());
  // Where upstream crashes we give nothing.
  LONGS_EQUAL(0, ExpandRangeList("").size());
  LONGS_EQUAL(0, ExpandRangeList("n[,,]").size());
}

TEST(IbAcmeRange, HugeRangesAreCapped) {
  LONGS_EQUAL(ssa::acme::kMaxRangeEntries, ExpandRangeList("[1-99999999]").size());
}

TEST(IbAcmeRange, CAtoiReadsLikeC) {
  LONGS_EQUAL(12, CAtoi("12abc"));
  LONGS_EQUAL(0, CAtoi("node2"));
  LONGS_EQUAL(-3, CAtoi(" -3"));
  LONGS_EQUAL(0x10, CAtoi("16"));
  LONGS_EQUAL(0, CAtoi("0x10"));  // atoi is decimal only
}
