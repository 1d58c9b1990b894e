// port_events.h: port change notifications from the hardware.
//
// On real HCAs the verbs async event channel reports port up/down, LID, P_Key
// and SM changes and client re-registration the moment they happen. A burst
// of events triggers one immediate port re-read instead of waiting for the
// next poll tick, and the events a provider must hear about even when the
// re-read shows no difference (a client re-registration request, an SM
// that restarted at the same LID) are handed on as ssa_port_event values.
// Where no verbs device exists (the simulated fabric), nothing is watched
// and polling alone notices changes.
//
// Owned by the daemon; borrows the loop and logger. Loop thread only.
#ifndef IBACM_SSA_CORE_PORT_EVENTS_H
#define IBACM_SSA_CORE_PORT_EVENTS_H

#include <functional>
#include <string>
#include <vector>

#include "common/base/event_loop.h"
#include "common/base/log.h"
#include "common/base/status.h"

struct ibv_context;

namespace ssa {

// One hardware event for a port: `event` is an ssa_port_event value, or 0
// for events that only call for a re-read (port up/down, P_Key, GID).
struct PortEventNote {
  std::string ca_name;
  int port_num = 0;
  int event = 0;
  bool operator==(const PortEventNote& o) const {
    return ca_name == o.ca_name && port_num == o.port_num && event == o.event;
  }
};

class PortEvents {
 public:
  using Handler = std::function<void(const std::vector<PortEventNote>&)>;
  // `changed` is called on the loop thread once per drained burst of
  // relevant events, each (port, event) pair listed once.
  PortEvents(EventLoop* loop, Logger* log, Handler changed);
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
  Handler changed_;
  std::vector<ibv_context*> contexts_;
};

}  // namespace ssa

#endif
