// sim_datagram.h: the simulated-fabric backend of datagram_transport.h.
//
// On ibsim, node-to-node MADs cannot carry ACM traffic (umad2sim hands
// unsolicited MADs to the SM's process only) and there is no verbs device,
// so the daemons of one simulated fabric exchange their UD datagrams
// through unix datagram sockets in a directory they share:
//
//   <dir>/ud/<lid>.<qpn>     one bound socket per endpoint: its base LID
//                            (decimal) and QPN (hex). QPNs are allocated
//                            from 0x100 up, the first free name wins; a
//                            name whose socket nobody serves any more (a
//                            daemon that died) is reclaimed.
//   <dir>/mc/<mgid>/<lid>.<qpn>
//                            an empty file per member of multicast group
//                            <mgid> (32 hex digits), created by Join() after
//                            the real SA MCMemberRecord join succeeded and
//                            removed by Leave(); a member found dead when
//                            sending is removed.
//
// Every datagram starts with a 64-byte header standing in for the LRH,
// GRH, BTH and DETH a receive completion reports (big-endian):
//    0 magic "IBDG"            20 Q_Key (4)
//    4 version (1) = 1          24 P_Key (2)
//    5 flags: 1 GRH, 2 mcast    26 SL (1), 27 reserved (1)
//    6 payload length (2)       28 SGID (16)
//    8 SLID (2)                 44 DGID (16; the MGID for multicast)
//   10 DLID (2)                 60 reserved (4)
//   12 source QPN (4)           64 payload (at most 256 bytes)
//   16 destination QPN (4; 0xffffff for multicast)
// A receiver checks what an HCA checks: the destination QPN is its own (or
// multicast to a group it joined), the Q_Key is its own, the P_Key matches
// its own (membership bit aside, one of them a full member). Anything else
// is counted in stats().rejected (and rejected_by, by reason) and dropped.
// As on a UD QP, a sender's Q_Key with the high bit set is replaced by the
// sender's own Q_Key.
//
// Delivery is as unreliable as UD: a receiver whose socket queue is full
// (Linux allows net.unix.max_dgram_qlen datagrams, 10 by default) or gone
// loses the datagram, counted in stats().undeliverable on the sending side.
// The directory comes from the caller (config `[acmp] sim_dir`, or
// DefaultSimDatagramDir()).
//
// Ownership: the endpoint owns its socket, its socket file and its member
// files (all removed when it is destroyed). Threads: one at a time; the
// socket is non-blocking and its fd level-triggered.
#ifndef IBACM_SSA_PROVIDERS_ACMP_SIM_DATAGRAM_H
#define IBACM_SSA_PROVIDERS_ACMP_SIM_DATAGRAM_H

#include <memory>
#include <string>

#include "providers/acmp/datagram_transport.h"

namespace ssa {
namespace dgram {

constexpr size_t kSimHeaderSize = 64;
constexpr uint32_t kSimFirstQpn = 0x100;

// The transport for the daemons whose sockets live under `dir` (created if
// missing, with its ud/ and mc/ subdirectories, on the first Open()).
std::unique_ptr<DatagramTransport> MakeSimDatagramTransport(const std::string& dir);

// Where daemons of one simulated fabric meet when no directory is
// configured: $SIMFAB_DIR/acmp-dgram inside a simfab run, else
// ${TMPDIR:-/tmp}/ibacm-acmp-dgram-<IBSIM_SOCKNAME or "default">, so the
// daemons of one ibsim instance (and only those) find each other.
std::string DefaultSimDatagramDir();

// The 32 hex digits naming a group's directory.
std::string MgidDirName(const Gid& mgid);

}  // namespace dgram
}  // namespace ssa

#endif
