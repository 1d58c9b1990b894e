// sim_run_dir.cc: fabric.info and node environments.
#include "test/sim/sim_run_dir.h"

#include <link.h>

#include <cstdlib>
#include <cstring>
#include <sstream>

#include "test/sim/sim_util.h"
#include "test/support/temp_dir.h"

namespace ssa {
namespace test {

const char kUmad2simPath[] = "/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so";

Status WriteFabricInfo(const RunDirLayout& layout, const FabricInfo& info) {
  std::ostringstream out;
  out << "sock_name=" << info.sock_name << "\n"
      << "ibsim_pid=" << info.ibsim_pid << "\n"
      << "opensm_pid=" << info.opensm_pid << "\n"
      << "sm_node=" << info.sm_node << "\n";
  // Readers may look at any time: write aside, then rename into place.
  std::string tmp = layout.info() + ".tmp";
  Status s = WriteStringToFile(tmp, out.str());
  if (!s.ok()) return s;
  if (rename(tmp.c_str(), layout.info().c_str()) != 0)
    return Status::FromErrno("cannot rename " + tmp);
  return Status::Ok();
}

Status ReadFabricInfo(const RunDirLayout& layout, FabricInfo* info) {
  std::string text;
  Status s = ReadFileToString(layout.info(), &text);
  if (!s.ok()) return s.WithContext("not a simfab run directory? " + layout.dir);
  std::istringstream in(text);
  std::string line;
  *info = FabricInfo();
  while (std::getline(in, line)) {
    size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string key = line.substr(0, eq), value = line.substr(eq + 1);
    if (key == "sock_name")
      info->sock_name = value;
    else if (key == "ibsim_pid")
      info->ibsim_pid = atoi(value.c_str());
    else if (key == "opensm_pid")
      info->opensm_pid = atoi(value.c_str());
    else if (key == "sm_node")
      info->sm_node = value;
  }
  if (info->sock_name.empty() || info->ibsim_pid <= 0)
    return Status::Error(EINVAL, layout.info() + ": no sock_name or ibsim_pid");
  return Status::Ok();
}

std::map<std::string, std::string> NodeEnvironment(const std::string& sock_name,
                                                   const std::string& node) {
  std::string preload = kUmad2simPath;
  const char* existing = getenv("LD_PRELOAD");
  if (existing && *existing) {
    std::string current = existing;
    preload = current.find("umad2sim") != std::string::npos ? current : current + ":" + preload;
  }
  // An ASan-built node program (--enable-sanitizers) refuses to start when
  // the preloaded umad2sim comes before the ASan runtime; the order is
  // harmless here, so tell ASan not to check it. umad2sim over-reads its own
  // buffers on every receive, OpenSM has a send/free race and leaks at
  // exit: the suppressions files name exactly those third-party defects.
  // Programs without ASan ignore all of this.
  std::string asan = std::string("verify_asan_link_order=0:suppressions=") + SIM_ASAN_SUPPRESSIONS;
  const char* asan_existing = getenv("ASAN_OPTIONS");
  if (asan_existing && *asan_existing) asan = std::string(asan_existing) + ":" + asan;
  std::string lsan = std::string("suppressions=") + SIM_LSAN_SUPPRESSIONS;
  const char* lsan_existing = getenv("LSAN_OPTIONS");
  if (lsan_existing && *lsan_existing) lsan = std::string(lsan_existing) + ":" + lsan;
  // A TSan-built node program (--enable-tsan), and OpenSM with TSan
  // preloaded for the plugin, see umad2sim's and OpenSM's own threads touch
  // memory without synchronization TSan can see: that file names those
  // third-party reports.
  std::string tsan = std::string("suppressions=") + SIM_TSAN_SUPPRESSIONS;
  const char* tsan_existing = getenv("TSAN_OPTIONS");
  if (tsan_existing && *tsan_existing) tsan = std::string(tsan_existing) + ":" + tsan;
  return {{"LD_PRELOAD", preload}, {"SIM_HOST", node},     {"IBSIM_SOCKNAME", sock_name},
          {"ASAN_OPTIONS", asan},  {"LSAN_OPTIONS", lsan}, {"TSAN_OPTIONS", tsan}};
}

std::string SanitizerRuntimePreload() {
  std::string preload;
  dl_iterate_phdr(
      [](struct dl_phdr_info* info, size_t, void* data) {
        std::string* out = static_cast<std::string*>(data);
        const char* base = strrchr(info->dlpi_name, '/');
        base = base ? base + 1 : info->dlpi_name;
        if (strncmp(base, "libasan.so", 10) == 0 || strncmp(base, "libubsan.so", 11) == 0 ||
            strncmp(base, "libtsan.so", 10) == 0) {
          if (!out->empty()) *out += ":";
          *out += info->dlpi_name;
        }
        return 0;
      },
      &preload);
  return preload;
}

std::string MergePreload(const std::string& extra, const std::string& node_preload) {
  std::string before, after;
  std::istringstream in(extra);
  std::string lib;
  while (std::getline(in, lib, ':')) {
    if (lib.empty()) continue;
    std::string& part = Basename(lib).compare(0, 10, "libtsan.so") == 0 ? after : before;
    part += (part.empty() ? "" : ":") + lib;
  }
  std::string out = before;
  for (const std::string* p : {&node_preload, static_cast<const std::string*>(&after)})
    if (!p->empty()) out += (out.empty() ? "" : ":") + *p;
  return out;
}

Status MakeProcessDir(const RunDirLayout& layout, const std::string& node,
                      const std::string& program, std::string* dir) {
  std::string prefix = node + "." + Basename(program) + ".";
  for (char& c : prefix)
    if (c == '/' || c == ' ') c = '_';
  return MakeTempDir(layout.procs_dir(), prefix, dir);
}

}  // namespace test
}  // namespace ssa
