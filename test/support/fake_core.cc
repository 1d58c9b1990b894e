// fake_core.cc: see fake_core.h.
#include "test/support/fake_core.h"

#include <cerrno>
#include <cstdarg>
#include <cstdio>

namespace ssa {
namespace test {

// The C entry points of kOps: each finds its FakeCore behind the handle.
struct FakeCore::Thunks {
  static FakeCore* Of(ssa_core_t* core) { return reinterpret_cast<FakeCore*>(core); }

  [[gnu::format(printf, 3, 4)]] static void Log(ssa_core_t* core, int level, const char* fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    Of(core)->Log(level, buf);
  }
  static int ResolveDone(ssa_core_t* core, uint64_t id, uint8_t status,
                         const ibv_path_record* path) {
    return Of(core)->Record(id, status, path, false);
  }
  static int QueryDone(ssa_core_t* core, uint64_t id, uint8_t status, const ibv_path_record* path) {
    return Of(core)->Record(id, status, path, true);
  }
  static int SaSend(ssa_core_t* core, ssa_core_port_t* port, const uint8_t* mad, size_t len,
                    ssa_sa_done_fn done, void* arg) {
    return Of(core)->SaSend(port, mad, len, done, arg);
  }
  static uint64_t TimerAdd(ssa_core_t* core, uint32_t delay_ms, ssa_timer_fn fn, void* arg) {
    return Of(core)->TimerAdd(delay_ms, fn, arg);
  }
  static int TimerCancel(ssa_core_t* core, uint64_t id) { return Of(core)->TimerCancel(id); }
  static int FdWatch(ssa_core_t* core, int fd, uint32_t events, ssa_fd_fn fn, void* arg) {
    return Of(core)->FdWatch(fd, events, fn, arg);
  }
  static int FdUnwatch(ssa_core_t* core, int fd) { return Of(core)->FdUnwatch(fd); }
  static int ConfigForeach(ssa_core_t* core, ssa_config_fn fn, void* arg) {
    for (const Option& o : Of(core)->options)
      if (fn(arg, o.key.c_str(), o.value.c_str(), o.file.c_str(), o.line)) break;
    return 0;
  }
  static void ConfigWarn(ssa_core_t* core, const char* file, int line, const char* msg) {
    Of(core)->ConfigWarn(std::string(file) + ":" + std::to_string(line) + ": " + msg);
  }
  static void CounterAdd(ssa_core_t* core, int counter, uint64_t delta) {
    Of(core)->counters[counter] += delta;
  }
  static int ConfigFormat(ssa_core_t* core) { return Of(core)->config_format; }
};

const ssa_core_ops FakeCore::kOps = {
    sizeof(ssa_core_ops), SSA_PROV_ABI_MAJOR, SSA_PROV_ABI_MINOR,   Thunks::Log,
    Thunks::ResolveDone,  Thunks::QueryDone,  Thunks::SaSend,       Thunks::TimerAdd,
    Thunks::TimerCancel,  Thunks::FdWatch,    Thunks::FdUnwatch,    Thunks::ConfigForeach,
    Thunks::ConfigWarn,   Thunks::CounterAdd, Thunks::ConfigFormat,
};

void FakeCore::SetOptions(const std::string& file, int first_line,
                          const std::vector<std::pair<std::string, std::string>>& kv) {
  options.clear();
  int line = first_line;
  for (const auto& p : kv) options.push_back({p.first, p.second, file, line++});
}

int FakeCore::Record(uint64_t id, uint8_t status, const ibv_path_record* path, bool is_query) {
  Answer& a = answers[id];
  a.status = status;
  a.has_path = path != nullptr;
  if (path) a.path = *path;
  a.is_query = is_query;
  // The core refuses a second answer to one request.
  return ++a.times == 1 ? 0 : -EALREADY;
}

void FakeCore::Log(int, const std::string& line) { logs.push_back(line); }

void FakeCore::ConfigWarn(const std::string& text) { config_warnings.push_back(text); }

int FakeCore::SaSend(ssa_core_port_t*, const uint8_t* mad, size_t len, ssa_sa_done_fn done,
                     void* arg) {
  if (sa_send_rc) return sa_send_rc;
  sent.push_back({std::vector<uint8_t>(mad, mad + len), done, arg});
  return 0;
}

uint64_t FakeCore::TimerAdd(uint32_t, ssa_timer_fn fn, void* arg) {
  timers.push_back({fn, arg, true});
  return timers.size();
}

int FakeCore::TimerCancel(uint64_t id) {
  timers.at(id - 1).live = false;  // an id never given fails the test
  return 0;
}

int FakeCore::FdWatch(int, uint32_t, ssa_fd_fn, void*) { return -ENOTSUP; }

int FakeCore::FdUnwatch(int) { return -ENOTSUP; }

}  // namespace test
}  // namespace ssa
