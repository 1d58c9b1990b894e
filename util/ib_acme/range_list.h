// range_list.h: upstream ib_acme's bracket syntax for lists of addresses and
// services: "node[1-3,5]" names node1 node2 node3 node5, "10.0.0.[1-3]" the
// three IPs, "[1-4]" the numbers 1..4 (LIDs).
//
// The rules are upstream's exactly, quirks included, so the same -d or -S
// argument names the same destinations for our ib_acme as for the stock one:
//   - Without a '[' the argument is one entry, commas and all.
//   - The base is the text before the first '['; the list is the text after
//     it up to the next ']'. Anything after that ']' is dropped.
//   - List items are separated by commas (empty items are skipped). An item
//     "A-B" counts from A to B, zero-padded to the width of the text before
//     the '-' ("[01-10]" gives 01..10); a lone "A" is printed zero-padded to
//     its own width. Numbers are read like C's atoi (so "x" reads as 0), and
//     a range whose end is below its start gives nothing.
// Upstream crashes on an empty argument or a list of nothing but commas;
// here both give an empty list. At most kMaxRangeEntries entries are made.
//
// Pure functions: any thread.
#ifndef IBACM_SSA_UTIL_IB_ACME_RANGE_LIST_H
#define IBACM_SSA_UTIL_IB_ACME_RANGE_LIST_H

#include <cstddef>
#include <string>
#include <vector>

namespace ssa {
namespace acme {

constexpr size_t kMaxRangeEntries = 1 << 20;

std::vector<std::string> ExpandRangeList(const std::string& arg);

// C's atoi (glibc: (int)strtol(text, NULL, 10)), for upstream-identical
// readings of numbers such as "-C 3x" or "-d 12abc".
int CAtoi(const std::string& text);

}  // namespace acme
}  // namespace ssa

#endif
