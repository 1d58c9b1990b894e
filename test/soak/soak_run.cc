// soak_run.cc: the chaos soak's interface (soak_run.h and doc/soak.md):
// the summary and RunSoak; the runner is soak_runner.h.
#include "test/soak/soak_run.h"

#include <cinttypes>
#include <cstdlib>
#include <cstring>
#include <string>

#include "test/soak/soak_runner.h"

namespace ssa {
namespace soak {

using run::Printf;

std::string SoakResult::Summary() const {
  std::string s;
  auto line = [&](const std::string& name, const std::string& value) {
    s += name + " = " + value + "\n";
  };
  line("result", passed ? "PASS" : "FAIL");
  line("seed", std::to_string(seed));
  line("duration_s", Printf("%.0f", duration_s));
  line("wall_s", Printf("%.0f", wall_s));
  line("events", std::to_string(events));
  for (const char* kind : {"link_down_up", "port_flap", "kill_restart", "stop_cont", "sm_failover",
                           "faulty_restart", "client_burst"}) {
    auto it = events_by_kind.find(kind);
    line(std::string("events_") + kind,
         std::to_string(it == events_by_kind.end() ? 0 : it->second));
  }
  line("sa_states", std::to_string(oracle.snapshots));
  line("sa_gaps_unrecorded", std::to_string(oracle.unrecorded_gaps));
  line("sm_resweeps", std::to_string(resweeps));
  line("sm_hangs", std::to_string(sm_hangs));
  line("resolves_checked", std::to_string(oracle.checked));
  line("fresh_answers", std::to_string(oracle.fresh));
  line("wrong_answers", std::to_string(oracle.wrong));
  line("stale_answers", std::to_string(oracle.stale));
  line("unjudged_answers", std::to_string(oracle.unjudged));
  line("max_stale_s", Printf("%.1f", oracle.max_stale_s));
  line("errors_known_destinations", std::to_string(oracle.errors_known));
  line("errors_before_first_prdb", std::to_string(oracle.errors_startup));
  line("refused_unconfirmed", std::to_string(oracle.refused_unconfirmed));
  line("unanswered", std::to_string(oracle.unanswered));
  line("unanswered_daemon_disrupted", std::to_string(oracle.unanswered_excused));
  line("table_answers", std::to_string(table_answers));
  line("burst_requests", std::to_string(burst_requests));
  line("bursts_failed", std::to_string(burst_failures) + " of " + std::to_string(bursts_judged));
  line("epoch_regressions", std::to_string(epoch_regressions));
  line("unexpected_exits", std::to_string(unexpected_exits));
  line("sanitizer_reports", std::to_string(sanitizer_reports));
  line("core_epoch", std::to_string(core_epoch));
  line("convergence_s", convergence_s < 0 ? "none" : Printf("%.1f", convergence_s));
  line("last_event", last_action.empty() ? "-" : last_action);
  line("max_rss_growth_mb", Printf("%.1f", max_rss_growth_mb));
  line("max_rss_growth_of", max_rss_growth_of.empty() ? "-" : max_rss_growth_of);
  for (const std::string& f : failures) s += "failure: " + f + "\n";
  if (!run_dir.empty()) s += "kept: " + run_dir + "\n";
  return s;
}

Status RunSoak(const SoakOptions& options, SoakResult* result) {
  *result = SoakResult();
#if defined(__SANITIZE_ADDRESS__)
  // Freed memory waits in ASan's quarantine (256 MB by default) before
  // reuse, so every daemon's RSS would grow by that much: a small one
  // keeps the memory check meaningful (the harness passes ASAN_OPTIONS on).
  const char* asan = getenv("ASAN_OPTIONS");
  if (!asan || !strstr(asan, "quarantine_size_mb")) {
    std::string v = std::string(asan && *asan ? asan : "");
    setenv("ASAN_OPTIONS", (v + (v.empty() ? "" : ":") + "quarantine_size_mb=16").c_str(), 1);
  }
#endif
  run::Runner runner(options, result);
  return runner.Run();
}

}  // namespace soak
}  // namespace ssa
