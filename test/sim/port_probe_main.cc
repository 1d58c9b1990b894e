// port_probe: prints what the project's umad port discovery reports, one
// "key value" per line per port. Run as a simulated node by the harness
// tests to compare with ibstat.
#include <cstdio>

#include "common/mad/umad_ports.h"

int main() {
  std::vector<ssa::UmadPort> ports;
  ssa::Status st = ssa::DiscoverPorts(&ports);
  if (!st.ok()) {
    fprintf(stderr, "port_probe: %s\n", st.ToString().c_str());
    return 1;
  }
  for (const auto& p : ports) {
    printf(
        "ca %s\nport %d\nstate %s\nlid %u\nlmc %u\nsm_lid %u\nsm_sl %u\n"
        "port_guid 0x%016llx\ngid_prefix 0x%016llx\nnode_guid 0x%016llx\npkeys %zu\n",
        p.ca_name.c_str(), p.port_num, ssa::PortStateName(p.state), p.lid, p.lmc, p.sm_lid, p.sm_sl,
        static_cast<unsigned long long>(p.port_guid), static_cast<unsigned long long>(p.gid_prefix),
        static_cast<unsigned long long>(p.node_guid), p.pkeys.size());
  }
  return 0;
}
