// sim_run_dir.h: the layout of a fabric's run directory, and what a process
// needs in its environment to be a node of that fabric.
//
// The run directory is the contract between SimFabric (which creates it) and
// the simfab CLI's node/console/link-*/wait-up commands (which find it through
// $SIMFAB_DIR), so both sides use these names:
//
//   net            the ibsim net file
//   ctl            ibsim's console fifo; `echo 'Dump' > ctl` works from a shell
//   ibsim.out      ibsim's stdout and stderr (console replies land here)
//   osm.log        OpenSM's log (-f); "SUBNET UP" lines are counted here
//   opensm/        OpenSM's working directory (umad2sim's sys-<pid>/, opensm.out)
//   fabric.info    key=value: sock_name, ibsim_pid, opensm_pid, sm_node
//   slots/0..9     attach-slot lock files (see sim_slots.h)
//   reap.lock      serializes freeing ibsim clients of dead processes
//   procs/         one working directory per node process (output.log inside)
//
// Plain values and functions; safe from any thread.
#ifndef IBACM_SSA_TEST_SIM_SIM_RUN_DIR_H
#define IBACM_SSA_TEST_SIM_SIM_RUN_DIR_H

#include <sys/types.h>

#include <map>
#include <string>

#include "common/base/status.h"

namespace ssa {
namespace test {

// Debian's libumad2sim0; preloading it turns a libibumad program into a node.
extern const char kUmad2simPath[];

struct RunDirLayout {
  std::string dir;
  std::string net() const { return dir + "/net"; }
  std::string ctl() const { return dir + "/ctl"; }
  std::string ibsim_out() const { return dir + "/ibsim.out"; }
  std::string osm_log() const { return dir + "/osm.log"; }
  std::string opensm_dir() const { return dir + "/opensm"; }
  std::string info() const { return dir + "/fabric.info"; }
  std::string slots_dir() const { return dir + "/slots"; }
  std::string reap_lock() const { return dir + "/reap.lock"; }
  std::string procs_dir() const { return dir + "/procs"; }
};

struct FabricInfo {
  std::string sock_name;  // IBSIM_SOCKNAME
  pid_t ibsim_pid = 0;
  pid_t opensm_pid = 0;  // 0 when started without OpenSM
  std::string sm_node;
};

Status WriteFabricInfo(const RunDirLayout& layout, const FabricInfo& info);
Status ReadFabricInfo(const RunDirLayout& layout, FabricInfo* info);

// LD_PRELOAD (umad2sim appended to any preload we already have, so e.g. a
// sanitizer runtime stays first), SIM_HOST and IBSIM_SOCKNAME; ASAN_OPTIONS,
// LSAN_OPTIONS and TSAN_OPTIONS (added after any already set) for
// sanitizer-built programs.
std::map<std::string, std::string> NodeEnvironment(const std::string& sock_name,
                                                   const std::string& node);

// The sanitizer runtimes (libasan, libubsan, libtsan) this process runs
// with, as an LD_PRELOAD value; empty in a build without sanitizers. An
// uninstrumented program that dlopen()s a sanitizer-built module (OpenSM
// loading the ibssa_osm plugin) needs them preloaded: ASan must be first in
// the process, and a TSan-built module cannot even be loaded without
// libtsan (undefined symbol __tsan_init).
std::string SanitizerRuntimePreload();

// `extra` (colon-separated libraries) joined with a node's LD_PRELOAD
// (umad2sim's), in the order each needs: ASan's and UBSan's runtimes and
// anything else first (ASan must be the first library in the process),
// TSan's runtime after umad2sim. TSan's interceptors call the next
// definition of open(), read(), poll()..., which would be umad2sim's
// wrapper if umad2sim came after TSan; when TSan reports while umad2sim
// holds its lock (its threads race in OpenSM), the report's symbolizer
// open()s a file through that wrapper, takes the same lock and hangs OpenSM.
std::string MergePreload(const std::string& extra, const std::string& node_preload);

// A fresh, unique working directory under procs/ for one node process:
// umad2sim writes ./sys-<pid>/ into the working directory.
Status MakeProcessDir(const RunDirLayout& layout, const std::string& node,
                      const std::string& program, std::string* dir);

}  // namespace test
}  // namespace ssa

#endif
