// acme_options.cc: getopt-based parsing with upstream's rules (see
// acme_options.h) plus the provider-testing long options.
#include "util/ib_acme/acme_options.h"

#include <getopt.h>
#include <strings.h>

#include <cstdlib>
#include <cstring>

#include "util/ib_acme/range_list.h"

namespace ssa {
namespace acme {

namespace {

// Upstream's option string, plus T (provider testing).
constexpr char kShortOptions[] = "e::f:s:d:vcA::O::D:P::S:C:VT";

enum LongOnly : int {
  kOptDestFile = 256,
  kOptHosts,
  kOptLidRange,
  kOptVerify,
  kOptSaPort,
  kOptTimeout,
  kOptHelp,
  kOptShm,
};

const struct option kLongOptions[] = {
    {"test-provider", no_argument, nullptr, 'T'},
    {"dest-file", required_argument, nullptr, kOptDestFile},
    {"hosts", required_argument, nullptr, kOptHosts},
    {"lid-range", required_argument, nullptr, kOptLidRange},
    {"verify", required_argument, nullptr, kOptVerify},
    {"sa-port", required_argument, nullptr, kOptSaPort},
    {"timeout", required_argument, nullptr, kOptTimeout},
    {"help", no_argument, nullptr, kOptHelp},
    {"shm", no_argument, nullptr, kOptShm},
    {nullptr, 0, nullptr, 0},
};

// Upstream's opt_arg(): an optional argument is either attached ("-P1") or
// the next word when that does not look like an option. The next word is
// not consumed: getopt later skips it as a non-option, as upstream's does.
const char* OptionalArgument(int argc, char** argv) {
  if (optarg) return optarg;
  if (optind < argc && argv[optind][0] != '-') return argv[optind];
  return nullptr;
}

// A LID: decimal or 0x hex, 1..0xbfff (the unicast range).
bool ParseLid(const std::string& text, uint16_t* lid) {
  if (text.empty()) return false;
  char* end = nullptr;
  unsigned long v = strtoul(text.c_str(), &end, 0);
  if (*end != '\0' || v < 1 || v > 0xbfff) return false;
  *lid = static_cast<uint16_t>(v);
  return true;
}

bool ParseLidRange(const std::string& text, ProviderTestOptions* t) {
  size_t dash = text.find('-');
  std::string first = text.substr(0, dash);
  std::string last = dash == std::string::npos ? first : text.substr(dash + 1);
  if (!ParseLid(first, &t->lid_first) || !ParseLid(last, &t->lid_last)) return false;
  if (t->lid_first > t->lid_last) return false;
  t->has_lid_range = true;
  return true;
}

bool ParseVerify(const std::string& text, VerifyMode* mode) {
  if (text == "sa")
    *mode = VerifyMode::kSa;
  else if (text == "daemon")
    *mode = VerifyMode::kDaemon;
  else if (text == "none")
    *mode = VerifyMode::kNone;
  else
    return false;
  return true;
}

// Upstream's rule for when the usage text is due.
bool UpstreamArgumentsUsable(const AcmeOptions& o) {
  if (o.has_src && !o.has_dest && o.perf != PerfMode::kEndpointAddress) return false;
  if (o.perf == PerfMode::kEndpointAddress && !o.has_src) return false;
  if (!o.has_src && !o.has_dest && o.perf == PerfMode::kNone && !o.make_addr && !o.make_opts &&
      !o.enum_ep)
    return false;
  return true;
}

ParseOutcome CheckProviderTest(const AcmeOptions& o, std::string* error) {
  const ProviderTestOptions& t = o.test;
  if (!o.has_dest && t.dest_file.empty() && t.hosts_file.empty() && !t.has_lid_range) {
    *error = "provider testing needs destinations: -d, --dest-file, --hosts or --lid-range";
    return ParseOutcome::kUsage;
  }
  if (o.perf != PerfMode::kNone || o.enum_ep || o.make_addr || o.make_opts) {
    *error = "provider testing does not combine with -e, -P, -A or -O";
    return ParseOutcome::kUsage;
  }
  return ParseOutcome::kRun;
}

}  // namespace

void ParsePerfArgument(const std::string& arg, AcmeOptions* out) {
  if (strncasecmp("col", arg.c_str(), 3) == 0) {
    out->perf = PerfMode::kColumn;
  } else if (strncasecmp("all", arg.c_str(), 3) == 0) {
    out->perf = PerfMode::kAllEndpoints;
  } else if (arg == "s") {
    out->perf = PerfMode::kEndpointAddress;
  } else {
    out->ep_index = CAtoi(arg);
    out->perf = out->ep_index > 0 ? PerfMode::kEndpointIndex : PerfMode::kRow;
  }
}

ParseOutcome ParseAcmeOptions(int argc, char** argv, AcmeOptions* out, std::string* error,
                              bool report_errors) {
  *out = AcmeOptions();
  error->clear();
  optind = 0;  // GNU: a full re-initialisation, so the parser can run again
  opterr = report_errors ? 1 : 0;
  bool help = false;
  int op;
  while ((op = getopt_long(argc, argv, kShortOptions, kLongOptions, nullptr)) != -1) {
    const char* arg = nullptr;
    switch (op) {
      case 'e':
        out->enum_ep = true;
        if ((arg = OptionalArgument(argc, argv))) out->ep_index = CAtoi(arg);
        break;
      case 'f':
        out->addr_format = static_cast<AddrFormat>(optarg[0]);
        // Upstream answers a bad format with the usage text alone.
        if (strchr("inlg", optarg[0]) == nullptr || optarg[0] == '\0') return ParseOutcome::kUsage;
        break;
      case 's':
        out->has_src = true;
        out->src_arg = optarg;
        break;
      case 'd':
        out->has_dest = true;
        out->dest_arg = optarg;
        break;
      case 'v': out->verify = true; break;
      case 'c': out->nodelay = true; break;
      case 'A':
        out->make_addr = true;
        if ((arg = OptionalArgument(argc, argv))) out->addr_file = arg;
        break;
      case 'O':
        out->make_opts = true;
        if ((arg = OptionalArgument(argc, argv))) out->opts_file = arg;
        break;
      case 'D': out->dest_dir = optarg; break;
      case 'P':
        if ((arg = OptionalArgument(argc, argv)))
          ParsePerfArgument(arg, out);
        else
          out->perf = PerfMode::kRow;
        break;
      case 'S': out->svc_arg = optarg; break;
      case 'C':
        out->repetitions = CAtoi(optarg);
        if (out->repetitions == 0) out->repetitions = 1;
        break;
      case 'V': out->verbose = true; break;
      case 'T': out->test.enabled = true; break;
      case kOptDestFile:
        out->test.enabled = true;
        out->test.dest_file = optarg;
        break;
      case kOptHosts:
        out->test.enabled = true;
        out->test.hosts_file = optarg;
        break;
      case kOptLidRange:
        out->test.enabled = true;
        if (!ParseLidRange(optarg, &out->test)) {
          *error = std::string("bad --lid-range '") + optarg + "': want A-B, 1 <= A <= B <= 0xbfff";
          return ParseOutcome::kUsage;
        }
        break;
      case kOptVerify:
        if (!ParseVerify(optarg, &out->test.verify)) {
          *error = std::string("bad --verify '") + optarg + "': want sa, daemon or none";
          return ParseOutcome::kUsage;
        }
        break;
      case kOptSaPort:
        out->test.sa_port = optarg;
        if (out->test.sa_port.find(':') == std::string::npos) {
          *error = "bad --sa-port '" + out->test.sa_port + "': want CA:PORT";
          return ParseOutcome::kUsage;
        }
        break;
      case kOptTimeout:
        out->test.timeout_ms = atoi(optarg);
        if (out->test.timeout_ms <= 0 || out->test.timeout_ms > 600000) {
          *error = std::string("bad --timeout '") + optarg + "': want 1..600000 ms";
          return ParseOutcome::kUsage;
        }
        break;
      case kOptHelp: help = true; break;
      case kOptShm: out->shm = true; break;
      default:  // getopt has already said what was wrong
        return ParseOutcome::kUsage;
    }
  }
  if (help) return ParseOutcome::kHelp;
  if (out->test.enabled) return CheckProviderTest(*out, error);
  return UpstreamArgumentsUsable(*out) ? ParseOutcome::kRun : ParseOutcome::kUsage;
}

}  // namespace acme
}  // namespace ssa
