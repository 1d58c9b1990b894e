// file_io.cc: see file_io.h.
#include "common/base/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/base/raw_fd.h"

namespace ssa {

namespace {

Status Failed(int err, const std::string& what) {
  return Status::Error(err, what + ": " + strerror(err));
}

int CreateExclusively(int dirfd, const std::string& tmp, mode_t mode, bool keep) {
  const int flags = O_CREAT | O_EXCL | (keep ? O_RDWR : O_WRONLY) | O_NOFOLLOW | O_CLOEXEC;
  int fd = openat(dirfd, tmp.c_str(), flags, mode);
  if (fd < 0 && errno == EEXIST && unlinkat(dirfd, tmp.c_str(), 0) == 0)
    fd = openat(dirfd, tmp.c_str(), flags, mode);
  return fd;
}

}  // namespace

Status WriteFileAtomically(const std::string& path, const std::string& bytes,
                           const FileWriteOptions& options) {
  return WriteFileAtomicallyAt(AT_FDCWD, path, bytes, options, nullptr);
}

Status WriteFileAtomicallyAt(int dirfd, const std::string& path, const std::string& bytes,
                             const FileWriteOptions& options, int* keep) {
  std::string tmp = path + ".tmp." + std::to_string(static_cast<long>(syscall(SYS_gettid)));
  int fd = CreateExclusively(dirfd, tmp, options.mode, keep != nullptr);
  if (fd < 0) return Failed(errno, "cannot create " + tmp);
  int err = 0;
  size_t done = 0;
  while (done < bytes.size() && err == 0) {
    ssize_t n = RawWrite(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      err = n < 0 ? errno : EIO;
    else
      done += static_cast<size_t>(n);
  }
  if (err == 0 && fchmod(fd, options.mode) != 0) err = errno;
  if (err == 0 && options.sync && fsync(fd) != 0) err = errno;
  // Closed before the rename unless kept: a close error means a file not
  // written whole, which must not be published.
  if (!keep && RawClose(fd) != 0 && err == 0) err = errno;
  if (err != 0) {
    if (keep) RawClose(fd);
    unlinkat(dirfd, tmp.c_str(), 0);
    return Failed(err, "cannot write " + tmp);
  }
  if (renameat(dirfd, tmp.c_str(), dirfd, path.c_str()) != 0) {
    err = errno;
    if (keep) RawClose(fd);
    unlinkat(dirfd, tmp.c_str(), 0);
    return Failed(err, "cannot rename " + tmp + " to " + path);
  }
  if (keep) *keep = fd;
  return Status::Ok();
}

Status ReadWholeFile(const std::string& path, std::string* bytes) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Failed(errno, "cannot open " + path);
  std::string data;
  char buf[1 << 16];
  for (;;) {
    ssize_t n = RawRead(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      RawClose(fd);
      return Failed(err, "cannot read " + path);
    }
    if (n == 0) break;
    data.append(buf, static_cast<size_t>(n));
  }
  RawClose(fd);
  *bytes = std::move(data);
  return Status::Ok();
}

Status MakeDirs(const std::string& dir) {
  std::string path;
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = dir.find('/', pos + 1);
    path = dir.substr(0, pos);
    if (path.empty()) continue;
    if (mkdir(path.c_str(), 0755) != 0 && errno != EEXIST)
      return Status::FromErrno("cannot create directory " + path);
  }
  struct stat st;
  if (stat(dir.c_str(), &st) != 0) return Status::FromErrno("cannot stat " + dir);
  if (!S_ISDIR(st.st_mode)) return Status::Error(ENOTDIR, dir + " is not a directory");
  if (access(dir.c_str(), W_OK | X_OK) != 0) return Status::FromErrno("cannot write to " + dir);
  return Status::Ok();
}

}  // namespace ssa
