// sim_registry.cc: async-signal-safe table of child process groups.
#include "test/sim/sim_registry.h"

#include <signal.h>

#include <atomic>
#include <mutex>

namespace ssa {
namespace test {
namespace {

constexpr int kMaxChildren = 256;
std::atomic<pid_t> g_children[kMaxChildren];

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
struct sigaction g_previous[sizeof(kSignals) / sizeof(kSignals[0])];
std::once_flag g_install_once;

void OnFatalSignal(int sig) {
  ChildRegistry::KillAll();
  // Put back what was there before us and deliver the signal again once this
  // handler returns (it is blocked while we run).
  for (size_t i = 0; i < sizeof(kSignals) / sizeof(kSignals[0]); ++i)
    if (kSignals[i] == sig) sigaction(sig, &g_previous[i], nullptr);
  raise(sig);
}

}  // namespace

void ChildRegistry::InstallSignalHandlers() {
  std::call_once(g_install_once, [] {
    for (size_t i = 0; i < sizeof(kSignals) / sizeof(kSignals[0]); ++i) {
      struct sigaction current;
      if (sigaction(kSignals[i], nullptr, &current) != 0) continue;
      if (!(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_IGN) continue;
      g_previous[i] = current;
      struct sigaction sa = {};
      sa.sa_handler = OnFatalSignal;
      sigemptyset(&sa.sa_mask);
      sa.sa_flags = SA_RESTART;
      sigaction(kSignals[i], &sa, nullptr);
    }
  });
}

bool ChildRegistry::Add(pid_t pgid) {
  for (auto& slot : g_children) {
    pid_t expected = 0;
    if (slot.compare_exchange_strong(expected, pgid)) return true;
  }
  return false;
}

void ChildRegistry::Remove(pid_t pgid) {
  for (auto& slot : g_children) {
    pid_t expected = pgid;
    if (slot.compare_exchange_strong(expected, 0)) return;
  }
}

void ChildRegistry::KillAll() {
  for (auto& slot : g_children) {
    pid_t pgid = slot.load();
    if (pgid <= 0) continue;
    kill(-pgid, SIGKILL);  // the group: the child and anything it forked
    kill(pgid, SIGKILL);   // the child itself, should it have left its group
  }
}

}  // namespace test
}  // namespace ssa
