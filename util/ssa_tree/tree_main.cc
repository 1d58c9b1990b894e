// tree_main.cc: ssa-tree (man ssa-tree(1)): asks the tree's core for the
// tree's state (CoreInfo MAD to the SM's LID for the core's data channel,
// then a QUERY "tree" frame there), or reads the core's state file, and
// prints it as JSON, Graphviz or indented text.
#include <getopt.h>
#include <poll.h>

#include <chrono>
#include <cstdio>
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
#include "util/ssa_tree/tree_view.h"

namespace {

using ssa::Status;
namespace tree = ssa::tree;

void Usage(FILE* f) {
  fprintf(f,
          "usage: ssa-tree [--json|--dot|--prometheus] [--state FILE] [--port CA:PORT] "
          "[--timeout MS]\n");
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

Status FetchFromCore(const std::string& port_name, int timeout_ms, std::string* json) {
  ssa::Logger log;
  log.set_level(ssa::LogLevel::kError);
  ssa::UmadPort port;
  Status st = ssa::UmadInitOnce();
  if (st.ok()) st = ssa::PickActivePort(port_name, &port);
  if (!st.ok()) return st;
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
  auto streams = tree::NewTcpTransport();
  return Query(streams.get(), info.data_address, "tree", timeout_ms, json);
}

}  // namespace

int main(int argc, char** argv) {
  bool json = false, dot = false, prom = false;
  std::string state, port;
  int timeout_ms = 2000;
  enum { kJson = 256, kDot, kProm, kState, kPort, kTimeout };
  static const struct option opts[] = {{"json", no_argument, nullptr, kJson},
                                       {"dot", no_argument, nullptr, kDot},
                                       {"prometheus", no_argument, nullptr, kProm},
                                       {"state", required_argument, nullptr, kState},
                                       {"port", required_argument, nullptr, kPort},
                                       {"timeout", required_argument, nullptr, kTimeout},
                                       {"help", no_argument, nullptr, 'h'},
                                       {nullptr, 0, nullptr, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "h", opts, nullptr)) != -1) {
    switch (c) {
      case kJson: json = true; break;
      case kDot: dot = true; break;
      case kProm: prom = true; break;
      case kState: state = optarg; break;
      case kPort: port = optarg; break;
      case kTimeout: timeout_ms = atoi(optarg); break;
      case 'h': Usage(stdout); return 0;
      default: Usage(stderr); return 2;
    }
  }
  if (optind < argc || json + dot + prom > 1 || timeout_ms <= 0) {
    Usage(stderr);
    return 2;
  }
  std::string text;
  Status st;
  if (!state.empty()) {
    std::ifstream f(state);
    std::stringstream ss;
    ss << f.rdbuf();
    text = ss.str();
    if (!f) st = Status::Error(ENOENT, "cannot read " + state);
  } else {
    st = FetchFromCore(port, timeout_ms, &text);
  }
  std::vector<ssa::tree_view::Member> members;
  if (st.ok()) st = ssa::tree_view::ParseMembers(text, &members);
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
