// status.h: the error value every fallible call inside ibacm-ssa returns.
//
// A Status is either OK or carries a negative errno-style code plus a message
// a person can act on ("acm_opts.cfg:12: unknown option 'foo'"). It is a plain
// value: copy it, return it, keep it. Safe to use from any thread.
#ifndef IBACM_SSA_COMMON_BASE_STATUS_H
#define IBACM_SSA_COMMON_BASE_STATUS_H

#include <cerrno>
#include <string>
#include <utility>

namespace ssa {

class Status {
 public:
  Status() = default;  // OK

  static Status Ok() { return Status(); }
  // `err` is an errno value, positive or negative; it is stored negative, the
  // form the provider ABI uses.
  static Status Error(int err, std::string message) {
    return Status(err > 0 ? -err : (err == 0 ? -EIO : err), std::move(message));
  }
  // errno of the call that just failed, with `what` naming the operation.
  static Status FromErrno(const std::string& what);

  bool ok() const { return code_ == 0; }
  int code() const { return code_; }
  const std::string& message() const { return message_; }
  // "OK" or "<message> (<strerror>)".
  std::string ToString() const;

  // Prefixes the message with context, e.g. the file being read.
  Status WithContext(const std::string& context) const {
    if (ok()) return *this;
    return Status(code_, context + ": " + message_);
  }

 private:
  Status(int code, std::string message) : code_(code), message_(std::move(message)) {}

  int code_ = 0;
  std::string message_;
};

}  // namespace ssa

#endif
