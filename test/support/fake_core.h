// fake_core.h: a fake of the core's side of the provider ABI (struct
// ssa_core_ops, include/ibacm_ssa/provider.h) for the tests that drive a
// provider through its ops table: the loader's tests (testprov), the sa
// provider's (sa_provider_fake_core.h) and the acmp provider's
// (acmp_fake_fabric.h).
//
// Hand a provider's init() FakeCore::kOps and handle(); every call then
// lands on this object. By default it records what the provider did
// (logs, config warnings, answers, counters, SA MADs, timers) and refuses
// fd watches; a test that needs a live service (a loop's timers and fds,
// an SA that answers) derives from it and overrides the service.
//
// No CppUTest here: a test checks what was recorded. One thread.
#ifndef IBACM_SSA_TEST_SUPPORT_FAKE_CORE_H
#define IBACM_SSA_TEST_SUPPORT_FAKE_CORE_H

#include <infiniband/acm.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <ibacm_ssa/provider.h>

namespace ssa {
namespace test {

class FakeCore {
 public:
  // One request's answer (resolve_done or query_done).
  struct Answer {
    uint8_t status = 0;
    bool has_path = false;
    ibv_path_record path{};
    bool is_query = false;  // through query_done
    int times = 0;          // answers given: a provider must answer once
  };
  // One option config_foreach hands out.
  struct Option {
    std::string key, value, file;
    int line = 0;
  };
  // One SA MAD the provider sent (the default SaSend).
  struct Sent {
    std::vector<uint8_t> mad;
    ssa_sa_done_fn done = nullptr;
    void* arg = nullptr;
    bool completed = false;  // for the test that completes it
  };
  // One timer the provider asked for (the default TimerAdd); its id is
  // its index + 1. Firing it is the test's business.
  struct Timer {
    ssa_timer_fn fn = nullptr;
    void* arg = nullptr;
    bool live = true;  // false once cancelled
  };

  // The ops table: each entry calls the service below of the FakeCore
  // behind the ssa_core_t handle.
  static const ssa_core_ops kOps;

  FakeCore() = default;
  virtual ~FakeCore() = default;
  FakeCore(const FakeCore&) = delete;
  FakeCore& operator=(const FakeCore&) = delete;

  ssa_core_t* handle() { return reinterpret_cast<ssa_core_t*>(this); }

  // config_foreach's options: `kv` in order, from `file`, the first at
  // line `first_line`.
  void SetOptions(const std::string& file, int first_line,
                  const std::vector<std::pair<std::string, std::string>>& kv);

  // What the provider did.
  std::vector<std::string> logs;             // every log line, formatted
  std::vector<std::string> config_warnings;  // "file:line: message"
  std::map<uint64_t, Answer> answers;        // by request id
  uint64_t counters[ACM_MAX_COUNTER] = {};   // counter_add
  std::vector<Sent> sent;                    // the default SaSend
  std::vector<Timer> timers;                 // the default TimerAdd
  // Given to config_foreach.
  std::vector<Option> options;
  // What the default SaSend returns (0: the MAD is taken).
  int sa_send_rc = 0;
  // What config_format says the options' file was (SetOptions' options
  // are read as an INI section's).
  int config_format = SSA_CONFIG_INI;

 protected:
  // The services, called through kOps.
  virtual void Log(int level, const std::string& line);
  virtual void ConfigWarn(const std::string& text);
  // Records `sent` and returns sa_send_rc (nothing is recorded unless 0).
  virtual int SaSend(ssa_core_port_t* port, const uint8_t* mad, size_t len, ssa_sa_done_fn done,
                     void* arg);
  // Records a Timer; cancelling marks it not live.
  virtual uint64_t TimerAdd(uint32_t delay_ms, ssa_timer_fn fn, void* arg);
  virtual int TimerCancel(uint64_t id);
  // -ENOTSUP: no loop to watch on.
  virtual int FdWatch(int fd, uint32_t events, ssa_fd_fn fn, void* arg);
  virtual int FdUnwatch(int fd);

 private:
  struct Thunks;  // the kOps entries
  int Record(uint64_t id, uint8_t status, const ibv_path_record* path, bool is_query);
};

}  // namespace test
}  // namespace ssa

#endif
