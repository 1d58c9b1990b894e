// upstream_bridge.cc: see upstream_bridge.h. Loading, the lifecycle and
// the loop side of the inbox; the request mapping is in upstream_resolve.cc.
#include "providers/upstream/upstream_bridge.h"

#include <dlfcn.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <memory>

#include "common/base/big_endian.h"
#include "common/base/option_set.h"
#include "common/base/raw_fd.h"
#include "providers/shared/core_log.h"
#include "providers/shared/provider_options.h"
#include "providers/upstream/core_exports.h"

namespace ssa {
namespace upstream {
namespace {

// The upstream event for one of our port events.
int IbvEventOf(int event) {
  switch (event) {
    case SSA_PORT_EVENT_CLIENT_REREGISTER: return IBV_EVENT_CLIENT_REREGISTER;
    case SSA_PORT_EVENT_SM_CHANGE: return IBV_EVENT_SM_CHANGE;
    case SSA_PORT_EVENT_LID_CHANGE: return IBV_EVENT_LID_CHANGE;
    default: return -1;
  }
}

// The end of every open/add op: upstream's result `rc` (0, else its error)
// decides whether the new object is handed out (*out) or dropped. Returns
// 0, or a negative errno (upstream's own, else -EIO).
template <typename T>
int HandOut(int rc, std::unique_ptr<T> obj, T** out) {
  if (rc != 0) return rc < 0 ? rc : -EIO;
  *out = obj.release();
  return 0;
}

}  // namespace

UpstreamBridge::~UpstreamBridge() {
  if (watching_) ops_->fd_unwatch(core_, inbox_.fd());
  if (active_) DeactivateBridge(this);
  if (opts_fd_ >= 0) RawClose(opts_fd_);
  if (dropped_)
    Log(SSA_LOG_WARN, "%llu calls of the upstream library were dropped (inbox full)",
        static_cast<unsigned long long>(dropped_.load()));
}

void UpstreamBridge::ReadOptions() {
  OptionSet set;
  opts_.Bind(&set);
  // Everything else is the library's: upstream providers read their
  // options as "name value" lines and ignore names they do not know.
  auto pass_on = [this](const ConfigEntry& e, const std::string&) {
    opts_.passed_on += e.key + " " + e.value + "\n";
    return std::optional<OptionNote>();
  };
  std::vector<provider_shared::RawOption> entries = provider_shared::CollectOptions(ops_, core_);
  provider_shared::ReportNotes(ops_, core_,
                               provider_shared::ReadOptions(entries, "upstream", set, pass_on));
  provider_shared::ReportValues(ops_, core_, set);
}

bool UpstreamBridge::OnLoopThread() const { return pthread_equal(pthread_self(), loop_thread_); }

int UpstreamBridge::Init() {
  loop_thread_ = pthread_self();  // the ABI calls init on the core's loop
  ReadOptions();
  if (opts_.upstream_provider.empty()) {
    // Installed but unused: not an error, the bridge just serves no port.
    Log(SSA_LOG_DEBUG, "no upstream_provider set: no upstream library loaded");
    return 0;
  }
  lib_path_ = opts_.upstream_provider.find('/') != std::string::npos
                  ? opts_.upstream_provider
                  : opts_.upstream_provider_dir + "/lib" + opts_.upstream_provider + ".so";
  Status st = inbox_.Open();
  if (!st.ok()) return st.code();
  int rc = ops_->fd_watch(
      core_, inbox_.fd(), EPOLLIN,
      [](void* self, int, uint32_t) { static_cast<UpstreamBridge*>(self)->OnInbox(); }, this);
  if (rc < 0) return rc;
  watching_ = true;
  rc = WriteOptsFile();
  if (rc < 0) return rc;
  if (!ActivateBridge(this)) {
    Log(SSA_LOG_ERROR, "another upstream bridge is active in this process: one at a time");
    return -EBUSY;
  }
  active_ = true;
  return LoadLibrary(lib_path_);
}

// The library's options file, in memory: upstream providers open it by
// name (acm_get_opts_file) from their constructor.
int UpstreamBridge::WriteOptsFile() {
  opts_fd_ = memfd_create("ibacm-upstream-opts", MFD_CLOEXEC);
  if (opts_fd_ < 0) return -errno;
  const std::string& text = opts_.passed_on;
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(opts_fd_, text.data() + done, text.size() - done);
    if (n < 0) return -errno;
    done += static_cast<size_t>(n);
  }
  opts_path_ = "/proc/self/fd/" + std::to_string(opts_fd_);
  return 0;
}

int UpstreamBridge::LoadLibrary(const std::string& path) {
  // The library resolves acm_* against the global scope: make this module's
  // exports global first, and keep it loaded for as long as the library's
  // threads may call them (to the end of the process).
  Dl_info self;
  if (!dladdr(reinterpret_cast<void*>(&acm_write), &self) || !self.dli_fname ||
      !dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL | RTLD_NODELETE)) {
    const char* err = dlerror();
    Log(SSA_LOG_ERROR, "cannot make the bridge's acm_* functions global: %s",
        err ? err : "module not found");
    return -ELIBACC;
  }
  if (access(path.c_str(), R_OK) != 0) {
    int err = errno;
    Log(SSA_LOG_ERROR, "upstream provider %s: %s", path.c_str(), strerror(err));
    return -err;
  }
  // RTLD_NOW: a function the library needs and nobody exports fails here,
  // named, rather than at its first call.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!handle) {
    Log(SSA_LOG_ERROR, "cannot load upstream provider: %s", dlerror());
    return -ELIBBAD;
  }
  auto query =
      reinterpret_cast<upstream_provider_query_fn>(dlsym(handle, UPSTREAM_PROVIDER_QUERY_SYMBOL));
  if (!query) {
    Log(SSA_LOG_ERROR, "%s is not an upstream provider: no %s", path.c_str(),
        UPSTREAM_PROVIDER_QUERY_SYMBOL);
    return -ELIBBAD;
  }
  acm_provider* prov = nullptr;
  uint32_t version = 0;
  int rc = query(&prov, &version);
  if (rc != 0 || !prov) {
    Log(SSA_LOG_ERROR,
        "%s: provider_query failed (%d): the library did not start (its log lines above say why)",
        path.c_str(), rc);
    return -ELIBBAD;
  }
  if (version != UPSTREAM_ACM_PROV_VERSION || prov->size != sizeof(acm_provider)) {
    Log(SSA_LOG_ERROR,
        "%s: provider interface version %u with a %zu-byte table; the bridge speaks version %d "
        "(%zu bytes)",
        path.c_str(), version, prov->size, UPSTREAM_ACM_PROV_VERSION, sizeof(acm_provider));
    return -EPROTO;
  }
  if (!prov->open_device || !prov->close_device || !prov->open_port || !prov->close_port ||
      !prov->open_endpoint || !prov->close_endpoint || !prov->add_address ||
      !prov->remove_address || !prov->resolve) {
    Log(SSA_LOG_ERROR, "%s: provider table lacks a mandatory op", path.c_str());
    return -EPROTO;
  }
  up_ = prov;
  Log(SSA_LOG_INFO, "upstream provider %s loaded from %s (provider interface version %u)",
      prov->name ? prov->name : "(unnamed)", path.c_str(), version);
  return 0;
}

// --- the library's calls, on the loop -------------------------------------

void UpstreamBridge::UpstreamLog(int level, const char* text) {
  if (OnLoopThread()) {
    EmitLog(level, text);
    return;
  }
  InboxItem item;
  item.kind = InboxItem::Kind::kLog;
  item.level = level;
  item.text = text;
  Post(std::move(item));
}

// Upstream logs errors and notices at level 0 ("ERROR - ..."), details at
// 1 and 2, each line ending in a newline.
void UpstreamBridge::EmitLog(int level, const std::string& text) {
  std::string line = text;
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  int ours = level >= 2 ? SSA_LOG_TRACE : level == 1 ? SSA_LOG_DEBUG : SSA_LOG_INFO;
  if (level <= 0 && (strcasestr(line.c_str(), "error") || strcasestr(line.c_str(), "fail")))
    ours = SSA_LOG_ERROR;
  else if (level <= 0 && strcasestr(line.c_str(), "warn"))
    ours = SSA_LOG_WARN;
  // Before provider_query (the library's constructor) the file name says
  // whose line it is.
  const char* who = up_ && up_->name ? up_->name : lib_path_.c_str();
  const char* slash = strrchr(who, '/');
  ops_->log(core_, ours, "[%s] %s", slash ? slash + 1 : who, line.c_str());
}

bool UpstreamBridge::Post(InboxItem item) {
  if (inbox_.Post(std::move(item))) return true;
  dropped_.fetch_add(1, std::memory_order_relaxed);
  return false;
}

void UpstreamBridge::OnInbox() {
  inbox_.Drain([this](InboxItem& item) { Handle(item); });
}

void UpstreamBridge::Handle(InboxItem& item) {
  switch (item.kind) {
    case InboxItem::Kind::kLog: EmitLog(item.level, item.text); break;
    case InboxItem::Kind::kCounter:
      if (SSA_HAS_MEMBER(ops_, counter_add) && ops_->counter_add)
        ops_->counter_add(core_, item.counter, 1);
      break;
    case InboxItem::Kind::kSaSend: SendSa(item.mad); break;
    case InboxItem::Kind::kAnswer: {
      auto it = pending_.find(item.id);
      if (it == pending_.end()) {
        Log(SSA_LOG_DEBUG, "answer for request %llu dropped: not pending",
            static_cast<unsigned long long>(item.id));
        break;
      }
      bool is_query = it->second;
      pending_.erase(it);
      uint8_t status = item.status;
      if (status == ACM_STATUS_SUCCESS && !item.has_path) {
        Log(SSA_LOG_WARN, "request %llu: the library answered success without a path record",
            static_cast<unsigned long long>(item.id));
        status = ACM_STATUS_EINVAL;
      }
      const ibv_path_record* path = status == ACM_STATUS_SUCCESS ? &item.path : nullptr;
      if (is_query)
        ops_->query_done(core_, item.id, status, path);
      else
        ops_->resolve_done(core_, item.id, status, path);
      break;
    }
  }
}

// Upstream fills the whole SA MAD; the core assigns the TID, addresses the
// port's SM and retries. The answer (or the error) goes back in the same
// acm_sa_mad, umad.status holding a positive errno as libibumad reports.
void UpstreamBridge::SendSa(acm_sa_mad* mad) {
  auto* box = reinterpret_cast<SaMadBox*>(mad);
  UpPort* port = box->ep ? box->ep->port : nullptr;
  int rc = -ENOTCONN;
  if (port && port->core_port)
    rc = ops_->sa_send(core_, port->core_port, reinterpret_cast<const uint8_t*>(&mad->sa_mad),
                       sizeof(mad->sa_mad), OnSaDone, box);
  if (rc < 0) {
    mad->umad.status = -rc;
    box->handler(mad);
  }
}

void UpstreamBridge::OnSaDone(void* arg, int status, const uint8_t* resp, size_t len) {
  auto* box = static_cast<SaMadBox*>(arg);
  if (resp && len)
    memcpy(&box->mad.sa_mad, resp, len < sizeof(box->mad.sa_mad) ? len : sizeof(box->mad.sa_mad));
  box->mad.umad.status = status < 0 ? -status : 0;
  box->mad.umad.length = static_cast<int>(sizeof(box->mad.sa_mad));
  box->handler(&box->mad);  // the library may free the MAD here
}

// --- lifecycle --------------------------------------------------------------

int UpstreamBridge::OpenDevice(const ssa_device_info* info, UpDevice** out) {
  if (!up_) {
    Log(SSA_LOG_ERROR,
        "cannot serve device %s: no upstream library loaded (set upstream_provider in the "
        "[upstream] section)",
        info->name);
    return -ENODEV;
  }
  ibv_context* verbs = nullptr;
  int count = 0;
  bool found = false;
  ibv_device** list = ibv_get_device_list(&count);
  for (int i = 0; list && i < count; i++) {
    if (!strcmp(ibv_get_device_name(list[i]), info->name)) {
      found = true;
      verbs = ibv_open_device(list[i]);
      break;
    }
  }
  if (list) ibv_free_device_list(list);
  if (found && !verbs) {
    int err = errno ? errno : EIO;
    Log(SSA_LOG_ERROR, "cannot open verbs device %s for upstream provider %s: %s", info->name,
        up_->name ? up_->name : "?", strerror(err));
    return -err;
  }
  if (!verbs && opts_.require_verbs) {
    Log(SSA_LOG_ERROR,
        "cannot open device %s for upstream provider %s: no verbs device of that name (%d verbs "
        "devices here). Upstream providers are given a verbs context: they create UD QPs and "
        "attach them to multicast groups, which needs an HCA; the simulated fabric has none "
        "(man ibacm_upstream)",
        info->name, up_->name ? up_->name : "?", count);
    return -ENODEV;
  }
  auto d = std::make_unique<UpDevice>();
  d->prov = this;
  d->name = info->name;
  d->dev.verbs = verbs;
  d->dev.dev_guid = ToBe64(info->node_guid);
  int rc = up_->open_device(&d->dev, &d->up_ctx);
  if (rc != 0) {
    Log(SSA_LOG_ERROR, "upstream open_device(%s) failed (%d)", info->name, rc);
    if (verbs) ibv_close_device(verbs);
  }
  return HandOut(rc, std::move(d), out);
}

void UpstreamBridge::CloseDevice(UpDevice* d) {
  up_->close_device(d->up_ctx);
  if (d->dev.verbs) ibv_close_device(d->dev.verbs);
  delete d;
}

// The port's GIDs: the verbs GID table when there is a verbs context, else
// the one GID the core reported (subnet prefix and port GUID).
void UpstreamBridge::SetGids(UpPort* p, const ssa_port_info* info) {
  std::vector<ibv_gid> gids;
  ibv_context* verbs = p->dev->dev.verbs;
  ibv_port_attr attr;
  if (verbs && ibv_query_port(verbs, info->port_num, &attr) == 0) {
    for (int i = 0; i < attr.gid_tbl_len; i++) {
      ibv_gid gid;
      if (ibv_query_gid(verbs, info->port_num, i, &gid) != 0) break;
      gids.push_back(gid);
    }
  }
  if (gids.empty()) {
    ibv_gid gid;
    gid.global.subnet_prefix = ToBe64(info->gid_prefix);
    gid.global.interface_id = ToBe64(info->port_guid);
    gids.push_back(gid);
  }
  MutexLock lock(&gids_mu_);
  p->gids.swap(gids);
}

int UpstreamBridge::OpenPort(UpDevice* d, const ssa_port_info* info, ssa_core_port_t* core_port,
                             UpPort** out) {
  auto p = std::make_unique<UpPort>();
  p->dev = d;
  p->core_port = core_port;
  p->box.port.dev = &d->dev;
  p->box.port.port_num = info->port_num;
  p->box.owner = p.get();
  SetGids(p.get(), info);
  int rc = up_->open_port(&p->box.port, d->up_ctx, &p->up_ctx);
  if (rc != 0)
    Log(SSA_LOG_ERROR, "upstream open_port(%s/%u) failed (%d)", d->name.c_str(), info->port_num,
        rc);
  return HandOut(rc, std::move(p), out);
}

void UpstreamBridge::ClosePort(UpPort* p) {
  up_->close_port(p->up_ctx);
  delete p;
}

void UpstreamBridge::PortChanged(UpPort* p, const ssa_port_info* info) {
  // Upstream providers learn of changes through handle_event (PortEvent);
  // only the GIDs acm_get_gid reports are ours to refresh.
  SetGids(p, info);
}

void UpstreamBridge::PortEvent(UpPort* p, int event) {
  int type = IbvEventOf(event);
  if (type < 0 || !up_->handle_event) return;
  up_->handle_event(p->up_ctx, static_cast<ibv_event_type>(type));
}

int UpstreamBridge::OpenEndpoint(UpPort* p, const ssa_endpoint_info* info, UpEndpoint** out) {
  auto e = std::make_unique<UpEndpoint>();
  e->port = p;
  e->box.ep.port = &p->box.port;
  e->box.ep.pkey = info->pkey;
  e->box.owner = e.get();
  int rc = up_->open_endpoint(&e->box.ep, p->up_ctx, &e->up_ctx);
  if (rc != 0)
    Log(SSA_LOG_ERROR, "upstream open_endpoint(pkey 0x%04x) failed (%d)", info->pkey, rc);
  return HandOut(rc, std::move(e), out);
}

void UpstreamBridge::CloseEndpoint(UpEndpoint* e) {
  up_->close_endpoint(e->up_ctx);
  delete e;
}

int UpstreamBridge::AddAddress(UpEndpoint* e, const ssa_address* addr, UpAddress** out) {
  auto a = std::make_unique<UpAddress>();
  a->ep = e;
  a->addr.endpoint = &e->box.ep;
  a->addr.type = addr->type;  // the values are upstream's ACM_ADDRESS_*
  memcpy(a->addr.info.addr, addr->data, sizeof(a->addr.info.addr));
  acm_format_name(0, a->id_string, sizeof(a->id_string), static_cast<uint8_t>(addr->type),
                  addr->data, sizeof(addr->data));
  a->addr.id_string = a->id_string;
  int rc = up_->add_address(&a->addr, e->up_ctx, &a->up_ctx);
  if (rc != 0) Log(SSA_LOG_ERROR, "upstream add_address(%s) failed (%d)", a->id_string, rc);
  return HandOut(rc, std::move(a), out);
}

void UpstreamBridge::RemoveAddress(UpAddress* a) {
  up_->remove_address(a->up_ctx);
  delete a;
}

int UpstreamBridge::QueryPerf(UpEndpoint* e, uint64_t* values, uint8_t* count) {
  if (!up_->query_perf) {
    *count = 0;
    return 0;
  }
  uint64_t theirs[256] = {};  // room for any counter count a uint8_t can say
  uint8_t n = 0;
  up_->query_perf(e->up_ctx, theirs, &n);
  if (n > *count) n = *count;
  memcpy(values, theirs, n * sizeof(values[0]));
  *count = n;
  return 0;
}

bool UpstreamBridge::GetGid(const acm_port* port, int index, ibv_gid* gid) {
  const UpPort* p = reinterpret_cast<const PortBox*>(port)->owner;
  MutexLock lock(&gids_mu_);
  if (index < 0 || static_cast<size_t>(index) >= p->gids.size()) return false;
  *gid = p->gids[index];
  return true;
}

uint8_t UpstreamBridge::GidIndex(const acm_port* port, const ibv_gid* gid) {
  const UpPort* p = reinterpret_cast<const PortBox*>(port)->owner;
  MutexLock lock(&gids_mu_);
  size_t i = 0;
  while (i < p->gids.size() && memcmp(&p->gids[i], gid, sizeof(*gid)) != 0) i++;
  return static_cast<uint8_t>(i);  // the table's size when not found, as upstream
}

}  // namespace upstream
}  // namespace ssa
