// core_log.h: printf-style logging through the core's log op, which takes
// a format but no va_list: the message is formatted here first, then
// passed as "%s" so nothing in it is read as a format again.
#ifndef IBACM_SSA_PROVIDERS_SHARED_CORE_LOG_H
#define IBACM_SSA_PROVIDERS_SHARED_CORE_LOG_H

#include <cstdarg>
#include <cstdio>

#include <ibacm_ssa/provider.h>

namespace ssa {
namespace provider_shared {

// Messages longer than 1023 bytes are cut.
inline void CoreLogV(const ssa_core_ops* ops, ssa_core_t* core, int level, const char* fmt,
                     va_list args) {
  char buf[1024];
  vsnprintf(buf, sizeof(buf), fmt, args);
  ops->log(core, level, "%s", buf);
}

// The core's log as a value the parts of a provider keep:
// log(level, fmt, ...).
struct CoreLogger {
  const ssa_core_ops* ops;
  ssa_core_t* core;
  __attribute__((format(printf, 3, 4))) void operator()(int level, const char* fmt, ...) const {
    va_list args;
    va_start(args, fmt);
    CoreLogV(ops, core, level, fmt, args);
    va_end(args);
  }
};

// A provider's hold on the core: the ops table and handle it was made
// with, and Log(level, fmt, ...) through the core's log, for the provider
// classes to derive from (AbiGlue calls Log).
class CoreClient {
 public:
  __attribute__((format(printf, 3, 4))) void Log(int level, const char* fmt, ...) const {
    va_list args;
    va_start(args, fmt);
    CoreLogV(ops_, core_, level, fmt, args);
    va_end(args);
  }

 protected:
  CoreClient(const ssa_core_ops* ops, ssa_core_t* core) : ops_(ops), core_(core) {}

  const ssa_core_ops* ops_;
  ssa_core_t* core_;
};

}  // namespace provider_shared
}  // namespace ssa

#endif
