// temp_dir.h: the tests' temporary directories, in one place for every test
// program (unit, simulated fabric, benchmarks): where they go ($TMPDIR),
// how they are made (mkdtemp) and removed (rm -rf that never follows a
// symlink), and TempDir, a directory a test or fixture owns.
//
// Plain functions and one class owned by its user; no global state.
#ifndef IBACM_SSA_TEST_SUPPORT_TEMP_DIR_H
#define IBACM_SSA_TEST_SUPPORT_TEMP_DIR_H

#include <string>

#include "common/base/status.h"

namespace ssa {
namespace test {

// $TMPDIR if set and non-empty, else /tmp.
std::string DefaultTempParent();
// mkdtemp("<parent>/<prefix>XXXXXX").
Status MakeTempDir(const std::string& parent, const std::string& prefix, std::string* out);
// rm -rf that never follows symlinks. A missing path is not an error.
Status RemoveTree(const std::string& path);

// A fresh directory DefaultTempParent()/<prefix>XXXXXX, removed with its
// content by Remove() or else by the destructor, unless keep() was called
// (a failed test's evidence: the destructor then prints where it is).
//
// A fixture checks what a bare mkdtemp() check did: CHECK_OK(dir.status())
// in setup(), and CHECK_OK(dir.Remove()) in teardown() where removing it
// must not fail.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "ssa-test.");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  // Empty when the directory could not be made (see status()).
  const std::string& path() const { return path_; }
  // OK once the directory exists; else why mkdtemp failed.
  const Status& status() const { return status_; }
  void keep() { keep_ = true; }
  // Removes the directory now (a no-op after keep() or a first Remove()).
  Status Remove();

 private:
  std::string path_;
  Status status_;
  bool keep_ = false;
  bool removed_ = false;
};

}  // namespace test
}  // namespace ssa

#endif
