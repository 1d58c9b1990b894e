// verbs_datagram.h: the real-HCA backend of datagram_transport.h: one UD QP
// per endpoint, through libibverbs.
//
// Open() opens the named device (its own verbs context per endpoint, so an
// endpoint owns everything it uses), allocates a PD, a completion channel
// (its fd, non-blocking, is the endpoint's fd()), a receive CQ and a send
// CQ on that channel, and a UD QP taken to RTS with the
// endpoint's P_Key index, port and Q_Key. recv_depth receive buffers of 40 (GRH) + 256 bytes are
// posted up front and re-posted as they are consumed; send_depth send buffers are registered once.
// A send takes a free send buffer (none free: -EAGAIN), creates an address handle from the address
// vector (GRH with SGID index 0), posts a signaled send and frees both when its completion is
// polled. Join()/Leave() are ibv_attach_mcast()/ibv_detach_mcast().
//
// Receive() first consumes completion-channel events (acking them and
// re-arming the CQ each came from), reaps send completions (recycling buffers and
// address handles), then polls the receive CQ: each completion is returned
// with slid/src_qp/sl from the work completion and the SGID/DGID from the
// GRH, and its buffer re-posted. A send completion makes the fd readable
// too, so a caller whose send got EAGAIN learns when to try again. No thread: the channel fd is
// watched on the caller's event loop, as every fd of the daemon is.
//
// Built wherever libibverbs is installed; it needs an HCA to run. Without
// one, Open() fails cleanly with -ENODEV ("no verbs device ...").
//
// Ownership: an endpoint owns its verbs objects and frees them, children
// first, when destroyed. Threads: one at a time.
#ifndef IBACM_SSA_PROVIDERS_ACMP_VERBS_DATAGRAM_H
#define IBACM_SSA_PROVIDERS_ACMP_VERBS_DATAGRAM_H

#include <memory>
#include <string>

#include "providers/acmp/datagram_transport.h"

namespace ssa {
namespace dgram {

// Bytes of GRH in front of every UD receive buffer (IBA: 40).
constexpr size_t kGrhSize = 40;

std::unique_ptr<DatagramTransport> MakeVerbsDatagramTransport();

// How many verbs devices libibverbs lists (0 on the simulated fabric and on
// machines without HCAs).
int VerbsDeviceCount();

}  // namespace dgram
}  // namespace ssa

#endif
