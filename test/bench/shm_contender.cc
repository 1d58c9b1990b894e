// shm_contender.cc: see shm_contender.h.
#include "test/bench/shm_contender.h"

#include <ibacm_ssa/path.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace ssa {
namespace bench {

using Clock = std::chrono::steady_clock;

ShmContender::~ShmContender() { ibssa_path_close(h_); }

Status ShmContender::Open(const std::string& socket, uint16_t lid, int wait_ms) {
  ibssa_path_options o{};
  o.size = sizeof(o);
  o.flags = IBSSA_PATH_NO_SOCKET;
  int rc = ibssa_path_open(socket.c_str(), &o, &h_);
  if (rc) return Status::Error(-rc, "ibssa_path_open");
  auto until = Clock::now() + std::chrono::milliseconds(wait_ms);
  ibv_path_record p;
  while ((rc = ibssa_path_by_lid(h_, 0, lid, 0, &p, nullptr)) != 0) {
    if (Clock::now() > until) return Status::Error(-rc, "no path tables answer the LID");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ibssa_path_refresh(h_);
  }
  return Status::Ok();
}

uint64_t ShmContender::epoch() const { return ibssa_path_epoch(h_, 0); }

double ShmContender::Rate(uint16_t lid, int threads, double seconds,
                          std::vector<double>* latency_us) {
  std::atomic<long> done{0};
  std::atomic<bool> failed{false};
  std::vector<std::vector<double>> lat(static_cast<size_t>(threads));
  auto start = Clock::now();
  auto end =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      std::vector<double>& mine = lat[static_cast<size_t>(t)];
      ibv_path_record p;
      long n = 0;
      for (;;) {
        // The clock is read every 64 lookups unless each one is timed.
        if (!latency_us && (n & 63) == 0 && Clock::now() >= end) break;
        auto t0 = latency_us ? Clock::now() : Clock::time_point();
        if (latency_us && t0 >= end) break;
        if (ibssa_path_by_lid(h_, 0, lid, 0, &p, nullptr) != 0) {
          failed = true;
          break;
        }
        if (latency_us)
          mine.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
        ++n;
      }
      done += n;
    });
  for (auto& t : pool) t.join();
  double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  if (failed) return -1;
  if (latency_us)
    for (auto& v : lat) latency_us->insert(latency_us->end(), v.begin(), v.end());
  return static_cast<double>(done.load()) / elapsed;
}

}  // namespace bench
}  // namespace ssa
