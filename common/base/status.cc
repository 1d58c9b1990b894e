// status.cc: Status helpers that need libc.
#include "common/base/status.h"

#include <cstring>

namespace ssa {

Status Status::FromErrno(const std::string& what) {
  int err = errno;
  return Error(err ? err : EIO, what);
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  return message_ + " (" + std::strerror(-code_) + ")";
}

}  // namespace ssa
