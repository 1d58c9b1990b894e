// check_targets.cc: provider-test destinations (see check_targets.h).
#include "util/ib_acme/check_targets.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "util/ib_acme/acme_address.h"
#include "util/ib_acme/path_compare.h"
#include "util/ib_acme/range_list.h"

namespace ssa {
namespace acme {

namespace {

bool ParseNumber(const std::string& text, unsigned long* v) {
  if (text.empty() || text[0] == '-' || text[0] == '+') return false;
  char* end = nullptr;
  *v = strtoul(text.c_str(), &end, 0);
  return *end == '\0';
}

AddrFormat Guess(const std::string& text) {
  unsigned long v;
  if (ParseNumber(text, &v)) return AddrFormat::kLid;
  acm::EpAddr scratch;
  if (ParseIpAddress(text, &scratch)) return AddrFormat::kIp;
  return AddrFormat::kName;
}

// The line without its comment, split into words.
std::vector<std::string> Words(const std::string& line) {
  std::istringstream in(line.substr(0, line.find('#')));
  std::vector<std::string> words;
  std::string w;
  while (in >> w) words.push_back(w);
  return words;
}

Status ReadFile(const std::string& path, std::string* text) {
  std::ifstream in(path);
  if (!in) return Status::FromErrno("cannot open " + path);
  std::ostringstream all;
  all << in.rdbuf();
  *text = all.str();
  return Status::Ok();
}

}  // namespace

std::string TestTarget::Label() const {
  switch (format) {
    case AddrFormat::kLid: return "lid " + std::to_string(lid);
    case AddrFormat::kGid: return "gid " + GidToText(gid);
    case AddrFormat::kIp: return "ip " + text;
    default: return "name " + text;
  }
}

Status MakeTarget(const std::string& text, AddrFormat format, TestTarget* out) {
  *out = TestTarget();
  out->text = text;
  out->format = format == AddrFormat::kUnspecified ? Guess(text) : format;
  unsigned long v = 0;
  switch (out->format) {
    case AddrFormat::kLid:
      if (!ParseNumber(text, &v) || v < 1 || v > 0xbfff)
        return Status::Error(EINVAL, "'" + text + "' is not a unicast LID (1..0xbfff)");
      out->lid = static_cast<uint16_t>(v);
      return Status::Ok();
    case AddrFormat::kGid:
      if (!ParseGid(text, &out->gid)) return Status::Error(EINVAL, "'" + text + "' is not a GID");
      return Status::Ok();
    case AddrFormat::kIp:
      if (!ParseIpAddress(text, &out->address))
        return Status::Error(EINVAL, "'" + text + "' is not an IP address");
      return Status::Ok();
    default:
      if (text.empty() || !out->address.SetName(text) || text.size() >= acm::kMaxAddress)
        return Status::Error(EINVAL, "'" + text + "' is not a usable name (1..63 characters)");
      return Status::Ok();
  }
}

Status ParseDestinationText(const std::string& text, const std::string& name, AddrFormat format,
                            std::vector<TestTarget>* out) {
  std::istringstream in(text);
  std::string line;
  for (int line_no = 1; std::getline(in, line); ++line_no) {
    for (const std::string& word : Words(line)) {
      for (const std::string& dest : ExpandRangeList(word)) {
        TestTarget t;
        Status st = MakeTarget(dest, format, &t);
        if (!st.ok()) return st.WithContext(name + ":" + std::to_string(line_no));
        out->push_back(t);
      }
    }
  }
  return Status::Ok();
}

Status ParseHostsText(const std::string& text, const std::string& name,
                      std::vector<TestTarget>* out) {
  std::istringstream in(text);
  std::string line;
  for (int line_no = 1; std::getline(in, line); ++line_no) {
    std::vector<std::string> words = Words(line);
    if (words.empty()) continue;
    TestTarget t;
    Status st = MakeTarget(
        words[0], Guess(words[0]) == AddrFormat::kIp ? AddrFormat::kIp : AddrFormat::kName, &t);
    if (!st.ok()) return st.WithContext(name + ":" + std::to_string(line_no));
    if (words.size() >= 2 && ParseGid(words[1], &t.expected_dgid)) t.has_expected_dgid = true;
    out->push_back(t);
  }
  return Status::Ok();
}

Status BuildTargets(const AcmeOptions& options, std::vector<TestTarget>* out) {
  out->clear();
  if (options.has_dest) {
    Status st = ParseDestinationText(options.dest_arg, "-d", options.addr_format, out);
    if (!st.ok()) return st;
  }
  const ProviderTestOptions& t = options.test;
  std::string text;
  if (!t.dest_file.empty()) {
    Status st = ReadFile(t.dest_file, &text);
    if (st.ok()) st = ParseDestinationText(text, t.dest_file, options.addr_format, out);
    if (!st.ok()) return st;
  }
  if (!t.hosts_file.empty()) {
    Status st = ReadFile(t.hosts_file, &text);
    if (st.ok()) st = ParseHostsText(text, t.hosts_file, out);
    if (!st.ok()) return st;
  }
  if (t.has_lid_range) {
    for (unsigned lid = t.lid_first; lid <= t.lid_last; ++lid) {
      TestTarget target;
      MakeTarget(std::to_string(lid), AddrFormat::kLid, &target);
      out->push_back(target);
    }
  }
  if (out->empty()) return Status::Error(EINVAL, "no destinations to test");
  return Status::Ok();
}

}  // namespace acme
}  // namespace ssa
