// rogue_parent.h: the data channel's attacker (issue 46, finding 7): a
// process on a parent's data port (bound while the real member restarts)
// that answers every child's HELLO at once with a WELCOME as the parent's
// GUID and the whole forged database, checking nothing and waiting for
// nothing. It cannot know the link key, so it tags its WELCOME with one of
// its own; a child that does not check the tag takes the forgery.
//
// A thread of its own over blocking sockets: any test, in-process or on
// the simulated fabric (the test process is the rogue there).
#ifndef IBACM_SSA_TEST_SUPPORT_ROGUE_PARENT_H
#define IBACM_SSA_TEST_SUPPORT_ROGUE_PARENT_H

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "common/base/status.h"
#include "common/tree/frame.h"

namespace ssa {
namespace test {

struct RogueOptions {
  int port = 0;         // 0: any (SO_REUSEADDR: a killed daemon's port)
  uint64_t guid = 0;    // the GUID its WELCOME claims
  tree::LinkKey key{};  // what it tags with (a guess)
  uint64_t epoch = 0;   // the forged version's epoch
  std::string bytes;    // the forged version's serialization
  // The database it forges; HELLOs for another kind get the WELCOME only.
  tree::DbKind kind = tree::DbKind::kSmdb;
};

class RogueParent {
 public:
  static Status Start(const RogueOptions& options, std::unique_ptr<RogueParent>* out);
  ~RogueParent();
  RogueParent(const RogueParent&) = delete;
  RogueParent& operator=(const RogueParent&) = delete;

  int port() const { return port_; }
  // Children it sent the whole forged version to.
  int served() const { return served_; }
  // Connections it accepted.
  int accepted() const { return accepted_; }

 private:
  RogueParent() = default;
  void Run();
  void Serve(int fd);

  RogueOptions options_;
  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> served_{0}, accepted_{0};
  std::thread thread_;
};

}  // namespace test
}  // namespace ssa

#endif
