// federation_config.cc: see federation_config.h.
#include "common/tree/federation_config.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "common/base/text_util.h"

namespace ssa {
namespace tree {

namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Status LineError(const std::string& path, int line, const std::string& what) {
  return Status::Error(EINVAL, path + ":" + std::to_string(line) + ": " + what);
}

bool ParsePrefix(const std::string& word, uint64_t* out) {
  if (word.empty()) return false;
  char* end = nullptr;
  errno = 0;
  unsigned long long v = strtoull(word.c_str(), &end, 16);
  if (errno || *end || word[0] == '-') return false;
  *out = v;
  return true;
}

}  // namespace

Status ReadFederationKey(const std::string& path, CoreSecret* out) {
  // O_NOFOLLOW: the checks below are of the file itself, not of a link.
  int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return Status::FromErrno("key file " + path);
  struct stat sb;
  if (fstat(fd, &sb) != 0) {
    Status st = Status::FromErrno("key file " + path);
    close(fd);
    return st;
  }
  auto fail = [&](const std::string& what) {
    close(fd);
    return Status::Error(EPERM, "key file " + path + ": " + what);
  };
  if (!S_ISREG(sb.st_mode)) return fail("not a regular file");
  if (sb.st_uid != geteuid())
    return fail("owned by uid " + std::to_string(sb.st_uid) + ", not by the user OpenSM runs as (" +
                std::to_string(geteuid()) + "): chown it");
  if (sb.st_mode & 077) {
    char mode[8];
    snprintf(mode, sizeof(mode), "%04o", static_cast<unsigned>(sb.st_mode & 07777));
    return fail(std::string("mode ") + mode +
                " lets group or others read it: chmod 0600 (or 0400) it, and make a new key "
                "(whoever could read it may hold it)");
  }
  char buf[256];
  ssize_t n = read(fd, buf, sizeof(buf));
  close(fd);
  if (n < 0) return Status::FromErrno("key file " + path);
  std::string text = Trim(std::string(buf, static_cast<size_t>(n)));
  if (text.size() != 2 * out->size())
    return Status::Error(EINVAL, "key file " + path + ": expected one line of " +
                                     std::to_string(2 * out->size()) +
                                     " hex digits (openssl rand -hex 32), found " +
                                     std::to_string(text.size()) + " characters");
  CoreSecret key{};
  for (size_t i = 0; i < key.size(); ++i) {
    int hi = HexDigit(text[2 * i]), lo = HexDigit(text[2 * i + 1]);
    if (hi < 0 || lo < 0)
      return Status::Error(EINVAL, "key file " + path + ": not hex at character " +
                                       std::to_string(2 * i + (hi < 0 ? 1 : 2)));
    key[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  *out = key;
  return Status::Ok();
}

namespace {

// A peer's addresses: ADDR:PORT, or several separated by commas (no
// spaces), each with its port, none twice.
Status ParsePeerAddresses(const std::string& field, std::vector<DataAddress>* out) {
  out->clear();
  size_t from = 0;
  while (true) {
    size_t comma = field.find(',', from);
    std::string one = field.substr(from, comma == std::string::npos ? comma : comma - from);
    if (one.empty())
      return Status::Error(EINVAL, "an empty address in '" + field +
                                       "' (separate addresses with one comma, no spaces)");
    DataAddress a;
    Status st = DataAddress::Parse(one, &a);
    if (!st.ok()) return st;
    if (a.port == 0) return Status::Error(EINVAL, one + ": port 0 (give its listen port)");
    for (const DataAddress& b : *out)
      if (b.ToString() == a.ToString()) return Status::Error(EINVAL, one + " given twice");
    out->push_back(a);
    if (out->size() > kMaxPeerAddresses)
      return Status::Error(EINVAL, "more than " + std::to_string(kMaxPeerAddresses) +
                                       " addresses in '" + field + "'");
    if (comma == std::string::npos) return Status::Ok();
    from = comma + 1;
  }
}

}  // namespace

Status ParseFederationText(const std::string& text, const std::string& path,
                           FederationConfig* out) {
  FederationConfig c;
  c.path = path;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  bool have_listen = false, have_hold = false;
  std::set<std::string> names;
  std::set<uint64_t> prefixes;
  while (std::getline(in, line)) {
    ++number;
    size_t hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    std::istringstream words(line);
    std::vector<std::string> w;
    std::string word;
    while (words >> word) w.push_back(word);
    if (w.empty()) continue;
    if (w[0] == "listen") {
      if (w.size() != 2) return LineError(path, number, "expected 'listen ADDR:PORT'");
      if (have_listen) return LineError(path, number, "listen given twice");
      Status st = DataAddress::Parse(w[1], &c.listen);
      if (!st.ok()) return LineError(path, number, "listen: " + st.message());
      have_listen = true;
    } else if (w[0] == "hold_s") {
      char* end = nullptr;
      long v = w.size() == 2 ? strtol(w[1].c_str(), &end, 10) : -1;
      if (w.size() != 2 || *end || v < 1 || v > 86400)
        return LineError(path, number, "expected 'hold_s SECONDS' with 1 to 86400 seconds");
      if (have_hold) return LineError(path, number, "hold_s given twice");
      c.hold_s = static_cast<int>(v);
      have_hold = true;
    } else if (w[0] == "peer") {
      if (w.size() != 5)
        return LineError(path, number,
                         "expected 'peer NAME ADDR:PORT[,ADDR:PORT...] SUBNET-PREFIX KEY-FILE'");
      FederationPeer p;
      p.name = w[1];
      p.line = number;
      if (!names.insert(p.name).second)
        return LineError(path, number, "peer name '" + p.name + "' used twice");
      Status st = ParsePeerAddresses(w[2], &p.addresses);
      if (!st.ok()) return LineError(path, number, "peer " + p.name + ": " + st.message());
      if (!ParsePrefix(w[3], &p.prefix) || p.prefix == 0)
        return LineError(path, number,
                         "peer " + p.name + ": '" + w[3] +
                             "' is not a subnet prefix (hex, e.g. 0xfec0000000000002)");
      if (IsLinkLocalPrefix(p.prefix))
        return LineError(path, number,
                         "peer " + p.name +
                             ": a prefix in fe80::/10 is link-local, the same in every subnet; "
                             "give the peer's OpenSM another subnet_prefix");
      if (!prefixes.insert(p.prefix).second)
        return LineError(path, number, "peer " + p.name + ": prefix " + w[3] + " used twice");
      p.key_file = w[4];
      st = ReadFederationKey(p.key_file, &p.key);
      if (!st.ok()) return LineError(path, number, st.message());
      c.peers.push_back(p);
    } else {
      return LineError(path, number,
                       "unknown keyword '" + w[0] + "' (expected listen, hold_s or peer)");
    }
  }
  if (!have_listen) return Status::Error(EINVAL, path + ": no 'listen ADDR:PORT' line");
  if (c.peers.empty()) return Status::Error(EINVAL, path + ": no 'peer' line");
  *out = c;
  return Status::Ok();
}

Status ReadFederationFile(const std::string& path, FederationConfig* out) {
  std::ifstream in(path);
  if (!in) return Status::FromErrno("federation_file " + path);
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) return Status::FromErrno("federation_file " + path);
  return ParseFederationText(text.str(), path, out);
}

}  // namespace tree
}  // namespace ssa
