// tree_main.cc: ssa-tree (man ssa-tree(1)): asks the tree's core for the
// tree's state (CoreInfo MAD to the SM's LID for the core's data channel,
// then a QUERY "tree" frame there), or reads the core's state file, and
// prints it as JSON, Graphviz, indented text or Prometheus metrics; says
// whether it is healthy (--check, tree_check.h); or redraws it as it
// changes (--watch).
#include <getopt.h>
#include <poll.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>

#include "common/base/event_loop.h"
#include "common/base/log.h"
#include "common/mad/umad_ports.h"
#include "common/mad/umad_transport.h"
#include "common/tree/frame.h"
#include "common/tree/member_control.h"
#include "common/tree/stream.h"
#include "util/ssa_tree/tree_check.h"
#include "util/ssa_tree/tree_view.h"

namespace {

using ssa::Status;
namespace tree = ssa::tree;

void Usage(FILE* f) {
  fprintf(f,
          "usage: ssa-tree [--json|--dot|--prometheus] [--state FILE] [--port CA:PORT] "
          "[--timeout MS]\n"
          "       ssa-tree --check [--grace S] [--fanout N] [--repeat N] [--allow-no-backup]\n"
          "                [source options]\n"
          "       ssa-tree --watch [--interval S] [--count N] [source options]\n");
}

// QUERY `name` at `address`; the reply's bytes.
Status Query(tree::StreamTransport* t, const tree::DataAddress& address, const std::string& name,
             int timeout_ms, std::string* out) {
  std::unique_ptr<tree::Stream> s;
  Status st = t->Connect(address, &s);
  if (!st.ok()) return st;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  auto wait = [&](short ev) {
    int left = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                    deadline - std::chrono::steady_clock::now())
                                    .count());
    pollfd p{s->fd(), ev, 0};
    return left > 0 && poll(&p, 1, left) > 0;
  };
  if (!wait(POLLOUT))
    return Status::Error(ETIMEDOUT, "connecting to the core at " + address.ToString());
  st = s->FinishConnect();
  if (!st.ok()) return st;
  std::string q = tree::EncodeQuery(name);
  for (size_t off = 0; off < q.size();) {
    ssize_t n = s->Write(q.data() + off, q.size() - off);
    if (n == -EAGAIN && wait(POLLOUT)) continue;
    if (n <= 0) return Status::Error(EIO, "sending the query");
    off += static_cast<size_t>(n);
  }
  tree::FrameReader reader;
  tree::Frame f;
  char buf[65536];
  while (!reader.Next(&f)) {
    if (!reader.error().ok()) return reader.error();
    if (!wait(POLLIN))
      return Status::Error(ETIMEDOUT, "no answer from the core at " + address.ToString());
    ssize_t n = s->Read(buf, sizeof(buf));
    if (n == -EAGAIN) continue;
    if (n <= 0) return Status::Error(EIO, "the core closed the connection");
    st = reader.Feed(reinterpret_cast<uint8_t*>(buf), static_cast<size_t>(n));
    if (!st.ok()) return st;
  }
  if (f.type != tree::FrameType::kQueryReply)
    return Status::Error(EBADMSG, "unexpected answer to the query");
  *out = f.payload;
  return Status::Ok();
}

// `address`, when given, keeps the core's data address between calls (a
// watch's polls): the MAD round trip that finds it is made only when it is
// empty, and a failed query clears it (the core may have moved). Each
// poll opening the umad port again would also exhaust the simulator's
// client slots.
Status FetchFromCore(const std::string& port_name, int timeout_ms, std::string* json,
                     tree::DataAddress* address = nullptr) {
  if (address && !address->empty()) {
    auto streams = tree::NewTcpTransport();
    Status st = Query(streams.get(), *address, "tree", timeout_ms, json);
    if (st.ok()) return st;
    *address = tree::DataAddress();
  }
  ssa::Logger log;
  log.set_level(ssa::LogLevel::kError);
  ssa::UmadPort port;
  Status st = ssa::UmadInitOnce();
  if (st.ok()) st = ssa::PickActivePort(port_name, &port);
  if (!st.ok())
    return ssa::WithOffFabricHint(
        st,
        "ssa-tree asks the core through a local port: run it on a node of the fabric, or "
        "draw the core's saved state from anywhere with ssa-tree --state FILE");
  ssa::UmadTransport mads(port.ca_name, port.port_num, &log);
  st = mads.Open(tree::kSsaClass, tree::kSsaClassVersion);
  ssa::EventLoop loop;
  if (st.ok()) st = loop.Init();
  if (!st.ok()) return st;
  tree::MemberControlOptions o;
  o.port_guid = port.port_guid;
  uint16_t sm_lid = port.sm_lid;
  o.sm_lid = [sm_lid] { return sm_lid; };
  o.timeout_ms = std::max(100, timeout_ms / 3);
  o.retries = 2;
  tree::MemberControlClient control(&loop, &mads, &log, o, nullptr);
  st = control.Start(/*join=*/false);
  if (!st.ok()) return st;
  bool done = false;
  tree::CoreInfoAnswer info;
  control.AskCoreInfo([&](Status s, const tree::CoreInfoAnswer& a) {
    st = s;
    info = a;
    done = true;
  });
  loop.RunUntil([&] { return done; }, std::chrono::milliseconds(timeout_ms + 1000));
  control.Stop();
  if (!done) return Status::Error(ETIMEDOUT, "no answer from the core");
  if (!st.ok()) return st.WithContext("CoreInfo to SM LID " + std::to_string(sm_lid));
  if (info.data_address.empty())
    return Status::Error(ENODATA, "the core announced no data channel");
  if (address) *address = info.data_address;
  auto streams = tree::NewTcpTransport();
  return Query(streams.get(), info.data_address, "tree", timeout_ms, json);
}

// The tree's state: the state file when given, else the core's answer.
Status FetchTree(const std::string& state, const std::string& port, int timeout_ms,
                 std::string* text, tree::DataAddress* address) {
  if (state.empty()) return FetchFromCore(port, timeout_ms, text, address);
  std::ifstream f(state);
  std::stringstream ss;
  ss << f.rdbuf();
  *text = ss.str();
  if (!f) return Status::Error(ENOENT, "cannot read " + state);
  return Status::Ok();
}

Status FetchMembers(const std::string& state, const std::string& port, int timeout_ms,
                    std::string* text, std::vector<ssa::tree_view::Member>* members,
                    tree::DataAddress* address = nullptr) {
  Status st = FetchTree(state, port, timeout_ms, text, address);
  if (st.ok()) st = ssa::tree_view::ParseMembers(*text, members);
  return st;
}

volatile sig_atomic_t g_stop = 0;

// --watch: the text view again whenever the tree's state changes
// (tree_view::StateKey), until SIGINT/SIGTERM
// or `count` redraws (0: no limit). On a terminal each redraw replaces
// the screen; otherwise (a pipe, a file, a test) each is appended under a
// time stamp line, so a log of the tree's changes reads top to bottom.
int Watch(const std::string& state, const std::string& port, int timeout_ms, double interval_s,
          int count) {
  struct sigaction sa {};
  sa.sa_handler = [](int) { g_stop = 1; };
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: the sleep ends at once
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  bool tty = isatty(STDOUT_FILENO) == 1;
  std::string last;
  tree::DataAddress core_address;
  int redraws = 0;
  while (!g_stop) {
    std::string text, frame;
    std::vector<ssa::tree_view::Member> members;
    Status st = FetchMembers(state, port, timeout_ms, &text, &members, &core_address);
    // A failure is shown like a tree, so the screen never shows an old
    // tree as if it were current.
    frame = st.ok() ? ssa::tree_view::RenderText(members) : "ssa-tree: " + st.ToString() + "\n";
    // Redrawn when the tree's state changes, not when only its traffic
    // counters move (each of our own polls adds to the core's bytes sent).
    std::string state_now = st.ok() ? ssa::tree_view::StateKey(members) : frame;
    if (state_now != last) {
      char stamp[32];
      time_t now = time(nullptr);
      strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", localtime(&now));
      if (tty) fputs("\033[H\033[2J", stdout);  // home, clear screen
      printf("--- %s ---\n%s", stamp, frame.c_str());
      fflush(stdout);
      last = state_now;
      if (count > 0 && ++redraws >= count) break;
    }
    struct timespec ts;
    ts.tv_sec = static_cast<time_t>(interval_s);
    ts.tv_nsec = static_cast<long>((interval_s - std::floor(interval_s)) * 1e9);
    nanosleep(&ts, nullptr);  // a signal cuts it short
  }
  return 0;
}

// Reads a positive number option; false (with a message) when it is not one.
bool PositiveNumber(const char* name, const char* text, double max, double* out) {
  char* end = nullptr;
  double v = strtod(text, &end);
  if (!end || *end || !(v > 0) || v > max) {
    fprintf(stderr, "ssa-tree: %s '%s': expected a number above 0, at most %g\n", name, text, max);
    return false;
  }
  *out = v;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  bool json = false, dot = false, prom = false, check = false, watch = false;
  std::string state, port;
  int timeout_ms = 2000;
  double interval_s = 2, count = 0, grace = 30, fanout = 0, repeat = 5;
  bool allow_no_backup = false;
  bool bad = false;
  enum {
    kJson = 256,
    kDot,
    kProm,
    kState,
    kPort,
    kTimeout,
    kCheck,
    kWatch,
    kInterval,
    kCount,
    kGrace,
    kFanout,
    kRepeat,
    kAllowNoBackup
  };
  static const struct option opts[] = {{"json", no_argument, nullptr, kJson},
                                       {"dot", no_argument, nullptr, kDot},
                                       {"prometheus", no_argument, nullptr, kProm},
                                       {"check", no_argument, nullptr, kCheck},
                                       {"watch", no_argument, nullptr, kWatch},
                                       {"state", required_argument, nullptr, kState},
                                       {"port", required_argument, nullptr, kPort},
                                       {"timeout", required_argument, nullptr, kTimeout},
                                       {"interval", required_argument, nullptr, kInterval},
                                       {"count", required_argument, nullptr, kCount},
                                       {"grace", required_argument, nullptr, kGrace},
                                       {"fanout", required_argument, nullptr, kFanout},
                                       {"repeat", required_argument, nullptr, kRepeat},
                                       {"allow-no-backup", no_argument, nullptr, kAllowNoBackup},
                                       {"help", no_argument, nullptr, 'h'},
                                       {nullptr, 0, nullptr, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "h", opts, nullptr)) != -1) {
    switch (c) {
      case kJson: json = true; break;
      case kDot: dot = true; break;
      case kProm: prom = true; break;
      case kCheck: check = true; break;
      case kWatch: watch = true; break;
      case kState: state = optarg; break;
      case kPort: port = optarg; break;
      case kTimeout: timeout_ms = atoi(optarg); break;
      case kInterval: bad |= !PositiveNumber("--interval", optarg, 86400, &interval_s); break;
      case kCount: bad |= !PositiveNumber("--count", optarg, 1e9, &count); break;
      case kGrace: bad |= !PositiveNumber("--grace", optarg, 86400, &grace); break;
      case kFanout: bad |= !PositiveNumber("--fanout", optarg, 1e9, &fanout); break;
      case kRepeat: bad |= !PositiveNumber("--repeat", optarg, 1e9, &repeat); break;
      case kAllowNoBackup: allow_no_backup = true; break;
      case 'h': Usage(stdout); return 0;
      default: bad = true; break;
    }
  }
  // --check speaks the monitoring plugins' language: 3 is UNKNOWN.
  const int usage_status = check ? 3 : 2;
  if (bad || optind < argc || json + dot + prom + check + watch > 1 || timeout_ms <= 0) {
    Usage(stderr);
    return usage_status;
  }
  if (watch) return Watch(state, port, timeout_ms, interval_s, static_cast<int>(count));
  std::string text;
  std::vector<ssa::tree_view::Member> members;
  Status st = FetchMembers(state, port, timeout_ms, &text, &members);
  if (check) {
    if (!st.ok()) {
      // No answer from the core is itself the worst finding.
      printf("CRITICAL: %s\nSSA TREE CRITICAL - no tree state\n", st.ToString().c_str());
      return 2;
    }
    ssa::tree_view::CheckOptions o;
    o.grace_s = static_cast<int>(grace);
    o.fanout = static_cast<int>(fanout);
    o.repeat = static_cast<int>(repeat);
    o.backup_required = !allow_no_backup;
    ssa::tree_view::CheckResult r = ssa::tree_view::CheckTree(members, o);
    fputs(ssa::tree_view::RenderCheck(r).c_str(), stdout);
    return static_cast<int>(r.status);
  }
  if (!st.ok()) {
    fprintf(stderr, "ssa-tree: %s\n", st.ToString().c_str());
    return 1;
  }
  if (prom) {
    std::string error;
    std::string out = ssa::tree_view::RenderPrometheus(members, &error);
    if (!error.empty()) {
      fprintf(stderr, "ssa-tree: %s\n", error.c_str());
      return 1;
    }
    fputs(out.c_str(), stdout);
  } else if (json)
    fputs(text.c_str(), stdout);
  else if (dot)
    fputs(ssa::tree_view::RenderDot(members).c_str(), stdout);
  else
    fputs(ssa::tree_view::RenderText(members).c_str(), stdout);
  return 0;
}
