// port_events.cc: verbs async events -> immediate port re-read.
#include "core/port_events.h"

#include <fcntl.h>
#include <infiniband/verbs.h>

#include <algorithm>

#include "ibacm_ssa/provider.h"

namespace ssa {

PortEvents::PortEvents(EventLoop* loop, Logger* log, Handler changed)
    : loop_(loop), log_(log), changed_(std::move(changed)) {}

PortEvents::~PortEvents() { Stop(); }

int PortEvents::Start() {
  int num = 0;
  ibv_device** list = ibv_get_device_list(&num);
  if (!list || num == 0) {
    if (list) ibv_free_device_list(list);
    SSA_LOG(*log_, kInfo, "no verbs devices: port changes are noticed by polling only");
    return 0;
  }
  for (int i = 0; i < num; ++i) {
    std::string name = ibv_get_device_name(list[i]);
    ibv_context* ctx = ibv_open_device(list[i]);
    if (!ctx) {
      SSA_LOG(*log_, kWarn, "cannot open verbs device %s for port events", name.c_str());
      continue;
    }
    int flags = fcntl(ctx->async_fd, F_GETFL);
    fcntl(ctx->async_fd, F_SETFL, flags | O_NONBLOCK);
    Status st = loop_->WatchFd(ctx->async_fd, EPOLLIN,
                               [this, ctx, name](uint32_t) { OnAsyncEvent(ctx, name); });
    if (!st.ok()) {
      ibv_close_device(ctx);
      continue;
    }
    contexts_.push_back(ctx);
    SSA_LOG(*log_, kInfo, "watching port events of %s", name.c_str());
  }
  ibv_free_device_list(list);
  return static_cast<int>(contexts_.size());
}

namespace {
// The ssa_port_event a verbs event becomes: 0 = re-read only, -1 = not a
// port event at all.
int ProviderEventFor(ibv_event_type type) {
  switch (type) {
    case IBV_EVENT_LID_CHANGE: return SSA_PORT_EVENT_LID_CHANGE;
    case IBV_EVENT_SM_CHANGE: return SSA_PORT_EVENT_SM_CHANGE;
    case IBV_EVENT_CLIENT_REREGISTER: return SSA_PORT_EVENT_CLIENT_REREGISTER;
    case IBV_EVENT_PORT_ACTIVE:
    case IBV_EVENT_PORT_ERR:
    case IBV_EVENT_PKEY_CHANGE:
    case IBV_EVENT_GID_CHANGE: return 0;
    default: return -1;
  }
}
}  // namespace

void PortEvents::OnAsyncEvent(ibv_context* ctx, const std::string& name) {
  std::vector<PortEventNote> notes;
  ibv_async_event ev;
  // Non-blocking fd: drain every queued event, then re-read ports once.
  while (ibv_get_async_event(ctx, &ev) == 0) {
    int event = ProviderEventFor(ev.event_type);
    if (event < 0) {
      SSA_LOG(*log_, kDebug, "%s: async event %s", name.c_str(), ibv_event_type_str(ev.event_type));
    } else {
      SSA_LOG(*log_, kInfo, "%s port %d: %s", name.c_str(), ev.element.port_num,
              ibv_event_type_str(ev.event_type));
      PortEventNote note{name, ev.element.port_num, event};
      if (std::find(notes.begin(), notes.end(), note) == notes.end()) notes.push_back(note);
    }
    ibv_ack_async_event(&ev);
  }
  if (!notes.empty() && changed_) changed_(notes);
}

void PortEvents::Stop() {
  for (ibv_context* ctx : contexts_) {
    loop_->UnwatchFd(ctx->async_fd);
    ibv_close_device(ctx);
  }
  contexts_.clear();
}

}  // namespace ssa
