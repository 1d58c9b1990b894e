// umad_ports.cc: libibumad CA/port enumeration.
#include "common/mad/umad_ports.h"

#include <infiniband/umad.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "common/base/big_endian.h"
#include "common/mad/umad_transport.h"

namespace ssa {

const char* PortStateName(int state) {
  switch (state) {
    case kPortDown: return "DOWN";
    case kPortInit: return "INIT";
    case kPortArmed: return "ARMED";
    case kPortActive: return "ACTIVE";
    case kPortActiveDefer: return "ACTIVE_DEFER";
    default: return "UNKNOWN";
  }
}

std::string UmadPort::Describe() const {
  char buf[256];
  snprintf(buf, sizeof(buf),
           "%s/%d guid 0x%016llx lid %u lmc %u sm_lid %u sm_sl %u state %s prefix 0x%016llx "
           "pkeys %zu",
           ca_name.c_str(), port_num, static_cast<unsigned long long>(port_guid), lid, lmc, sm_lid,
           sm_sl, PortStateName(state), static_cast<unsigned long long>(gid_prefix), pkeys.size());
  return buf;
}

UmadPort UmadPortFromCa(const struct umad_ca& ca, int port_index) {
  UmadPort p;
  const umad_port_t* up = ca.ports[port_index];
  p.ca_name = ca.ca_name;
  p.node_type = static_cast<int>(ca.node_type);
  p.node_guid = FromBe64(ca.node_guid);
  if (!up) return p;
  p.port_num = up->portnum;
  p.port_guid = FromBe64(up->port_guid);
  p.gid_prefix = FromBe64(up->gid_prefix);
  p.lid = static_cast<uint16_t>(up->base_lid);
  p.lmc = static_cast<uint8_t>(up->lmc);
  p.sm_lid = static_cast<uint16_t>(up->sm_lid);
  p.sm_sl = static_cast<uint8_t>(up->sm_sl);
  p.state = static_cast<int>(up->state);
  p.phys_state = static_cast<int>(up->phys_state);
  p.rate = static_cast<int>(up->rate);
  p.capmask = FromBe32(up->capmask);
  p.link_layer = up->link_layer;
  for (unsigned i = 0; up->pkeys && i < up->pkeys_size; ++i) {
    // Index entries of 0 (and the limited/full bit alone) are unused slots.
    if ((up->pkeys[i] & 0x7fff) != 0) {
      p.pkeys.push_back(up->pkeys[i]);
      p.pkey_indexes.push_back(static_cast<uint16_t>(i));
    }
  }
  return p;
}

Status UmadInitOnce() {
  static std::once_flag once;
  static int rc = 0;
  std::call_once(once, [] { rc = umad_init(); });
  if (rc < 0) return Status::Error(EIO, "umad_init failed: is the ib_umad module loaded?");
  return Status::Ok();
}

void SetUmadDebugLevel(int level) { umad_debug(level); }

namespace {
const char kNoDevice[] =
    "no InfiniBand device on this host: libibumad finds none it can open (no HCA, or the "
    "ib_umad kernel module is not loaded)";
}  // namespace

Status WithOffFabricHint(const Status& st, const std::string& hint) {
  if (st.ok() || st.code() != -ENODEV || hint.empty()) return st;
  return Status::Error(ENODEV, st.message() + "; " + hint);
}

Status DiscoverPorts(std::vector<UmadPort>* ports) {
  ports->clear();
  Status st = UmadInitOnce();
  if (!st.ok()) return Status::Error(ENODEV, kNoDevice);
  char names[UMAD_MAX_DEVICES][UMAD_CA_NAME_LEN];
  int n = umad_get_cas_names(names, UMAD_MAX_DEVICES);
  // Without /sys/class/infiniband_mad, libibumad lists its default name
  // (mthca0) that nothing answers to: that is "no device", not an I/O error.
  if (n <= 0) return Status::Error(ENODEV, kNoDevice);
  int opened = 0;
  for (int i = 0; i < n; ++i) {
    umad_ca_t ca;
    if (umad_get_ca(names[i], &ca) < 0) continue;  // gone since listed
    ++opened;
    for (int idx = 0; idx < UMAD_CA_MAX_PORTS; ++idx) {
      if (ca.ports[idx]) ports->push_back(UmadPortFromCa(ca, idx));
    }
    umad_release_ca(&ca);
  }
  if (opened == 0) return Status::Error(ENODEV, kNoDevice);
  return Status::Ok();
}

uint16_t CurrentSmLid(const UmadPort& port) {
  // umad2sim's values never change, and asking it again while a receiver
  // thread waits in umad_recv() hangs the caller (seen on ibsim).
  if (UmadTransport::UnderUmad2sim()) return port.sm_lid;
  umad_port_t p;
  if (umad_get_port(port.ca_name.c_str(), port.port_num, &p) < 0) return 0;
  uint16_t sm_lid = static_cast<uint16_t>(p.sm_lid);
  umad_release_port(&p);
  return sm_lid;
}

Status PickActivePort(const std::string& name, UmadPort* out) {
  std::vector<UmadPort> ports;
  Status st = DiscoverPorts(&ports);
  if (!st.ok()) return st;
  uint64_t guid = name.compare(0, 2, "0x") == 0 ? strtoull(name.c_str(), nullptr, 16) : 0;
  for (const UmadPort& p : ports) {
    if (!name.empty() && p.ca_name + ":" + std::to_string(p.port_num) != name &&
        p.port_guid != guid)
      continue;
    if (p.IsActive() && p.IsInfiniBand() && p.sm_lid != 0) {
      *out = p;
      return Status::Ok();
    }
  }
  return Status::Error(
      ENODEV, name.empty() ? "no active InfiniBand port with an SM on this host"
                           : "port " + name + " is not an active InfiniBand port with an SM");
}

}  // namespace ssa
