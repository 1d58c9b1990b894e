// provider_host.h: runs the loaded providers: init/fini, the core-services
// table (struct ssa_core_ops) they call back into, and the table of
// outstanding resolve/query requests that guarantees one answer per id.
//
// Owned by the daemon; borrows the loop, logger, config file, counters and
// the loaded providers (all must outlive it). Loop thread only; the C
// callbacks providers make land here on the loop thread too. No exception
// leaves an op of the table: each returns an error code instead (-ENOMEM
// when out of memory, 0 from timer_add), as a provider written in C needs.
#ifndef IBACM_SSA_CORE_PROVIDER_HOST_H
#define IBACM_SSA_CORE_PROVIDER_HOST_H

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <ibacm_ssa/provider.h>
#include "common/base/config_file.h"
#include "common/base/event_loop.h"
#include "common/base/log.h"
#include "common/base/option_set.h"
#include "common/base/status.h"
#include "core/core_model.h"

struct ssa_core;

namespace ssa {

class LoadedProvider;

// One initialised provider.
class ProviderInstance {
 public:
  const std::string& name() const { return name_; }
  const ssa_provider* table() const { return table_; }
  const LoadedProvider* loaded() const { return loaded_; }
  void* ctx() const { return ctx_; }
  // Optional ops, checked by size and presence (ABI rule).
  bool has_port_changed() const;
  bool has_port_event() const;  // 1.1
  bool has_query() const;
  bool has_query_perf() const;
  bool has_collect_metrics() const;  // 1.4
  // The provider's device context for `device`, opened on first use.
  Status DeviceContext(const CoreDevice& device, void** dev_ctx);
  void CloseDevices();
  // Its options' effective values, as it reported them (config_value, 1.5).
  const std::vector<OptionValue>& config_values() const { return config_values_; }

 private:
  friend class ProviderHost;
  std::string name_;
  const ssa_provider* table_ = nullptr;
  const LoadedProvider* loaded_ = nullptr;
  void* ctx_ = nullptr;
  std::unique_ptr<::ssa_core> core_handle_;
  std::map<std::string, void*> devices_;
  std::vector<OptionValue> config_values_;
};

class ProviderHost {
 public:
  // What the dispatcher needs to answer a request later.
  struct PendingRequest {
    uint64_t client = 0;
    std::vector<uint8_t> request;  // the client's message, for the reply
    bool is_query = false;
    bool source_selected = false;  // the client gave no source: echo ours
    ssa_address source{};
    EventLoop::Clock::time_point started;
    // Set for requests from inside the daemon (the kernel's): called with
    // the answer instead of a reply to `client`.
    std::function<void(uint8_t status, const ibv_path_record* path)> done;
  };
  using AnswerFn =
      std::function<void(PendingRequest&& req, uint8_t status, const ibv_path_record* path)>;

  ProviderHost(EventLoop* loop, Logger* log, const ConfigFile* config, CounterArray* counters);
  ~ProviderHost();
  ProviderHost(const ProviderHost&) = delete;
  ProviderHost& operator=(const ProviderHost&) = delete;

  // init() on each provider; one whose init fails is left out, logged.
  void Start(const std::vector<const LoadedProvider*>& providers);
  void Stop();  // fini() on each, in reverse order
  ProviderInstance* Find(const std::string& name);
  std::vector<ProviderInstance*> instances();

  void set_answer_fn(AnswerFn fn) { answer_fn_ = std::move(fn); }
  // The unix socket clients use ("" for none), for the client_socket op;
  // set before Start.
  void set_client_socket(std::string path) { client_socket_ = std::move(path); }
  const std::string& client_socket() const { return client_socket_; }
  uint64_t AddRequest(PendingRequest req);

  // Whose request the core is handing to a provider right now: the
  // client's id, 0 for none (the kernel's requests, a provider's own
  // work). An SA MAD the provider sends meanwhile (sa_send inside its
  // resolve or query op, as the sa and ssa providers do) waits in that
  // client's share of the port's SA queue, so one client's queries cannot
  // hold another's behind them (common/mad/sa_client.h); any other waits
  // in the daemon's own share (flow 0). Set for the length of the call.
  class FlowScope {
   public:
    FlowScope(ProviderHost* host, uint64_t flow) : host_(host), saved_(host->current_flow_) {
      host_->current_flow_ = flow;
    }
    ~FlowScope() { host_->current_flow_ = saved_; }
    FlowScope(const FlowScope&) = delete;
    FlowScope& operator=(const FlowScope&) = delete;

   private:
    ProviderHost* host_;
    uint64_t saved_;
  };
  uint64_t current_flow() const { return current_flow_; }
  // Drops a request the provider refused synchronously (the caller answers).
  bool TakeRequest(uint64_t id, PendingRequest* out);
  size_t pending() const { return pending_.size(); }
  // What providers reported with config_warn: "file:line: [name] what".
  // Each is an error: the daemon does not start with one.
  const std::vector<std::string>& config_errors() const { return config_errors_; }
  uint64_t stray_answers() const { return stray_answers_; }
  // Core ops that failed inside (out of memory, or anything else thrown)
  // and returned an error to the provider instead.
  uint64_t op_failures() const { return op_failures_; }

  // Test seam: runs at the start of every core op, with the op's name
  // ("timer_add"); a test makes it throw std::bad_alloc to play an
  // allocation failing inside the op.
  void set_op_fault(std::function<void(const char* op)> fn) { op_fault_ = std::move(fn); }

  // The C entry points (public so the ops table in the .cc can name them).
  int Answer(uint64_t req_id, uint8_t status, const ibv_path_record* path);
  int ConfigForeach(ProviderInstance* inst, ssa_config_fn fn, void* arg);
  int ConfigFormat() const;  // enum ssa_config_format
  void ConfigWarn(ProviderInstance* inst, const char* file, int line, const char* msg);
  void ConfigValue(ProviderInstance* inst, const char* key, const char* value, const char* source);
  uint64_t TimerAdd(uint32_t delay_ms, ssa_timer_fn fn, void* arg);
  int TimerCancel(uint64_t id);
  int FdWatch(int fd, uint32_t events, ssa_fd_fn fn, void* arg);
  int FdUnwatch(int fd);
  void CounterAdd(int counter, uint64_t delta);
  // The ops' exception guard (provider_host.cc): before each op's body, and
  // when one threw.
  void BeforeOp(const char* op);
  void NoteOpFailure(const ProviderInstance* inst, const char* op, const char* why) noexcept;
  Logger* log() { return log_; }
  static const ssa_core_ops* Ops();

 private:
  EventLoop* loop_;
  Logger* log_;
  const ConfigFile* config_;
  CounterArray* counters_;
  std::vector<std::unique_ptr<ProviderInstance>> instances_;
  std::unordered_map<uint64_t, PendingRequest> pending_;
  uint64_t next_request_id_ = 1;
  uint64_t current_flow_ = 0;  // see FlowScope
  AnswerFn answer_fn_;
  std::string client_socket_;
  std::vector<std::string> config_errors_;
  uint64_t stray_answers_ = 0;
  uint64_t op_failures_ = 0;
  std::function<void(const char* op)> op_fault_;
};

}  // namespace ssa

// The opaque handle providers see as ssa_core_t.
struct ssa_core {
  ssa::ProviderHost* host;
  ssa::ProviderInstance* inst;
};

#endif
