// resolve_flood.h: bench_resolve --flood's load and its victim.
//
// ResolveFlood is the flood: `connections` sockets to a daemon, each
// keeping `depth` copies of one request in flight, self-paced (a new copy
// goes out as each answer comes back), all from one thread of its own
// until Stop(). Answers of any status count: the flood is there to load
// the daemon, not to resolve.
//
// VictimLatency is the client whose latency the flood must not hurt much:
// one blocking connection sending one request at a time, as librdmacm
// does, each round trip timed.
#ifndef IBACM_SSA_TEST_BENCH_RESOLVE_FLOOD_H
#define IBACM_SSA_TEST_BENCH_RESOLVE_FLOOD_H

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "common/acm/acm_wire.h"
#include "common/base/status.h"

namespace ssa {
namespace bench {

class ResolveFlood {
 public:
  ~ResolveFlood() { Stop(); }
  // Connects and starts the thread, which sends each connection's first
  // `depth` requests at once.
  Status Start(const std::string& socket, const std::vector<uint8_t>& request, int connections,
               int depth);
  void Stop();
  // The flood's thread runs at this nice value (setpriority), set before
  // Start.
  void set_nice(int nice) { nice_ = nice; }
  uint64_t answered() const { return answered_.load(); }
  // Set when a connection broke (the daemon closed it, a send failed).
  bool failed() const { return failed_.load(); }

 private:
  struct Conn {
    int fd = -1;
    std::vector<uint8_t> in;   // unparsed answer bytes
    std::vector<uint8_t> out;  // requests not yet written
  };
  void Run();
  bool Write(Conn* c);
  bool Read(Conn* c);

  std::vector<uint8_t> request_;
  std::vector<Conn> conns_;
  int nice_ = 0;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> failed_{false};
  std::atomic<uint64_t> answered_{0};
};

// Sends `entries` as one resolve at a time over one connection for
// `seconds` and appends each round trip (microseconds) to `latency_us`;
// answers with an error status are timed too and counted in `errors`.
Status VictimLatency(const std::string& socket, const std::vector<acm::EpAddr>& entries,
                     double seconds, std::vector<double>* latency_us, uint64_t* errors);

}  // namespace bench
}  // namespace ssa

#endif
