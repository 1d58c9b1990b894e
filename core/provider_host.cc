// provider_host.cc: provider lifecycle and the core-services ops table.
#include "core/provider_host.h"

#include <cerrno>
#include <cstdarg>
#include <cstring>
#include <new>

#include "common/mad/sa_client.h"
#include "core/provider_loader.h"

namespace ssa {

namespace {

ProviderHost* HostOf(ssa_core_t* core) { return core ? core->host : nullptr; }

// Every op runs its body through Guarded(): a provider may be written in C,
// so no C++ exception may unwind into it (errors are negative errno values
// at the ABI, as the providers' own ops do with
// providers/shared/abi_guard.h). The bodies allocate (std::function, maps,
// the SA client's queue, log lines) and so may throw std::bad_alloc: the op
// then returns `nomem` (-ENOMEM; 0 from timer_add; nothing from a void op).
// Anything else thrown returns `other` (-EIO). Either is counted and
// logged by the host.
template <typename R, typename Fn>
R Guarded(ssa_core_t* core, const char* op, R nomem, R other, Fn fn) noexcept {
  ProviderHost* host = HostOf(core);
  try {
    if (host) host->BeforeOp(op);
    return fn();
  } catch (const std::bad_alloc&) {
    if (host) host->NoteOpFailure(core->inst, op, "out of memory");
    return nomem;
  } catch (...) {
    if (host) host->NoteOpFailure(core->inst, op, "unexpected exception");
    return other;
  }
}

template <typename Fn>
int GuardedInt(ssa_core_t* core, const char* op, Fn fn) noexcept {
  return Guarded<int>(core, op, -ENOMEM, -EIO, fn);
}

template <typename Fn>
void GuardedVoid(ssa_core_t* core, const char* op, Fn fn) noexcept {
  Guarded<int>(core, op, 0, 0, [&] {
    fn();
    return 0;
  });
}

void OpLog(ssa_core_t* core, int level, const char* fmt, ...) {
  if (!core) return;
  Logger* log = core->host->log();
  if (level < 0) level = 0;
  if (level > 4) level = 4;
  LogLevel lvl = static_cast<LogLevel>(level);
  if (!log->Enabled(lvl)) return;
  char buf[1024];
  va_list args;
  va_start(args, fmt);
  vsnprintf(buf, sizeof(buf), fmt, args);
  va_end(args);
  size_t n = strlen(buf);
  if (n && buf[n - 1] == '\n') buf[n - 1] = '\0';  // upstream-style messages end in \n
  GuardedVoid(core, "log",
              [&] { log->Log(lvl, "%s: %s", core->inst ? core->inst->name().c_str() : "?", buf); });
}

int OpResolveDone(ssa_core_t* core, uint64_t id, uint8_t status, const ibv_path_record* path) {
  ProviderHost* host = HostOf(core);
  if (!host) return -EINVAL;
  return GuardedInt(core, "resolve_done", [&] { return host->Answer(id, status, path); });
}

int OpQueryDone(ssa_core_t* core, uint64_t id, uint8_t status, const ibv_path_record* path) {
  ProviderHost* host = HostOf(core);
  if (!host) return -EINVAL;
  return GuardedInt(core, "query_done", [&] { return host->Answer(id, status, path); });
}

int OpSaSend(ssa_core_t* core, ssa_core_port_t* port, const uint8_t* mad, size_t len,
             ssa_sa_done_fn done, void* arg) {
  if (!core || !port || !mad || !done) return -EINVAL;
  return GuardedInt(core, "sa_send", [&] {
    CorePort* p = CorePort::FromHandle(port);
    if (!p->sa) return -ENOTCONN;
    ProviderHost* host = HostOf(core);
    Status st = p->sa->Send(
        mad, len,
        [done, arg](int status, const uint8_t* resp, size_t n) { done(arg, status, resp, n); },
        host ? host->current_flow() : 0);
    return st.ok() ? 0 : st.code();
  });
}

uint64_t OpTimerAdd(ssa_core_t* core, uint32_t delay_ms, ssa_timer_fn fn, void* arg) {
  ProviderHost* host = HostOf(core);
  if (!host || !fn) return 0;
  return Guarded<uint64_t>(core, "timer_add", 0, 0,
                           [&] { return host->TimerAdd(delay_ms, fn, arg); });
}

int OpTimerCancel(ssa_core_t* core, uint64_t id) {
  ProviderHost* host = HostOf(core);
  if (!host) return -EINVAL;
  return GuardedInt(core, "timer_cancel", [&] { return host->TimerCancel(id); });
}

int OpFdWatch(ssa_core_t* core, int fd, uint32_t events, ssa_fd_fn fn, void* arg) {
  ProviderHost* host = HostOf(core);
  if (!host || !fn) return -EINVAL;
  return GuardedInt(core, "fd_watch", [&] { return host->FdWatch(fd, events, fn, arg); });
}

int OpFdUnwatch(ssa_core_t* core, int fd) {
  ProviderHost* host = HostOf(core);
  if (!host) return -EINVAL;
  return GuardedInt(core, "fd_unwatch", [&] { return host->FdUnwatch(fd); });
}

int OpConfigForeach(ssa_core_t* core, ssa_config_fn fn, void* arg) {
  ProviderHost* host = HostOf(core);
  if (!host || !fn) return -EINVAL;
  return GuardedInt(core, "config_foreach",
                    [&] { return host->ConfigForeach(core->inst, fn, arg); });
}

void OpConfigWarn(ssa_core_t* core, const char* file, int line, const char* msg) {
  ProviderHost* host = HostOf(core);
  if (host)
    GuardedVoid(core, "config_warn", [&] { host->ConfigWarn(core->inst, file, line, msg); });
}

void OpConfigValue(ssa_core_t* core, const char* key, const char* value, const char* source) {
  ProviderHost* host = HostOf(core);
  if (host)
    GuardedVoid(core, "config_value", [&] { host->ConfigValue(core->inst, key, value, source); });
}

void OpCounterAdd(ssa_core_t* core, int counter, uint64_t delta) {
  ProviderHost* host = HostOf(core);
  if (host) GuardedVoid(core, "counter_add", [&] { host->CounterAdd(counter, delta); });
}

int OpConfigFormat(ssa_core_t* core) {
  ProviderHost* host = HostOf(core);
  return host ? host->ConfigFormat() : SSA_CONFIG_INI;
}

const char* OpClientSocket(ssa_core_t* core) {
  ProviderHost* host = HostOf(core);
  return host && !host->client_socket().empty() ? host->client_socket().c_str() : nullptr;
}

const ssa_core_ops kOps = {
    sizeof(ssa_core_ops), SSA_PROV_ABI_MAJOR, SSA_PROV_ABI_MINOR, OpLog,         OpResolveDone,
    OpQueryDone,          OpSaSend,           OpTimerAdd,         OpTimerCancel, OpFdWatch,
    OpFdUnwatch,          OpConfigForeach,    OpConfigWarn,       OpCounterAdd,  OpConfigFormat,
    OpClientSocket,       OpConfigValue,
};

}  // namespace

const ssa_core_ops* ProviderHost::Ops() { return &kOps; }

// The ABI's size rule lives in one place: the loader's AbiMember().
bool ProviderInstance::has_port_changed() const { return loaded_->HasPortChanged(); }
bool ProviderInstance::has_port_event() const { return loaded_->HasPortEvent(); }
bool ProviderInstance::has_query() const { return loaded_->HasQuery(); }
bool ProviderInstance::has_query_perf() const { return loaded_->HasQueryPerf(); }
bool ProviderInstance::has_collect_metrics() const { return loaded_->HasCollectMetrics(); }

Status ProviderInstance::DeviceContext(const CoreDevice& device, void** dev_ctx) {
  auto it = devices_.find(device.name);
  if (it != devices_.end()) {
    *dev_ctx = it->second;
    return Status::Ok();
  }
  ssa_device_info info = {};
  info.size = sizeof(info);
  info.name = device.name.c_str();
  info.node_guid = device.node_guid;
  info.port_count = static_cast<uint8_t>(device.port_count);
  void* ctx = nullptr;
  int rc = table_->open_device(ctx_, &info, &ctx);
  if (rc < 0) return Status::Error(rc, name_ + ": open_device(" + device.name + ") failed");
  devices_[device.name] = ctx;
  *dev_ctx = ctx;
  return Status::Ok();
}

void ProviderInstance::CloseDevices() {
  for (auto& kv : devices_) table_->close_device(kv.second);
  devices_.clear();
}

ProviderHost::ProviderHost(EventLoop* loop, Logger* log, const ConfigFile* config,
                           CounterArray* counters)
    : loop_(loop), log_(log), config_(config), counters_(counters) {}

ProviderHost::~ProviderHost() { Stop(); }

void ProviderHost::Start(const std::vector<const LoadedProvider*>& providers) {
  for (const LoadedProvider* lp : providers) {
    auto inst = std::make_unique<ProviderInstance>();
    inst->name_ = lp->name();
    inst->table_ = lp->table();
    inst->loaded_ = lp;
    inst->core_handle_ = std::make_unique<::ssa_core>(::ssa_core{this, inst.get()});
    int rc = inst->table_->init(&kOps, inst->core_handle_.get(), &inst->ctx_);
    if (rc < 0) {
      SSA_LOG(*log_, kError, "provider %s: init failed (%s); it will serve no port",
              inst->name_.c_str(), strerror(-rc));
      continue;
    }
    SSA_LOG(*log_, kInfo, "provider %s version %u started (%s)", inst->name_.c_str(),
            inst->table_->version, lp->path().c_str());
    instances_.push_back(std::move(inst));
  }
}

void ProviderHost::Stop() {
  // Requests nobody will answer any more get an error, never silence.
  std::vector<uint64_t> ids;
  for (const auto& kv : pending_) ids.push_back(kv.first);
  for (uint64_t id : ids) Answer(id, ACM_STATUS_ENOTCONN, nullptr);
  for (auto it = instances_.rbegin(); it != instances_.rend(); ++it) {
    (*it)->CloseDevices();
    (*it)->table_->fini((*it)->ctx_);
  }
  instances_.clear();
}

ProviderInstance* ProviderHost::Find(const std::string& name) {
  for (auto& inst : instances_)
    if (inst->name_ == name) return inst.get();
  return nullptr;
}

std::vector<ProviderInstance*> ProviderHost::instances() {
  std::vector<ProviderInstance*> result;
  for (auto& inst : instances_) result.push_back(inst.get());
  return result;
}

uint64_t ProviderHost::AddRequest(PendingRequest req) {
  uint64_t id = next_request_id_++;
  pending_.emplace(id, std::move(req));
  return id;
}

bool ProviderHost::TakeRequest(uint64_t id, PendingRequest* out) {
  auto it = pending_.find(id);
  if (it == pending_.end()) return false;
  *out = std::move(it->second);
  pending_.erase(it);
  return true;
}

int ProviderHost::Answer(uint64_t req_id, uint8_t status, const ibv_path_record* path) {
  auto it = pending_.find(req_id);
  if (it == pending_.end()) {
    ++stray_answers_;
    // Ids are handed out in order and never reused: a smaller one was
    // answered already; anything else never existed.
    bool answered = req_id != 0 && req_id < next_request_id_;
    SSA_LOG(*log_, kWarn, "answer for %s request id %llu dropped",
            answered ? "already answered" : "unknown", static_cast<unsigned long long>(req_id));
    return answered ? -EALREADY : -ENOENT;
  }
  PendingRequest req = std::move(it->second);
  pending_.erase(it);
  if (answer_fn_) answer_fn_(std::move(req), status, path);
  return 0;
}

int ProviderHost::ConfigForeach(ProviderInstance* inst, ssa_config_fn fn, void* arg) {
  if (!config_) return 0;
  // An upstream-format file has no sections: every option goes to every
  // provider, which takes the ones it knows (as upstream's providers did).
  std::string section = config_->format() == ConfigFile::Format::kUpstream ? "" : inst->name();
  for (const auto& e : config_->Section(section)) {
    if (fn(arg, e.key.c_str(), e.value.c_str(), config_->name().c_str(), e.line)) break;
  }
  return 0;
}

int ProviderHost::ConfigFormat() const {
  // Without a file there is nothing to read: our own format, then.
  return config_ && config_->format() == ConfigFile::Format::kUpstream ? SSA_CONFIG_UPSTREAM
                                                                       : SSA_CONFIG_INI;
}

void ProviderHost::ConfigWarn(ProviderInstance* inst, const char* file, int line, const char* msg) {
  std::string text = std::string(file ? file : "?") + ":" + std::to_string(line) + ": [" +
                     (inst ? inst->name() : "?") + "] " + (msg ? msg : "");
  SSA_LOG(*log_, kError, "%s", text.c_str());
  config_errors_.push_back(std::move(text));
}

void ProviderHost::ConfigValue(ProviderInstance* inst, const char* key, const char* value,
                               const char* source) {
  if (inst && key)
    inst->config_values_.push_back({key, value ? value : "", source ? source : "default"});
}

uint64_t ProviderHost::TimerAdd(uint32_t delay_ms, ssa_timer_fn fn, void* arg) {
  return loop_->AddTimer(std::chrono::milliseconds(delay_ms), [fn, arg] { fn(arg); });
}

int ProviderHost::TimerCancel(uint64_t id) { return loop_->CancelTimer(id) ? 0 : -ENOENT; }

int ProviderHost::FdWatch(int fd, uint32_t events, ssa_fd_fn fn, void* arg) {
  Status st = loop_->WatchFd(fd, events, [fn, arg, fd](uint32_t ev) { fn(arg, fd, ev); });
  return st.ok() ? 0 : st.code();
}

int ProviderHost::FdUnwatch(int fd) {
  if (!loop_->IsWatched(fd)) return -ENOENT;
  loop_->UnwatchFd(fd);
  return 0;
}

void ProviderHost::BeforeOp(const char* op) {
  if (op_fault_) op_fault_(op);
}

void ProviderHost::NoteOpFailure(const ProviderInstance* inst, const char* op,
                                 const char* why) noexcept {
  ++op_failures_;
  try {
    SSA_LOG(*log_, kError, "provider %s: %s failed: %s", inst ? inst->name().c_str() : "?", op,
            why);
  } catch (...) {
    // Still out of memory: the count is all that is left.
  }
}

void ProviderHost::CounterAdd(int counter, uint64_t delta) {
  if (counter < 0 || counter >= ACM_MAX_COUNTER) {
    SSA_LOG(*log_, kWarn, "provider counter index %d out of range, ignored", counter);
    return;
  }
  (*counters_)[counter] += delta;
}

}  // namespace ssa
