// port_events.h: port change notifications from the hardware.
//
// On real HCAs the verbs async event channel reports port up/down, LID, P_Key
// and SM changes and client re-registration the moment they happen; each one
// triggers an immediate port re-read (PortManager::Poll) instead of waiting
// for the next poll tick. Where no verbs device exists (the simulated
// fabric), nothing is watched and polling alone notices changes.
//
// Owned by the daemon; borrows the loop and logger. Loop thread only.
#ifndef IBACM_SSA_CORE_PORT_EVENTS_H
#define IBACM_SSA_CORE_PORT_EVENTS_H

#include <functional>
#include <string>
#include <vector>

#include "common/event_loop.h"
#include "common/log.h"
#include "common/status.h"

struct ibv_context;

namespace ssa {

class PortEvents {
 public:
  // `changed` is called on the loop thread after each relevant event.
  PortEvents(EventLoop* loop, Logger* log, std::function<void()> changed);
  ~PortEvents();
  PortEvents(const PortEvents&) = delete;
  PortEvents& operator=(const PortEvents&) = delete;

  // Opens every verbs device and watches its async fd. Returns how many
  // devices are watched (0 is not an error).
  int Start();
  void Stop();

 private:
  void OnAsyncEvent(ibv_context* ctx, const std::string& name);

  EventLoop* loop_;
  Logger* log_;
  std::function<void()> changed_;
  std::vector<ibv_context*> contexts_;
};

}  // namespace ssa

#endif
