// ibssa_path_attack_test.cc: the path tables (libibssa_path and the
// publisher) against a hostile or broken local user and a broken reader:
// a FIFO or a directory at any name a reader opens never blocks it and is
// refused in words; a publication that fails withdraws the tables instead
// of leaving old ones answering; another user's directory is refused by
// both sides; fork() during lookups, a cancelled refresher and readers
// that never leave a lookup cost no hang; a replaced object is truncated
// after its grace whoever keeps it open. Each of these hung, misled or
// pinned memory before the tables moved to a directory of the daemon's own.
#include <fcntl.h>
#include <ibacm_ssa/path.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/shm_prdb/shm_prdb_format.h"
#include "common/shm_prdb/shm_prdb_publisher.h"
#include "libibssa_path/path_tables.h"
#include "test/support/check_ok.h"
#include "test/support/temp_dir.h"
#include "test/unit/shm_path_fixture.h"

// Last: CppUTest redefines new for leak checking.
#include <CppUTest/TestHarness.h>

using shm_test::Object;

namespace {

uint64_t Self() { return ibssa_shm_process_start(getpid()); }

// Runs `body` in a child that SIGALRM ends after `seconds`; returns its
// exit status, or 128 + the signal that ended it (a hang: 128 + SIGALRM).
template <typename F>
int InChild(unsigned seconds, F body) {
  pid_t pid = fork();
  if (pid == 0) {
    alarm(seconds);
    _exit(body());
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

ibssa_path* OpenTablesOnly(const std::string& socket) {
  ibssa_path_options o{};
  o.size = sizeof(o);
  o.flags = IBSSA_PATH_NO_SOCKET;
  o.check_ms = 1;
  ibssa_path* h = nullptr;
  return ibssa_path_open(socket.c_str(), &o, &h) == 0 ? h : nullptr;
}

}  // namespace

TEST_GROUP(IbssaPathAttack) {
  ssa::test::TempDir dir{"ibssa-path-attack."};
  std::string socket;
  std::unique_ptr<ssa::shm_prdb::TablePublisher> pub;
  int sock_fd = -1;
  ibssa_path* h = nullptr;
  path_tables* tables = nullptr;  // the library's internals, for one test

  void setup() override {
    socket = dir.path() + "/ibacm-unix.sock";
    sock_fd = shm_test::BindSocket(socket);
    CHECK(sock_fd >= 0);
    pub.reset(new ssa::shm_prdb::TablePublisher(socket));
  }
  void teardown() override {
    ibssa_path_close(h);
    if (tables) {
      tables_destroy(tables);
      free(tables);
    }
    pub.reset();
    close(sock_fd);
  }
  std::string Why() {
    char why[320];
    ibssa_path_status(h, why, sizeof(why));
    return why;
  }
};

// Finding 1: a FIFO at the name hung ibssa_path_open for good. Whatever
// sits at the names a reader opens (the daemon's directory, and the name
// in /dev/shm that readers once used), the open returns at once.
TEST(IbssaPathAttack, AFifoOrADirectoryAtTheNameNeverBlocksAReader) {
  CHECK_OK(pub->Publish(Object(1, getpid(), Self())));  // makes the directory
  pub->Withdraw();
  char name[64];
  LONGS_EQUAL(0, ibssa_shm_object_name(socket.c_str(), name, sizeof(name)));
  const std::string legacy = std::string(IBSSA_SHM_DIR) + "/" + name;
  unlink(legacy.c_str());
  CHECK_EQUAL(0, mkfifo(legacy.c_str(), 0644));
  CHECK_EQUAL(0, mkfifo(pub->path().c_str(), 0644));
  int rc = InChild(5, [&] {
    ibssa_path* c = OpenTablesOnly(socket);
    int r = c ? -ibssa_path_refresh(c) : 99;
    ibssa_path_close(c);
    return r;
  });
  unlink(legacy.c_str());
  unlink(pub->path().c_str());
  LONGS_EQUAL(EPERM, rc);

  // A directory at the name: refused in words, never trusted, never hangs.
  CHECK_EQUAL(0, mkdir(pub->path().c_str(), 0755));
  h = OpenTablesOnly(socket);
  CHECK(h != nullptr);
  LONGS_EQUAL(-EPERM, ibssa_path_refresh(h));
  STRCMP_CONTAINS("is not a regular file", Why().c_str());
  rmdir(pub->path().c_str());
  CHECK_OK(pub->Publish(Object(2, getpid(), Self())));
  LONGS_EQUAL(0, ibssa_path_refresh(h));
}

// Finding 2: a publication that failed left the old tables answering as
// current. Now it withdraws them: readers get nothing from the tables
// (the socket answers) until a publication succeeds.
TEST(IbssaPathAttack, AFailedPublicationWithdrawsTheTables) {
  CHECK_OK(pub->Publish(Object(1, getpid(), Self())));
  h = OpenTablesOnly(socket);
  ibv_path_record p;
  LONGS_EQUAL(0, ibssa_path_by_lid(h, 0, 3, 0, &p, nullptr));
  // Something in the way of the next object's temporary name.
  const std::string tmp = pub->path() + ".tmp." + std::to_string(syscall(SYS_gettid));
  CHECK_EQUAL(0, mkdir(tmp.c_str(), 0755));
  ssa::Status st = pub->Publish(Object(2, getpid(), Self()));
  rmdir(tmp.c_str());
  CHECK_FALSE(st.ok());
  STRCMP_CONTAINS(".tmp.", st.ToString().c_str());
  CHECK_FALSE(pub->published());
  LONGS_EQUAL(-ENOENT, ibssa_path_refresh(h));
  LONGS_EQUAL(-ENODATA, ibssa_path_by_lid(h, 0, 3, 0, &p, nullptr));
  CHECK_OK(pub->Publish(Object(3, getpid(), Self())));
  LONGS_EQUAL(0, ibssa_path_refresh(h));
  LONGS_EQUAL(3, ibssa_path_epoch(h, 0));
}

// A user other than the daemon's made the daemon's directory first: the
// publisher refuses it and says whose it is, and so does every reader.
TEST(IbssaPathAttack, AnotherUsersDirectoryIsRefusedByBothSides) {
  if (geteuid() != 0) return;  // needs two other users; CI runs as root
  const uid_t daemon_uid = 65533, attacker_uid = 65534;
  char d[128];
  LONGS_EQUAL(0, ibssa_shm_dir(daemon_uid, d, sizeof(d)));
  const std::string squatted = d;
  rmdir(squatted.c_str());
  LONGS_EQUAL(0, InChild(5, [&] {
                return setresuid(attacker_uid, attacker_uid, attacker_uid) == 0 &&
                               mkdir(squatted.c_str(), 0777) == 0
                           ? 0
                           : 1;
              }));
  CHECK_EQUAL(0, chmod(dir.path().c_str(), 0777));
  const std::string sock = dir.path() + "/daemon.sock";
  int published = InChild(5, [&] {
    if (setresuid(daemon_uid, daemon_uid, daemon_uid) != 0) return 2;
    int fd = shm_test::BindSocket(sock);
    ssa::shm_prdb::TablePublisher p(sock);
    ssa::Status st = p.Publish(Object(1, getpid(), Self()));
    // The socket stays for the reader below: the daemon's, by its owner.
    (void)fd;
    return st.ok() ? 0 : st.ToString().find("belongs to uid 65534") != std::string::npos ? 1 : 3;
  });
  LONGS_EQUAL(1, published);
  h = OpenTablesOnly(sock);
  LONGS_EQUAL(-EPERM, ibssa_path_refresh(h));
  STRCMP_CONTAINS("belongs to uid 65534", Why().c_str());
  rmdir(squatted.c_str());
  unlink(sock.c_str());
}

// Finding 3: a fork() while other threads were inside lookups left the
// child a reader count that never dropped, and its next refresh waited
// for it forever.
TEST(IbssaPathAttack, ForkDuringLookupsLeavesTheChildAHandleThatRefreshes) {
  CHECK_OK(pub->Publish(Object(1, getpid(), Self(), 200)));
  h = OpenTablesOnly(socket);
  std::atomic<bool> stop{false};
  std::vector<std::thread> readers;
  for (int t = 0; t < 4; ++t)
    readers.emplace_back([&] {
      ibv_path_record p;
      while (!stop.load()) ibssa_path_by_lid(h, 0, 3, 0, &p, nullptr);
    });
  int hung = 0;
  for (uint64_t i = 0; i < 20; ++i) {
    int go[2];
    CHECK_EQUAL(0, pipe(go));
    pid_t pid = fork();
    if (pid == 0) {
      alarm(5);
      char c;
      if (read(go[0], &c, 1) != 1) _exit(2);
      // The parent published a new epoch: the child must map it.
      _exit(ibssa_path_refresh(h) == 0 && ibssa_path_epoch(h, 0) == i + 2 ? 0 : 1);
    }
    CHECK_OK(pub->Publish(Object(i + 2, getpid(), Self(), 200)));
    CHECK_EQUAL(1, write(go[1], "x", 1));
    int status = 0;
    waitpid(pid, &status, 0);
    close(go[0]);
    close(go[1]);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++hung;
  }
  stop = true;
  for (auto& r : readers) r.join();
  LONGS_EQUAL(0, hung);
}

// A thread cancelled while it looked (open() is a cancellation point)
// left the refresh mutex held: no refresh ever again.
TEST(IbssaPathAttack, AThreadCancelledWhileLookingLeavesTheHandleUsable) {
  CHECK_OK(pub->Publish(Object(1, getpid(), Self(), 200)));
  h = OpenTablesOnly(socket);
  for (int i = 0; i < 50; ++i) {
    pthread_t t;
    auto loop = [](void* arg) -> void* {
      for (;;) {
        ibssa_path_refresh(static_cast<ibssa_path*>(arg));
        pthread_testcancel();
      }
      return nullptr;
    };
    CHECK_EQUAL(0, pthread_create(&t, nullptr, loop, h));
    std::this_thread::yield();
    pthread_cancel(t);
    pthread_join(t, nullptr);
  }
  LONGS_EQUAL(0, InChild(5, [&] { return ibssa_path_refresh(h) == 0 ? 0 : 1; }));
  LONGS_EQUAL(0, ibssa_path_refresh(h));
}

// A reader that never leaves a lookup (a thread killed in one, a longjmp
// out of a signal handler) made every later switch wait for it forever.
// Now each costs one mapping; with none free the tables are off, and they
// come back once one is released.
TEST(IbssaPathAttack, ReadersThatNeverLeaveCostAMappingNotAHang) {
  // Aligned like the library's own handle; freed by teardown.
  CHECK_EQUAL(0, posix_memalign(reinterpret_cast<void**>(&tables), 64, sizeof(path_tables)));
  LONGS_EQUAL(0, tables_init(tables, socket.c_str(), 1));
  path_tables& t = *tables;
  std::vector<uint64_t*> held;
  for (uint64_t epoch = 1; epoch <= TABLES_SETS + 1; ++epoch) {
    CHECK_OK(pub->Publish(Object(epoch, getpid(), Self())));
    tables_refresh(&t, 1);
    int state;
    uint64_t* ticket;
    if (tables_enter(&t, &state, &ticket)) held.push_back(ticket);  // never left
  }
  LONGS_EQUAL(TABLES_SETS, held.size());
  char why[320];
  LONGS_EQUAL(-EBUSY, tables_status(&t, why, sizeof(why)));
  STRCMP_CONTAINS("never left a lookup", why);
  CHECK(t.stuck_readers >= 1);
  tables_leave(held[0]);
  CHECK_OK(pub->Publish(Object(9, getpid(), Self())));
  LONGS_EQUAL_TEXT(TABLES_LIVE, tables_refresh(&t, 1), t.why);
  for (size_t i = 1; i < held.size(); ++i) tables_leave(held[i]);
}

// Finding 4: whoever kept an old object open pinned its memory, charged
// to the daemon. A replaced object is marked retired at once (readers move
// on) and truncated after its grace, open or not.
TEST(IbssaPathAttack, AReplacedObjectIsTruncatedAfterItsGraceWhoeverHoldsIt) {
  CHECK_OK(pub->Publish(Object(1, getpid(), Self())));
  int kept = open(pub->path().c_str(), O_RDONLY);
  CHECK(kept >= 0);
  h = OpenTablesOnly(socket);
  LONGS_EQUAL(1, ibssa_path_epoch(h, 1));
  CHECK_OK(pub->Publish(Object(2, getpid(), Self())));
  LONGS_EQUAL(1, pub->retired());
  ibssa_shm_header hd;
  CHECK_EQUAL(static_cast<ssize_t>(sizeof(hd)), pread(kept, &hd, sizeof(hd), 0));
  LONGS_EQUAL(1, hd.retired);
  // A reader still on the old mapping moves on before its next lookup.
  ibv_path_record p;
  ibssa_path_answer a;
  LONGS_EQUAL(0, ibssa_path_by_lid(h, 0, 3, 0, &p, &a));
  LONGS_EQUAL(2, a.epoch);
  struct stat st;
  pub->Sweep(ssa::shm_prdb::TablePublisher::Clock::now());
  CHECK_EQUAL(0, fstat(kept, &st));
  CHECK(st.st_size > 0);  // within its grace
  pub->Sweep(ssa::shm_prdb::TablePublisher::Clock::now() +
             std::chrono::milliseconds(IBSSA_SHM_RETIRE_GRACE_MS));
  CHECK_EQUAL(0, fstat(kept, &st));
  LONGS_EQUAL(0, st.st_size);
  LONGS_EQUAL(0, pub->retired());
  close(kept);
}

// A daemon killed (its object left), then restarted: its new objects may
// reuse the dead object's inode number (ext4 does at once, /run may be
// ext4). The reader holds the object it judged open, so the number cannot
// be reused under it and a new object is never taken for the old one.
TEST(IbssaPathAttack, ARestartedDaemonsObjectIsNeverTakenForTheDeadOnes) {
  LONGS_EQUAL(0, InChild(5, [&] {
                ssa::shm_prdb::TablePublisher dead(socket);
                // Killed: no destructor withdraws it, its descriptor closes.
                _exit(dead.Publish(Object(1, getpid(), Self())).ok() ? 0 : 1);
                return 0;
              }));
  h = OpenTablesOnly(socket);
  LONGS_EQUAL(-ESRCH, ibssa_path_refresh(h));
  for (uint64_t epoch = 2; epoch < 6; ++epoch) {
    CHECK_OK(pub->Publish(Object(epoch, getpid(), Self())));
    CHECK_OK(pub->Publish(Object(epoch + 100, getpid(), Self())));
    LONGS_EQUAL_TEXT(0, ibssa_path_refresh(h), Why().c_str());
    LONGS_EQUAL(epoch + 100, ibssa_path_epoch(h, 0));
  }
}
