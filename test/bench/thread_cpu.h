// thread_cpu.h: CPU time by thread name over a set of processes, so a
// benchmark phase can say which part of the program its time went to
// (the bench names its threads by role: prdb-workers, members, consumers0,
// ...). Read from /proc/PID/task/TID/stat; a number at the end of a name
// is dropped, so consumers0 and consumers1 count as "consumers". Time the
// kernel spends for a thread (its system calls, its page faults, the
// loopback TCP it drives) is that thread's.
#ifndef IBACM_SSA_TEST_BENCH_THREAD_CPU_H
#define IBACM_SSA_TEST_BENCH_THREAD_CPU_H

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

namespace ssa {
namespace bench {

// Seconds of CPU (user + system) by role, summed over the threads alive now.
using CpuByRole = std::map<std::string, double>;

CpuByRole ReadCpuByRole(const std::vector<pid_t>& pids);
// after - before, role by role (a role only in `after` counts whole:
// threads started during the phase).
CpuByRole CpuSpent(const CpuByRole& before, const CpuByRole& after);
double CpuTotal(const CpuByRole& c);

}  // namespace bench
}  // namespace ssa

#endif
