// range_list.cc: the bracket expansion (see range_list.h for the rules).
#include "util/ib_acme/range_list.h"

#include <cstdio>
#include <cstdlib>

namespace ssa {
namespace acme {

namespace {

// One strtok step over `text` from `*pos`: skips delimiters, returns the
// token up to the next delimiter and leaves `*pos` just past that delimiter
// (or at the end). False when only delimiters were left.
bool NextToken(const std::string& text, const char* delims, size_t* pos, std::string* token) {
  size_t start = text.find_first_not_of(delims, *pos);
  if (start == std::string::npos) {
    *pos = text.size();
    return false;
  }
  size_t end = text.find_first_of(delims, start);
  if (end == std::string::npos) {
    *token = text.substr(start);
    *pos = text.size();
  } else {
    *token = text.substr(start, end - start);
    *pos = end + 1;
  }
  return true;
}

void ExpandItems(const std::string& base, const std::string& list, std::vector<std::string>* out) {
  size_t pos = 0;
  std::string item;
  while (NextToken(list, ",", &pos, &item)) {
    long from = CAtoi(item);
    long to = from;
    int width = static_cast<int>(item.size());
    size_t dash = item.find('-');
    if (dash != std::string::npos) {
      to = CAtoi(item.substr(dash + 1));
      width = static_cast<int>(dash);
    }
    for (long v = from; v <= to; ++v) {
      if (out->size() >= kMaxRangeEntries) return;
      // Upstream formats into a 256-byte buffer; keep its truncation.
      char buf[256];
      snprintf(buf, sizeof(buf), "%s%0*ld", base.c_str(), width, v);
      out->push_back(buf);
    }
  }
}

}  // namespace

int CAtoi(const std::string& text) { return static_cast<int>(strtol(text.c_str(), nullptr, 10)); }

std::vector<std::string> ExpandRangeList(const std::string& arg) {
  std::vector<std::string> out;
  if (arg.empty()) return out;
  std::string base;
  size_t pos = 0;
  if (arg[0] == '[') {
    pos = 1;  // no base: "[1-4]"
  } else {
    size_t open = arg.find('[');
    base = arg.substr(0, open);
    pos = open == std::string::npos ? arg.size() : open + 1;
  }
  std::string list;
  if (!NextToken(arg, "]", &pos, &list)) {
    out.push_back(base);
    return out;
  }
  ExpandItems(base, list, &out);
  return out;
}

}  // namespace acme
}  // namespace ssa
