// soak_main.cc: `soak`, the chaos soak as a program (scripts/soak.sh runs
// it; doc/soak.md). Progress and the event log go to stderr as the run
// goes, the summary (`name = value` lines) to stdout at the end.
//
//   soak [--minutes N | --seconds N] [--seed S] [--stale-bound S]
//        [--max-errors N] [--converge-limit S] [--rss-limit MB]
//        [--think-us N] [--handover] [--long-outages] [--torus-slices]
//        [--print-schedule]
//   soak --federated [--peers 1|2] [--hold-s S] [--seconds N | --minutes N] [--seed S]
//        [--converge-limit S] [--print-schedule]
//
// Exit status: 0 when every invariant held, 1 when one did not, 2 when
// the run could not be made (bad options, the fabric did not come up).
#include <getopt.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "test/soak/fed_soak.h"
#include "test/soak/soak_run.h"
#include "test/soak/soak_schedule.h"

namespace {

void Usage() {
  fprintf(stderr,
          "usage: soak [--minutes N | --seconds N] [--seed S] [--stale-bound S]\n"
          "            [--max-errors N] [--converge-limit S] [--rss-limit MB] [--think-us N]\n"
          "            [--handover] [--long-outages] [--torus-slices] [--print-schedule]\n");
}

bool Number(const char* s, double min, double* out) {
  char* end = nullptr;
  double v = strtod(s, &end);
  if (!*s || *end || v < min) return false;
  *out = v;
  return true;
}

// The federated mode (fed_soak.h): the options it shares with the soak
// (duration, seed, convergence limit) come from `o`.
int RunFederated(const ssa::soak::SoakOptions& o, ssa::soak::FedSoakOptions fo,
                 bool print_schedule) {
  fo.seed = o.seed;
  fo.duration_s = o.duration_s;
  fo.converge_limit_s = o.converge_limit_s;
  if (print_schedule) {
    for (const auto& e : ssa::soak::MakeFedSchedule(fo))
      printf("%7.1f s  %s\n", e.at_s, e.Describe().c_str());
    return 0;
  }
  ssa::soak::FedSoakResult r;
  ssa::Status st = ssa::soak::RunFederatedSoak(fo, &r);
  if (!st.ok()) {
    fprintf(stderr, "soak: the run could not be made: %s\n", st.ToString().c_str());
    return 2;
  }
  if (!r.passed)
    fprintf(
        stderr,
        "\n== the events as executed (seed %" PRIu64
        ") ==\n%s"
        "replay: scripts/soak.sh --federated --peers %d --hold-s %d --seconds %.0f --seed %" PRIu64
        "\n",
        r.seed, r.event_log.c_str(), fo.peers, fo.hold_s, r.duration_s, r.seed);
  printf("\n%s", r.Summary().c_str());
  return r.passed ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  ssa::soak::SoakOptions o;
  o.progress = stderr;
  bool print_schedule = false;
  bool federated = false;
  ssa::soak::FedSoakOptions fo;
  fo.progress = stderr;
  enum {
    kMinutes = 1,
    kSeconds,
    kSeed,
    kStale,
    kMaxErrors,
    kConverge,
    kRss,
    kThink,
    kHandover,
    kLongOutages,
    kTorusSlices,
    kPrint,
    kFederated,
    kPeers,
    kHold
  };
  static const option kLong[] = {{"minutes", required_argument, nullptr, kMinutes},
                                 {"seconds", required_argument, nullptr, kSeconds},
                                 {"seed", required_argument, nullptr, kSeed},
                                 {"stale-bound", required_argument, nullptr, kStale},
                                 {"max-errors", required_argument, nullptr, kMaxErrors},
                                 {"converge-limit", required_argument, nullptr, kConverge},
                                 {"rss-limit", required_argument, nullptr, kRss},
                                 {"think-us", required_argument, nullptr, kThink},
                                 {"handover", no_argument, nullptr, kHandover},
                                 {"long-outages", no_argument, nullptr, kLongOutages},
                                 {"torus-slices", no_argument, nullptr, kTorusSlices},
                                 {"print-schedule", no_argument, nullptr, kPrint},
                                 {"federated", no_argument, nullptr, kFederated},
                                 {"peers", required_argument, nullptr, kPeers},
                                 {"hold-s", required_argument, nullptr, kHold},
                                 {nullptr, 0, nullptr, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "", kLong, nullptr)) != -1) {
    double v = 0;
    bool ok = c == kPrint || c == kFederated || c == kHandover || c == kLongOutages ||
              c == kTorusSlices || (optarg && Number(optarg, 0, &v));
    switch (c) {
      case kMinutes: o.duration_s = v * 60; break;
      case kSeconds: o.duration_s = v; break;
      case kSeed: o.seed = strtoull(optarg, nullptr, 0); break;
      case kStale: o.stale_bound_s = v; break;
      case kMaxErrors: o.max_errors_known = static_cast<uint64_t>(v); break;
      case kConverge: o.converge_limit_s = v; break;
      case kRss: o.rss_limit_mb = v; break;
      case kThink: o.think_us = static_cast<int>(v); break;
      case kHandover: o.handover = true; break;
      case kLongOutages: o.long_outages = true; break;
      case kTorusSlices: o.torus_slices = true; break;
      case kPrint: print_schedule = true; break;
      case kFederated: federated = true; break;
      case kPeers:
        fo.peers = static_cast<int>(v);
        ok = v == 1 || v == 2;
        break;
      case kHold:
        fo.hold_s = static_cast<int>(v);
        ok = v >= 1;
        break;
      default: ok = false;
    }
    if (!ok) {
      Usage();
      return 2;
    }
  }
  if (optind != argc || o.duration_s < 1) {
    Usage();
    return 2;
  }
  if (federated) return RunFederated(o, fo, print_schedule);
  if (print_schedule) {
    ssa::soak::ScheduleOptions so;
    so.seed = o.seed;
    so.duration_s = o.duration_s;
    so.long_outages = o.long_outages;
    ssa::soak::SoakLayout layout =
        o.torus_slices ? ssa::soak::SoakLayout::Torus() : ssa::soak::SoakLayout();
    printf("%s", ssa::soak::MakeSchedule(so, layout).Describe().c_str());
    return 0;
  }
  ssa::soak::SoakResult r;
  ssa::Status st = ssa::soak::RunSoak(o, &r);
  if (!st.ok()) {
    fprintf(stderr, "soak: the run could not be made: %s\n", st.ToString().c_str());
    if (!r.run_dir.empty()) fprintf(stderr, "soak: kept %s\n", r.run_dir.c_str());
    return 2;
  }
  if (!r.passed) {
    fprintf(stderr, "\n== the events as executed (seed %" PRIu64 ") ==\n%s", r.seed,
            r.event_log.c_str());
    fprintf(stderr, "replay: scripts/soak.sh --seconds %.0f --seed %" PRIu64 "%s%s%s\n",
            r.duration_s, r.seed, o.handover ? " --handover" : "",
            o.long_outages ? " --long-outages" : "", o.torus_slices ? " --torus-slices" : "");
  }
  if (!r.sm_hang_stacks.empty())
    fprintf(stderr, "\nthe threads of the masters that hung:\n%s", r.sm_hang_stacks.c_str());
  if (!r.rss_report.empty())
    fprintf(stderr, "\nmemory (VmRSS) per daemon life:\n%s", r.rss_report.c_str());
  printf("\n%s", r.Summary().c_str());
  return r.passed ? 0 : 1;
}
