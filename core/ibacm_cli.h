// ibacm_cli.h: the ibacm command line: parses the options and runs a
// Daemon in the project's daemon shell (common/base/daemon_shell.h:
// detaching, signals, run directory and lock file, systemd notifications).
// main() is this alone; a test program of the simulated fabric runs it
// with its own netlink sockets.
#ifndef IBACM_SSA_CORE_IBACM_CLI_H
#define IBACM_SSA_CORE_IBACM_CLI_H

#include "core/netlink/netlink_socket.h"

namespace ssa {

// ibacm's main(): the exit status. `netlink_open`: Daemon::Settings'
// seam (empty: real sockets).
int IbacmMain(int argc, char** argv, const NetlinkOpenFn& netlink_open = nullptr);

}  // namespace ssa

#endif
