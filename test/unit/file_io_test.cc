// file_io: whole files replaced atomically (SMDB dumps, metrics, the path
// tables in /dev/shm, the port file) and read back.
#include "common/base/file_io.h"

#include <CppUTest/TestHarness.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "test/support/check_ok.h"
#include "test/support/temp_dir.h"

namespace {

std::vector<std::string> Entries(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  if (!d) return names;
  while (dirent* e = readdir(d))
    if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") names.push_back(e->d_name);
  closedir(d);
  return names;
}

std::string ThisThreadsTemporary(const std::string& path) {
  return path + ".tmp." + std::to_string(static_cast<long>(syscall(SYS_gettid)));
}

}  // namespace

TEST_GROUP(FileIo) {
  ssa::test::TempDir dir{"file_io_test."};
  std::string path;
  void setup() override {
    CHECK_OK(dir.status());
    path = dir.path() + "/f";
  }
};

TEST(FileIo, ReplacesTheWholeFileAndLeavesNoTemporaryBehind) {
  CHECK_OK(ssa::WriteFileAtomically(path, "first version"));
  ssa::FileWriteOptions sync;
  sync.sync = true;
  CHECK_OK(ssa::WriteFileAtomically(path, std::string(200000, 'x'), sync));
  std::string back;
  CHECK_OK(ssa::ReadWholeFile(path, &back));
  CHECK(back == std::string(200000, 'x'));
  std::vector<std::string> names = Entries(dir.path());
  LONGS_EQUAL(1, names.size());
  STRCMP_EQUAL("f", names[0].c_str());
}

TEST(FileIo, TheModeIsTheOneAskedForWhateverTheUmask) {
  mode_t old = umask(077);
  CHECK_OK(ssa::WriteFileAtomically(path, "for node_exporter"));
  ssa::FileWriteOptions mine;
  mine.mode = 0600;
  CHECK_OK(ssa::WriteFileAtomically(path + "2", "private", mine));
  umask(old);
  struct stat st;
  CHECK_EQUAL(0, stat(path.c_str(), &st));
  LONGS_EQUAL(0644, st.st_mode & 07777);
  CHECK_EQUAL(0, stat((path + "2").c_str(), &st));
  LONGS_EQUAL(0600, st.st_mode & 07777);
}

TEST(FileIo, ALinkAtTheTemporaryNameIsNeverWrittenThrough) {
  // In a world-writable directory someone may plant a link where the
  // temporary file goes; the victim it points at must stay untouched.
  std::string victim = dir.path() + "/victim";
  CHECK_OK(ssa::WriteFileAtomically(victim, "precious"));
  CHECK_EQUAL(0, symlink(victim.c_str(), ThisThreadsTemporary(path).c_str()));
  CHECK_OK(ssa::WriteFileAtomically(path, "tables"));
  std::string back;
  CHECK_OK(ssa::ReadWholeFile(victim, &back));
  STRCMP_EQUAL("precious", back.c_str());
  CHECK_OK(ssa::ReadWholeFile(path, &back));
  STRCMP_EQUAL("tables", back.c_str());
  LONGS_EQUAL(2, Entries(dir.path()).size());  // the link is gone
}

TEST(FileIo, ErrorsNameTheFileAndLeaveTheOldOneInPlace) {
  CHECK_OK(ssa::WriteFileAtomically(path, "old"));
  // A directory where the temporary file would go: creation fails.
  CHECK_EQUAL(0, mkdir(ThisThreadsTemporary(path).c_str(), 0700));
  ssa::Status s = ssa::WriteFileAtomically(path, "new");
  CHECK(!s.ok());
  STRCMP_CONTAINS(("cannot create " + ThisThreadsTemporary(path)).c_str(), s.message().c_str());
  std::string back;
  CHECK_OK(ssa::ReadWholeFile(path, &back));
  STRCMP_EQUAL("old", back.c_str());
  rmdir(ThisThreadsTemporary(path).c_str());

  s = ssa::ReadWholeFile(dir.path() + "/missing", &back);
  LONGS_EQUAL(-ENOENT, s.code());
  STRCMP_CONTAINS((dir.path() + "/missing").c_str(), s.message().c_str());
  s = ssa::WriteFileAtomically(dir.path() + "/no/such/dir", "x");
  CHECK(!s.ok());
  STRCMP_CONTAINS("no/such/dir", s.message().c_str());
}
