// thread_cpu.cc: see thread_cpu.h.
#include "test/bench/thread_cpu.h"

#include <dirent.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace ssa {
namespace bench {
namespace {

// The role: the thread's name without a trailing number.
std::string RoleOf(std::string name) {
  while (!name.empty() && isdigit(static_cast<unsigned char>(name.back()))) name.pop_back();
  return name.empty() ? "?" : name;
}

// One thread's name and CPU seconds from its stat line: the name is in
// parentheses (and may hold spaces), utime and stime are fields 14 and 15.
bool ReadThread(const std::string& path, std::string* name, double* seconds) {
  std::ifstream f(path);
  std::string line;
  if (!std::getline(f, line)) return false;
  size_t open = line.find('('), close = line.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return false;
  *name = line.substr(open + 1, close - open - 1);
  std::istringstream rest(line.substr(close + 2));
  std::string field;
  // Fields 3..13, then utime (14) and stime (15).
  for (int i = 3; i <= 13; ++i) rest >> field;
  unsigned long long utime = 0, stime = 0;
  if (!(rest >> utime >> stime)) return false;
  *seconds = static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
  return true;
}

}  // namespace

CpuByRole ReadCpuByRole(const std::vector<pid_t>& pids) {
  CpuByRole out;
  for (pid_t pid : pids) {
    std::string dir = "/proc/" + std::to_string(pid) + "/task";
    DIR* d = opendir(dir.c_str());
    if (!d) continue;
    while (struct dirent* e = readdir(d)) {
      if (!isdigit(static_cast<unsigned char>(e->d_name[0]))) continue;
      std::string name;
      double s = 0;
      if (ReadThread(dir + "/" + e->d_name + "/stat", &name, &s)) out[RoleOf(name)] += s;
    }
    closedir(d);
  }
  return out;
}

CpuByRole CpuSpent(const CpuByRole& before, const CpuByRole& after) {
  CpuByRole out;
  for (const auto& a : after) {
    auto b = before.find(a.first);
    double spent = a.second - (b == before.end() ? 0 : b->second);
    if (spent > 0) out[a.first] = spent;
  }
  return out;
}

double CpuTotal(const CpuByRole& c) {
  double t = 0;
  for (const auto& r : c) t += r.second;
  return t;
}

}  // namespace bench
}  // namespace ssa
