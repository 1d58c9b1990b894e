// config_file.cc: INI through inih (with our own line-counting reader, since
// Debian's inih is built without INI_HANDLER_LINENO) and upstream
// "name value" files through a small tokenizer.
#include "common/base/config_file.h"
#include "common/base/text_util.h"

#include <ini.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>

namespace ssa {

namespace {

// Feeds inih one line at a time from a string and remembers which line it is.
struct LineReader {
  const std::string* text;
  size_t pos = 0;
  int line = 0;
  bool at_line_start = true;
};

char* ReadLine(char* str, int num, void* stream) {
  auto* r = static_cast<LineReader*>(stream);
  if (r->pos >= r->text->size() || num <= 1) return nullptr;
  if (r->at_line_start) ++r->line;
  size_t room = static_cast<size_t>(num - 1);
  size_t end = r->text->find('\n', r->pos);
  size_t len = (end == std::string::npos ? r->text->size() : end + 1) - r->pos;
  if (len > room) len = room;
  std::memcpy(str, r->text->data() + r->pos, len);
  str[len] = '\0';
  r->pos += len;
  r->at_line_start = len > 0 && str[len - 1] == '\n';
  return str;
}

struct IniState {
  ConfigFile* file;
  LineReader* reader;
  std::vector<ConfigEntry>* entries;
};

int OnIniEntry(void* user, const char* section, const char* name, const char* value) {
  auto* st = static_cast<IniState*>(user);
  if (!name) return 1;  // a bare [section] header
  // "= value" or ": value": inih hands over an empty name. Which option was
  // meant nobody can tell: a syntax error on that line, not a silent entry.
  if (!*name) return 0;
  st->entries->push_back(
      ConfigEntry{section ? section : "", name, value ? value : "", st->reader->line});
  return 1;
}

}  // namespace

// Only the name and the start of what follows it tell the formats apart: an
// upstream value may itself contain '=' (a path, a list), so "log_file
// /var/log/a=b" is an upstream line, while "key = value", "key=value" and
// inih's "key: value" are INI.
bool ConfigFile::LooksUpstream(const std::string& text) {
  std::istringstream in(text);
  std::string raw;
  bool saw_option = false;
  while (std::getline(in, raw)) {
    std::string line = Trim(raw);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line[0] == '[') return false;
    size_t name_end = line.find_first_of(" \t");
    if (line.find_first_of("=:") < name_end) return false;  // in the name
    if (name_end != std::string::npos) {
      std::string rest = Trim(line.substr(name_end));
      if (!rest.empty() && (rest[0] == '=' || rest[0] == ':')) return false;
    }
    saw_option = true;
  }
  return saw_option;
}

Status ConfigFile::Load(const std::string& path, ConfigFile* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::FromErrno("cannot open config file " + path);
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) return Status::FromErrno("cannot read config file " + path);
  return Parse(buf.str(), path, out);
}

Status ConfigFile::Parse(const std::string& text, const std::string& name, ConfigFile* out) {
  *out = ConfigFile();
  out->name_ = name;
  if (text.find('\0') != std::string::npos)
    return Status::Error(EINVAL, name + ": binary data (NUL byte) in a config file");
  if (LooksUpstream(text)) {
    out->format_ = Format::kUpstream;
    return ParseUpstream(text, out);
  }
  out->format_ = Format::kIni;
  return ParseIni(text, out);
}

Status ConfigFile::ParseIni(const std::string& text, ConfigFile* out) {
  LineReader reader;
  reader.text = &text;
  IniState state{out, &reader, &out->entries_};
  int rc = ini_parse_stream(ReadLine, &reader, OnIniEntry, &state);
  if (rc > 0)
    return Status::Error(EINVAL, out->name_ + ":" + std::to_string(rc) +
                                     ": syntax error (expected [section] or key = value)");
  if (rc < 0) return Status::Error(ENOMEM, out->name_ + ": out of memory while parsing");
  return Status::Ok();
}

Status ConfigFile::ParseUpstream(const std::string& text, ConfigFile* out) {
  std::istringstream in(text);
  std::string raw;
  int line_no = 0;
  while (std::getline(in, raw)) {
    ++line_no;
    std::string line = Trim(raw);
    if (line.empty() || line[0] == '#') continue;
    size_t sep = line.find_first_of(" \t");
    if (sep == std::string::npos)
      return Status::Error(EINVAL, out->name_ + ":" + std::to_string(line_no) + ": option '" +
                                       line + "' has no value");
    out->entries_.push_back(
        ConfigEntry{"", line.substr(0, sep), Trim(line.substr(sep + 1)), line_no});
  }
  return Status::Ok();
}

std::vector<ConfigEntry> ConfigFile::Section(const std::string& section) const {
  std::vector<ConfigEntry> result;
  for (const auto& e : entries_)
    if (e.section == section) result.push_back(e);
  return result;
}

const ConfigEntry* ConfigFile::Find(const std::string& section, const std::string& key) const {
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it)
    if (it->section == section && it->key == key) return &*it;
  return nullptr;
}

std::vector<std::string> ConfigFile::SectionNames() const {
  std::vector<std::string> names;
  for (const auto& e : entries_)
    if (std::find(names.begin(), names.end(), e.section) == names.end()) names.push_back(e.section);
  return names;
}

}  // namespace ssa
