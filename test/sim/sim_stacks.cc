// sim_stacks.cc: see sim_stacks.h.
#include "test/sim/sim_stacks.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>

#include "test/sim/sim_child.h"
#include "test/sim/sim_util.h"

namespace ssa {
namespace test {

std::string ThreadStacks(pid_t pid) {
  std::string gdb = FindProgram("gdb");
  if (gdb.empty()) return "(no gdb: no thread stacks)";
  const char* tmp = getenv("TMPDIR");
  std::string path = std::string(tmp && *tmp ? tmp : "/tmp") + "/sim-stacks.XXXXXX";
  int fd = mkstemp(&path[0]);
  if (fd < 0) return "(no thread stacks: cannot create " + path + ")";
  close(fd);
  LaunchSpec spec;
  spec.argv = {gdb, "-batch", "-nx", "-p", std::to_string(pid), "-ex", "thread apply all bt 20"};
  spec.output_path = path;
  pid_t child = -1;
  Status st = LaunchChild(spec, &child);
  std::string out;
  if (st.ok()) {
    int status = 0;
    // gdb itself must not become the hang.
    if (!WaitForExit(child, std::chrono::seconds(60), &status))
      TerminateChild(child, true, std::chrono::milliseconds(0));
    ReadFileToString(path, &out);
  }
  unlink(path.c_str());
  if (!st.ok()) return "(gdb failed: " + st.ToString() + ")";
  return "thread stacks of pid " + std::to_string(pid) + ":\n" + out;
}

bool StuckInUmad2simExit(const std::string& stacks) {
  // The main thread runs the exit handlers, and the first frame above them
  // that is not a sanitizer's interceptor (TSan and ASan wrap the handlers
  // registered with atexit) is umad2sim's.
  size_t at = stacks.find("__run_exit_handlers");
  if (at == std::string::npos) return false;
  size_t frame = stacks.rfind("\n#", at);
  while (frame != std::string::npos && frame != 0) {
    size_t above = stacks.rfind("\n#", frame - 1);
    if (above == std::string::npos) return false;
    std::string line = stacks.substr(above, frame - above);
    if (line.find("libsanitizer") == std::string::npos) {
      return line.find("libumad2sim") != std::string::npos;
    }
    frame = above;
  }
  return false;
}

}  // namespace test
}  // namespace ssa
