// version_store.cc: VersionStore (see version_store.h).
#include "opensm_plugin/version_store.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <set>

#include "common/base/file_io.h"

namespace ssa {
namespace opensm_plugin {
namespace {

// Parses all-digit `s` (no sign, no blanks) into *out.
bool ParseEpoch(const std::string& s, uint64_t* out) {
  if (s.empty() || s.size() > 20) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  errno = 0;
  unsigned long long v = strtoull(s.c_str(), nullptr, 10);
  if (errno) return false;
  *out = v;
  return true;
}

// Opened with open() and fdopendir() rather than opendir(): ThreadSanitizer
// does not see opendir() create a descriptor, so the closedir() of a
// number another thread used just before looked like a race with it (a
// report in osm_plugin_tests, the extraction thread pruning while the test
// read a version).
template <class F>
void ForEachEntry(const std::string& dir, F&& f) {
  int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  DIR* d = fdopendir(fd);
  if (!d) {
    close(fd);
    return;
  }
  while (struct dirent* e = readdir(d)) f(std::string(e->d_name));
  closedir(d);
}

}  // namespace

Status VersionStore::Open(const std::string& dir, int keep, VersionStore* out) {
  std::string d = dir;
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  Status st = MakeDirs(d);
  if (!st.ok()) return st;
  out->dir_ = d;
  out->keep_ = keep;
  return Status::Ok();
}

std::string VersionStore::VersionPath(uint64_t epoch) const {
  return dir_ + "/smdb." + std::to_string(epoch);
}

std::string VersionStore::DeltaPath(uint64_t from, uint64_t to) const {
  return dir_ + "/delta." + std::to_string(from) + "-" + std::to_string(to);
}

Status VersionStore::LoadLatest(smdb::Smdb* out, bool* found) const {
  *found = false;
  struct stat st;
  if (lstat(LatestPath().c_str(), &st) != 0) {
    if (errno == ENOENT) return Status::Ok();
    return Status::FromErrno("cannot stat " + LatestPath());
  }
  Status s = smdb::Smdb::ReadFile(LatestPath(), out);
  if (!s.ok()) return s;
  *found = true;
  return Status::Ok();
}

Status VersionStore::LoadVersion(uint64_t epoch, smdb::Smdb* out) const {
  return smdb::Smdb::ReadFile(VersionPath(epoch), out);
}

bool VersionStore::LatestTarget(uint64_t* epoch) const {
  char buf[256];
  ssize_t n = readlink(LatestPath().c_str(), buf, sizeof(buf) - 1);
  if (n <= 0) return false;
  std::string target(buf, static_cast<size_t>(n));
  size_t slash = target.rfind('/');
  if (slash != std::string::npos) target = target.substr(slash + 1);
  return target.compare(0, 5, "smdb.") == 0 && ParseEpoch(target.substr(5), epoch);
}

std::vector<uint64_t> VersionStore::ListVersions() const {
  std::vector<uint64_t> epochs;
  ForEachEntry(dir_, [&](const std::string& name) {
    uint64_t e;
    if (name.compare(0, 5, "smdb.") == 0 && ParseEpoch(name.substr(5), &e)) epochs.push_back(e);
  });
  std::sort(epochs.begin(), epochs.end());
  return epochs;
}

Status VersionStore::Write(uint64_t epoch, const std::string& bytes, const std::string* delta,
                           uint64_t from_epoch, const std::string* text) {
  Status st = WriteFileAtomically(VersionPath(epoch), bytes);
  if (!st.ok()) return st;
  if (delta) {
    st = WriteFileAtomically(DeltaPath(from_epoch, epoch), *delta);
    if (!st.ok()) return st;
  }
  if (text) {
    st = WriteFileAtomically(VersionPath(epoch) + ".txt", *text);
    if (!st.ok()) return st;
  }
  // A relative target keeps the directory relocatable.
  std::string tmp = LatestPath() + ".tmp." + std::to_string(getpid());
  unlink(tmp.c_str());
  std::string target = "smdb." + std::to_string(epoch);
  if (symlink(target.c_str(), tmp.c_str()) != 0) return Status::FromErrno("cannot create " + tmp);
  if (rename(tmp.c_str(), LatestPath().c_str()) != 0) {
    st = Status::FromErrno("cannot rename " + tmp + " to " + LatestPath());
    unlink(tmp.c_str());
    return st;
  }
  std::vector<std::string> errors;
  Prune(&errors);
  if (!errors.empty()) return Status::Error(EIO, "pruning " + dir_ + ": " + errors.front());
  return Status::Ok();
}

void VersionStore::Prune(std::vector<std::string>* errors) {
  if (keep_ <= 0) return;
  std::vector<uint64_t> epochs = ListVersions();
  if (epochs.size() <= static_cast<size_t>(keep_)) return;
  std::set<uint64_t> kept(epochs.end() - keep_, epochs.end());
  // Whatever `latest` points to stays too, even when it is not among the
  // newest (written by a run whose epochs did not continue from ours).
  uint64_t latest;
  if (LatestTarget(&latest)) kept.insert(latest);
  auto remove = [&](const std::string& name) {
    std::string path = dir_ + "/" + name;
    if (unlink(path.c_str()) != 0 && errno != ENOENT)
      errors->push_back(Status::FromErrno("cannot remove " + path).ToString());
  };
  ForEachEntry(dir_, [&](const std::string& name) {
    uint64_t e, from;
    if (name.compare(0, 5, "smdb.") == 0) {
      std::string rest = name.substr(5);
      size_t dot = rest.find('.');
      if (ParseEpoch(rest.substr(0, dot), &e) && !kept.count(e) &&
          (dot == std::string::npos || rest.substr(dot) == ".txt"))
        remove(name);
    } else if (name.compare(0, 6, "delta.") == 0) {
      std::string rest = name.substr(6);
      size_t dash = rest.find('-');
      // A delta is useful only while its result version is kept.
      if (dash != std::string::npos && ParseEpoch(rest.substr(0, dash), &from) &&
          ParseEpoch(rest.substr(dash + 1), &e) && !kept.count(e))
        remove(name);
    }
  });
}

}  // namespace opensm_plugin
}  // namespace ssa
