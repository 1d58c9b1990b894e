// sim_console.h: commands to ibsim's console, with their replies.
//
// ibsim reads commands from its stdin (the run directory's `ctl` fifo) and
// prints replies to its stdout (ibsim.out), interleaved with asynchronous
// warnings. To know when a command is done and which output is its reply, a
// command is sent bracketed by two comment lines carrying a unique token
// ("# simfab <token> begin" ... "# simfab <token> end"): ibsim echoes comments,
// so the reply is what appears between the two echoes. The three lines go in
// one write() (< PIPE_BUF, hence atomic), so commands from other processes
// never land in between.
//
// Console commands verified with ibsim 0.10 (see `help` in ibsim.out):
//   Unlink "Hca4"            remove all links of a node
//   Unlink "Switch1"[3]      remove one port's link
//   ReLink "Hca4"            restore the node's links removed by Unlink
//   ReLink "Switch1"[3]      restore one
//   Link "A"[1] "B"[2]       connect two free ports
//   Attached                 "Client <n>: pid <p> connected at "<node>" ..."
//   X <n>                    forget client <n> (frees its slot)
// Errors are reply lines of "# " and a lower-case word ("# nodeid "Hca9"
// (Hca9) not found", "# can't unlink port 3 ..."); Dump's "# Net status"
// lines are not errors.
//
// An IbsimConsole is a small value (paths and a pid), cheap to create per
// command; not shared between threads. It borrows `ctl_fd` if given.
#ifndef IBACM_SSA_TEST_SIM_SIM_CONSOLE_H
#define IBACM_SSA_TEST_SIM_SIM_CONSOLE_H

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "common/base/status.h"
#include "test/sim/sim_run_dir.h"

namespace ssa {
namespace test {

struct AttachedClient {
  int id = -1;  // the number `X <n>` takes
  pid_t pid = 0;
  std::string node;
  bool is_sm = false;
};

// Parses the reply of `Attached`; other lines are ignored.
std::vector<AttachedClient> ParseAttached(const std::string& reply);

class IbsimConsole {
 public:
  // `ctl_fd`: an open descriptor on the fifo to write to (borrowed), or -1 to
  // open the fifo for each command.
  IbsimConsole(RunDirLayout layout, pid_t ibsim_pid, int ctl_fd = -1)
      : layout_(std::move(layout)), ibsim_pid_(ibsim_pid), ctl_fd_(ctl_fd) {}

  // Sends one command line and waits until ibsim has processed it. `reply`
  // (may be null) gets its output without prompts and warnings. An ibsim
  // error line (see above) or "unknown command" makes this an error.
  Status Command(const std::string& command, std::string* reply,
                 std::chrono::milliseconds timeout = std::chrono::seconds(10));

  Status ListAttached(std::vector<AttachedClient>* clients);

  // ibsim keeps the client slot of a process that died without a clean exit
  // (killed by a signal) until `X <n>`. This sends X for every listed client
  // whose process is gone. Serialized across processes by reap.lock so that
  // no one frees a number a new process was just given.
  Status ReleaseDeadClients(int* released);

 private:
  Status Send(const std::string& text);

  RunDirLayout layout_;
  pid_t ibsim_pid_;
  int ctl_fd_;
};

}  // namespace test
}  // namespace ssa

#endif
