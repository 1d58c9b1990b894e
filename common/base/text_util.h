// text_util.h: small string helpers shared by every parser in the project
// (config files, address files, OpenSM dumps, net files) and by the
// messages of the wire codecs. Pure functions.
#ifndef IBACM_SSA_COMMON_BASE_TEXT_UTIL_H
#define IBACM_SSA_COMMON_BASE_TEXT_UTIL_H

#include <cstdint>
#include <string>

namespace ssa {

// `s` without leading and trailing blanks (space, tab, CR, LF).
inline std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

// "0x1f": how error messages and logs show a number that is read in hex
// (codes, fields, flags).
inline std::string HexText(unsigned value) {
  static const char kDigits[] = "0123456789abcdef";
  std::string digits;
  do {
    digits.insert(digits.begin(), kDigits[value & 0xf]);
    value >>= 4;
  } while (value);
  return "0x" + digits;
}

// "0x0002c90300a1b2c3": a GUID as OpenSM's files and logs write it (16
// hex digits), so it reads back as it is written there.
inline std::string GuidText(uint64_t guid) {
  std::string s = "0x0000000000000000";
  static const char kDigits[] = "0123456789abcdef";
  for (int i = 17; i >= 2; --i, guid >>= 4) s[static_cast<size_t>(i)] = kDigits[guid & 0xf];
  return s;
}

}  // namespace ssa

#endif
