// sim_registry.h: the process-wide list of child process groups to kill when
// this process is interrupted.
//
// An interrupted test run (Ctrl-C, a CI timeout's SIGTERM) must not leave
// ibsim, OpenSM or node processes behind. Every fabric child is started in its
// own process group and registered here; the handler installed by
// InstallSignalHandlers() SIGKILLs every registered group on SIGINT, SIGTERM,
// SIGHUP or SIGQUIT, then restores the previous disposition and re-raises the
// signal, so the process still dies (or the previous handler still runs).
//
// Process-wide by nature (a signal handler has no object to borrow), so it is
// static; all functions may be called from any thread. The table is a fixed
// array of atomics so the handler is async-signal-safe. Children also carry
// PR_SET_PDEATHSIG, which covers deaths no handler sees (SIGKILL, abort).
#ifndef IBACM_SSA_TEST_SIM_SIM_REGISTRY_H
#define IBACM_SSA_TEST_SIM_SIM_REGISTRY_H

#include <sys/types.h>

namespace ssa {
namespace test {

class ChildRegistry {
 public:
  // Installs the handlers once per process; a signal whose disposition is
  // SIG_IGN is left alone.
  static void InstallSignalHandlers();
  // Returns false when the table (256 entries) is full; the child is then
  // covered by PR_SET_PDEATHSIG only.
  static bool Add(pid_t pgid);
  static void Remove(pid_t pgid);
  // SIGKILLs every registered group now (what the handler does).
  static void KillAll();
};

}  // namespace test
}  // namespace ssa

#endif
