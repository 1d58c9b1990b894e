// sim_stacks.h: where a process that does not end is stuck: every thread's
// stack (through gdb), and whether they show umad2sim's exit-handler
// deadlock, a third-party hang the harness tells from one of ours
// (doc/simulated-fabric.md). Used when stopping our daemons and OpenSM.
//
// Plain functions; callable from any thread.
#ifndef IBACM_SSA_TEST_SIM_SIM_STACKS_H
#define IBACM_SSA_TEST_SIM_SIM_STACKS_H

#include <sys/types.h>

#include <string>

namespace ssa {
namespace test {

// Every thread's stack of a live process, through gdb when it is installed
// (for the report of a hang), else a line saying why there are none.
std::string ThreadStacks(pid_t pid);

// Whether ThreadStacks' text shows the main thread stuck in umad2sim's exit
// handler: it holds its device lock while it cancels and joins its receiver
// thread, which waits for that lock when a MAD arrives at that moment (not
// a cancellation point), so the process never ends (doc/simulated-fabric.md).
bool StuckInUmad2simExit(const std::string& stacks);

}  // namespace test
}  // namespace ssa

#endif
