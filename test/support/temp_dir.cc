// temp_dir.cc: see temp_dir.h.
#include "test/support/temp_dir.h"

#include <ftw.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace ssa {
namespace test {
namespace {

bool Exists(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

int RemoveEntry(const char* path, const struct stat*, int, struct FTW*) {
  // Keep going on errors; RemoveTree reports if the top is still there.
  remove(path);
  return 0;
}

}  // namespace

std::string DefaultTempParent() {
  const char* tmp = getenv("TMPDIR");
  return tmp && *tmp ? tmp : "/tmp";
}

Status MakeTempDir(const std::string& parent, const std::string& prefix, std::string* out) {
  std::string templ = parent + "/" + prefix + "XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) return Status::FromErrno("cannot create a directory " + templ);
  *out = buf.data();
  return Status::Ok();
}

Status RemoveTree(const std::string& path) {
  if (!Exists(path)) return Status::Ok();
  nftw(path.c_str(), RemoveEntry, 16, FTW_DEPTH | FTW_PHYS);
  if (Exists(path)) return Status::Error(EIO, "cannot remove " + path + " completely");
  return Status::Ok();
}

TempDir::TempDir(const std::string& prefix) {
  status_ = MakeTempDir(DefaultTempParent(), prefix, &path_);
}

TempDir::~TempDir() {
  if (keep_ && !path_.empty() && !removed_) {
    fprintf(stderr, "kept %s\n", path_.c_str());
    return;
  }
  Remove();
}

Status TempDir::Remove() {
  if (path_.empty() || keep_ || removed_) return Status::Ok();
  removed_ = true;
  return RemoveTree(path_);
}

}  // namespace test
}  // namespace ssa
