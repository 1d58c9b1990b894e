// netgen.h: ibsim net files for tests and benchmarks, and a small reader.
//
// Net file format (ibsim, compatible with ibnetdiscover output):
//   Hca  1 "Hca1"            node header: type, port count, unique name
//   [1]  "L1"[1] w=2 s=7     a connected port: local port, remote name and
//                            port, then optional per-port link options
//   <blank line>             ends the node record
// The first node is where OpenSM attaches by default, so generators put Hca1
// first. Both ends of a link must list each other. ibsim 0.10 warns "cannot
// parse remote lid and connection type" for every port line without
// ibnetdiscover's "# ... lid N 4xQDR" tail: harmless, so ignore it.
//
// Per-port link options (ibsim 0.10, checked with smpquery portinfo,
// iblinkinfo and ibstat run as nodes); each is a PortInfo "enabled" bit mask,
// and the link comes up at the highest setting both ends enable:
//   w=  LinkWidthEnabled     1 = 1x, 2 = 4x, 4 = 8x, 8 = 12x, 16 = 2x (1..31)
//   s=  LinkSpeedEnabled     1 = SDR 2.5, 2 = DDR 5, 4 = QDR 10 Gb/s (1..7)
//   e=  LinkSpeedExtEnabled  0 = none, 1 = FDR 14, 2 = EDR 25, 4 = HDR 50 (0..7)
// Without options a port is 4x SDR. Write the same options on both ends (the
// generators do): widths without a common bit make ibsim panic at start-up
// ("mismatched enabled width"), extended speeds without one silently fall
// back to none, and unequal speed masks get renegotiated once OpenSM sets
// PortInfo (s=3 against s=1 came up DDR, not SDR). umad2sim's port rate (what
// ibstat prints and umad_get_ca reports) is right up to EDR but says 104 for
// 4x HDR and 0 for 2x; the SMA's PortInfo, hence OpenSM, has the true values.
//
// Pure functions; safe from any thread.
#ifndef IBACM_SSA_TEST_SIM_NETGEN_H
#define IBACM_SSA_TEST_SIM_NETGEN_H

#include <string>
#include <vector>

#include "common/base/status.h"

namespace ssa {
namespace test {

// Four 1-port HCAs on two 8-port switches joined by two parallel links
// (Switch1 ports 3 and 5 to Switch2 ports 3 and 5); Hca1 and Hca3 on
// Switch1, Hca2 and Hca4 on Switch2. Identical to test/sim/nets/4hca.net.
std::string FourHcaNet();

// `hcas` 1-port HCAs Hca1..Hca<hcas> on one 8-port switch `sw` (port i
// to Hca<i>); with `router`, router R1 (node GUID 0x0100000000000a00,
// its port 1 GUID 0x0100000000000a01) on the switch's next port: the
// federation tests' subnets, A with its way out to the others.
std::string OneSwitchNet(int hcas, const std::string& sw, bool router);

// One link's enabled masks, as ibsim's w=, s=, e= port options.
struct LinkSpeed {
  int width_mask = 2;  // 4x
  int speed_mask = 1;  // SDR
  int ext_speed_mask = 0;
  // " w=2 s=7 e=1" (e= only when non-zero).
  std::string PortOptions() const;
};

struct FatTreeOptions {
  int hcas = 0;
  int hcas_per_leaf = 18;
  int uplinks_per_leaf = 0;  // 0: leaf_radix - hcas_per_leaf
  int spines = 0;            // 0: uplinks_per_leaf (one link from every leaf to every spine)
  int leaf_radix = 36;
  // Cycle HCA links through 4x QDR/FDR/EDR/HDR, 1x DDR and 12x SDR, and
  // uplinks through 4x EDR/HDR, instead of ibsim's uniform 4x SDR.
  bool mixed_links = false;
};

struct GeneratedNet {
  std::string text;
  // -N/-S/-P (and -L) when ibsim's defaults (2048 nodes, 256 switches, 13312
  // ports, 30720 LIDs) are too small; empty otherwise.
  std::vector<std::string> ibsim_args;
  int hcas = 0;
  int leaves = 0;
  int spines = 0;
  int spine_radix = 0;
  int nodes = 0;  // as ibsim counts them: HCAs + switches
  int switches = 0;
  int ports = 0;  // as ibsim counts them: HCA ports + switch ports + port 0s
};

// A 2-level fat tree. Nodes are named Hca1..HcaN, L1.., S1..; HCA i sits on
// leaf (i-1)/hcas_per_leaf, port (i-1)%hcas_per_leaf+1; leaf uplinks use the
// ports after the HCA ports. With spines <= uplinks, a leaf's k-th uplink goes
// to spine k % spines; with more spines than uplinks, leaf l's uplinks go to
// a window of spines starting at l*(uplinks-1), so consecutive leaves share a
// spine and the tree stays connected. Fails on options ibsim cannot build
// (a switch above 254 ports, more LIDs than unicast allows, ...).
Status FatTreeNet(const FatTreeOptions& options, GeneratedNet* out);

// FatTreeNet, and when one spine per leaf uplink would need more ports than
// ibsim's switches have (past ~4,500 HCAs with the defaults), the fewest
// spines above that which build (benchmarks' big fabrics).
Status FatTreeNetSpread(FatTreeOptions options, GeneratedNet* out);

// A 2-D torus (or with wrap = false, a mesh) of x * y switches named
// T<i>_<j> (i < x, j < y), each with `hcas_per_switch` HCAs: Hca1.. on
// T0_0, then T1_0, ... (HCA h on switch (h / hcas_per_switch) in row-major
// order, i fastest). Switch ports: HCAs first, then +i, -i, +j, -j (a
// dimension of size 1 has no links; one of size 2 gets a single link
// between its two switches, not two). The rings make credit loops, which
// is where SL-choosing routing engines (dfsssp, lash, torus-2QoS, nue)
// give paths different SLs.
struct TorusOptions {
  int x = 3;
  int y = 3;
  int hcas_per_switch = 2;
  bool wrap = true;  // torus; false: mesh
};
Status TorusNet(const TorusOptions& options, GeneratedNet* out);

// What a net file describes, read back (tests, node-name checks).
struct NetNode {
  std::string name;
  bool is_switch = false;
  int ports = 0;
};
struct NetLink {
  std::string node;
  int port = 0;
  std::string remote;
  int remote_port = 0;
  std::string options;  // text after the remote port, trimmed ("w=2 s=7")
};
struct NetDescription {
  std::vector<NetNode> nodes;  // in file order
  std::vector<NetLink> links;  // one per connected port line (two per link)
  const NetNode* FindNode(const std::string& name) const;
};
// Reads node records (Switch/Hca/Ca/Rt headers and their port lines); other
// lines (comments, ibsim directives) are skipped.
Status ParseNet(const std::string& text, NetDescription* out);

}  // namespace test
}  // namespace ssa

#endif
