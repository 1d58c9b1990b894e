// sim_util.cc: file and polling helpers.
#include "test/sim/sim_util.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string_view>
#include <thread>
#include <vector>

namespace ssa {
namespace test {

Status ReadFileToString(const std::string& path, std::string* out) {
  out->clear();
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::FromErrno("cannot open " + path);
  char buf[65536];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      Status s = Status::FromErrno("cannot read " + path);
      close(fd);
      return s;
    }
    if (n == 0) break;
    out->append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return Status::Ok();
}

Status WriteStringToFile(const std::string& path, const std::string& text) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Status::FromErrno("cannot create " + path);
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      Status s = Status::FromErrno("cannot write " + path);
      close(fd);
      return s;
    }
    done += static_cast<size_t>(n);
  }
  if (close(fd) < 0) return Status::FromErrno("cannot close " + path);
  return Status::Ok();
}

std::string TailOfFile(const std::string& path, size_t max_bytes) {
  std::string text;
  if (!ReadFileToString(path, &text).ok()) return "";
  if (text.size() <= max_bytes) return text;
  size_t start = text.size() - max_bytes;
  size_t nl = text.find('\n', start);
  if (nl != std::string::npos && nl + 1 < text.size()) start = nl + 1;
  return text.substr(start);
}

bool PathExists(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

std::string Basename(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

long ProcessRssKib(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) return atol(line.c_str() + 6);
  return 0;
}

std::string JoinArgs(const std::vector<std::string>& args) {
  std::string out;
  for (const std::string& a : args) {
    if (!out.empty()) out += ' ';
    out += a;
  }
  return out;
}

int LogLineCounter::Count() {
  int fd = open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return count_;
  struct stat st;
  if (fstat(fd, &st) == 0 && st.st_size < offset_) {
    // The file was replaced or truncated: start over.
    offset_ = 0;
    partial_.clear();
    count_ = 0;
  }
  char buf[65536];
  for (;;) {
    ssize_t n = pread(fd, buf, sizeof(buf), offset_);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    offset_ += n;
    partial_.append(buf, static_cast<size_t>(n));
    size_t start = 0;
    for (size_t nl; (nl = partial_.find('\n', start)) != std::string::npos; start = nl + 1) {
      std::string_view line(partial_.data() + start, nl - start);
      if (line.find(needle_) != std::string_view::npos) ++count_;
    }
    partial_.erase(0, start);
  }
  close(fd);
  return count_;
}

}  // namespace test
}  // namespace ssa
