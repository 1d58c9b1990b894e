// umad_ports.h: what libibumad says about the local CAs and their ports.
//
// The same calls work on real HCAs (sysfs) and on the simulated fabric
// (umad2sim intercepts them), so everything above this module is blind to
// the difference. Under umad2sim the values are frozen at process start.
// DiscoverPorts() touches libibumad; call it first from the main thread
// before starting other threads (umad2sim's first use is not thread-safe).
#ifndef IBACM_SSA_COMMON_MAD_UMAD_PORTS_H
#define IBACM_SSA_COMMON_MAD_UMAD_PORTS_H

#include <cstdint>
#include <string>
#include <vector>

#include "common/base/status.h"

struct umad_ca;

namespace ssa {

// Port states as IB PortInfo:PortState reports them.
enum PortState : int {
  kPortDown = 1,
  kPortInit = 2,
  kPortArmed = 3,
  kPortActive = 4,
  kPortActiveDefer = 5,
};
const char* PortStateName(int state);

struct UmadPort {
  std::string ca_name;
  int port_num = 0;
  int node_type = 0;       // 1 CA, 2 switch, 3 router
  uint64_t node_guid = 0;  // host byte order, as are all GUIDs here
  uint64_t port_guid = 0;
  uint64_t gid_prefix = 0;
  uint16_t lid = 0;
  uint8_t lmc = 0;
  uint16_t sm_lid = 0;
  uint8_t sm_sl = 0;
  int state = 0;  // PortState
  int phys_state = 0;
  int rate = 0;                        // Gb/s as the kernel reports it
  uint32_t capmask = 0;                // host byte order
  std::string link_layer;              // "InfiniBand" or "Ethernet"
  std::vector<uint16_t> pkeys;         // valid (non-zero) P_Keys, table order
  std::vector<uint16_t> pkey_indexes;  // each one's index in the P_Key table

  bool IsActive() const { return state == kPortActive; }
  bool IsInfiniBand() const {
    return link_layer.empty() || link_layer == "InfiniBand" || link_layer == "IB";
  }
  // A readable one-line summary for logs.
  std::string Describe() const;
};

// Converts one port of a CA as libibumad filled it in.
UmadPort UmadPortFromCa(const struct umad_ca& ca, int port_index);

// Every port of every CA (switch port 0 included when that is all a CA has).
// ENODEV when libibumad lists no CA it can open (no InfiniBand device here,
// or the ib_umad module is not loaded).
Status DiscoverPorts(std::vector<UmadPort>* ports);

// The SM's LID as `port` sees it now (0 when the port cannot be read):
// what a long-running member asks before each join, so that it follows an
// SM failover. Under umad2sim: what it was at process start, without
// asking (a second umad_get_port there can hang).
uint16_t CurrentSmLid(const UmadPort& port);

// libibumad's one-time initialisation; safe to call repeatedly.
Status UmadInitOnce();
// libibumad's own debug output (upstream's umad_debug_level option).
void SetUmadDebugLevel(int level);

// Off the fabric: DiscoverPorts and PickActivePort fail with ENODEV and say
// in words that this host has no (usable) InfiniBand port, never the
// library's default device name. A program adds what to do instead
// (`hint`, e.g. "ssa-tree --state FILE draws a saved state"); other
// errors pass unchanged.
Status WithOffFabricHint(const Status& st, const std::string& hint);

// The port a tool or daemon works through: `name` is "CA:PORT", a port GUID
// ("0x..."), or empty for the first one. It must be an active InfiniBand
// port that knows its SM (ENODEV saying why otherwise).
Status PickActivePort(const std::string& name, UmadPort* out);

}  // namespace ssa

#endif
