// shm_prdb_format_test.cc: the shared-memory path tables' layout
// (common/shm_prdb/): an object the builder makes validates and answers
// every search; any truncation, a foreign or newer object, a flipped byte
// and tables pointing outside the object (with a correct checksum) are
// rejected with a reason, never read past their end.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>

#include <cstring>
#include <string>
#include <vector>

#include "common/base/file_io.h"
#include "common/shm_prdb/shm_prdb_format.h"
#include "test/support/check_ok.h"
#include "test/support/temp_dir.h"
#include "test/unit/shm_path_fixture.h"

// Last: CppUTest redefines new for leak checking.
#include <CppUTest/TestHarness.h>

using shm_test::Gid;
using shm_test::Object;

namespace {

int Validate(const std::string& o, std::string* why = nullptr) {
  // A copy of exactly the object's size: ASan sees any read past it.
  std::vector<uint8_t> copy(o.begin(), o.end());
  char buf[200] = "";
  int rc = ibssa_shm_validate(copy.data(), copy.size(), buf, sizeof(buf));
  if (why) *why = buf;
  return rc;
}

void Reseal(std::string* o) {
  uint32_t crc = ibssa_shm_checksum(o->data(), o->size());
  memcpy(&(*o)[offsetof(ibssa_shm_header, checksum)], &crc, 4);
}

ibssa_shm_header* Header(std::string* o) { return reinterpret_cast<ibssa_shm_header*>(&(*o)[0]); }
// The first port of the tables in `o`.
ibssa_shm_port* FirstPort(std::string* o) {
  return reinterpret_cast<ibssa_shm_port*>(&(*o)[Header(o)->ports_offset]);
}

}  // namespace

TEST_GROUP(ShmPrdbFormat){};

TEST(ShmPrdbFormat, BuiltObjectValidatesAndAnswersEverySearch) {
  std::string o = Object(7, 1234, 99);
  std::string why;
  LONGS_EQUAL_TEXT(0, Validate(o, &why), why.c_str());
  const ibssa_shm_port* port = ibssa_shm_ports(o.data());
  LONGS_EQUAL(1, port->base_lid);
  LONGS_EQUAL(7, port->epoch);
  LONGS_EQUAL(2, port->pkey_count);
  for (uint16_t d = 2; d < 22; ++d) {
    const ibssa_shm_path* p = ibssa_shm_find_lid(o.data(), port, 1, d);
    CHECK(p != nullptr);
    LONGS_EQUAL(d, p->dlid);
    CHECK(p == ibssa_shm_find_gid(o.data(), port, Gid(1, d).data()));
    MEMCMP_EQUAL(Gid(1, d).data(),
                 ibssa_shm_find_name(o.data(), ("hCa" + std::to_string(d)).c_str()), 16);
    uint8_t ip[4] = {10, 0, 0, static_cast<uint8_t>(d)};
    MEMCMP_EQUAL(Gid(1, d).data(), ibssa_shm_find_ip(o.data(), ip, 4), 16);
  }
  CHECK(ibssa_shm_find_lid(o.data(), port, 1, 22) == nullptr);
  CHECK(ibssa_shm_find_lid(o.data(), port, 2, 3) == nullptr);
  CHECK(ibssa_shm_find_gid(o.data(), port, Gid(1, 99).data()) == nullptr);
  CHECK(ibssa_shm_find_name(o.data(), "hca99") == nullptr);
  CHECK(ibssa_shm_find_name(o.data(), "") == nullptr);
  const ibssa_shm_src* s =
      ibssa_shm_find_src(o.data(), 1, reinterpret_cast<const uint8_t*>("self"), 4);
  CHECK(s != nullptr);
  CHECK(ibssa_shm_find_src(o.data(), 1, reinterpret_cast<const uint8_t*>("sel"), 3) == nullptr);
}

TEST(ShmPrdbFormat, EveryTruncationIsRejected) {
  std::string o = Object(1, 1, 1, 3);
  for (size_t len = 0; len < o.size(); ++len) {
    std::string why;
    CHECK_TEXT(Validate(o.substr(0, len), &why) < 0, std::to_string(len).c_str());
    CHECK(!why.empty());
  }
}

TEST(ShmPrdbFormat, ForeignNewerAndCorruptedObjectsAreRejected) {
  std::string o = Object(1, 1, 1, 3), why;
  std::string foreign(o.size(), 'x');
  LONGS_EQUAL(-EINVAL, Validate(foreign, &why));
  STRCMP_CONTAINS("magic", why.c_str());
  std::string newer = o;
  Header(&newer)->version = IBSSA_SHM_VERSION + 1;
  Reseal(&newer);
  LONGS_EQUAL(-EPROTO, Validate(newer, &why));
  for (size_t at = sizeof(ibssa_shm_header); at < o.size(); at += 7) {
    std::string flipped = o;
    flipped[at] ^= 0x10;
    CHECK_TEXT(Validate(flipped) < 0, std::to_string(at).c_str());
  }
}

TEST(ShmPrdbFormat, TablesOutsideTheObjectAreRejectedEvenWhenSealed) {
  std::string o = Object(1, 1, 1, 3), why;
  struct Case {
    const char* what;
    void (*mutate)(std::string*);
  } cases[] = {
      {"port", [](std::string* s) { Header(s)->ports_offset = s->size() - 8; }},
      {"ports", [](std::string* s) { Header(s)->port_count = IBSSA_SHM_MAX_PORTS + 1; }},
      {"name", [](std::string* s) { Header(s)->names_count = 0xffffffffu; }},
      {"IP", [](std::string* s) { Header(s)->ips_offset = ~0ull - 7; }},
      {"source", [](std::string* s) { Header(s)->srcs_offset += 4; }},
      {"default source", [](std::string* s) { Header(s)->default_src = 5; }},
      {"path", [](std::string* s) { FirstPort(s)->paths_count = 1000; }},
      {"names path",
       [](std::string* s) {
         ibssa_shm_port* p = FirstPort(s);
         reinterpret_cast<ibssa_shm_gid*>(&(*s)[p->gids_offset])->path_index = 3;
       }},
      {"P_Keys", [](std::string* s) { FirstPort(s)->pkey_count = 33; }},
      {"not sorted",
       [](std::string* s) {
         ibssa_shm_port* p = FirstPort(s);
         reinterpret_cast<ibssa_shm_path*>(&(*s)[p->paths_offset])->dlid = 9;
       }},
  };
  for (const Case& c : cases) {
    std::string bad = o;
    c.mutate(&bad);
    Reseal(&bad);
    LONGS_EQUAL_TEXT(-EINVAL, Validate(bad, &why), c.what);
    STRCMP_CONTAINS(c.what, why.c_str());
  }
}

TEST(ShmPrdbFormat, NamesDifferPerSocketAndAreAbsolute) {
  char a[256], b[256], c[256];
  LONGS_EQUAL(0, ibssa_shm_object_name("/run/ibacm-unix.sock", a, sizeof(a)));
  LONGS_EQUAL(0, ibssa_shm_object_name("/tmp/x/ibacm-unix.sock", b, sizeof(b)));
  CHECK(strncmp(a, IBSSA_SHM_PREFIX, strlen(IBSSA_SHM_PREFIX)) == 0);
  CHECK(strchr(a, '/') == nullptr);  // a name in the daemon's directory
  CHECK(strcmp(a, b) != 0);
  char cwd[4096];
  CHECK(getcwd(cwd, sizeof(cwd)) != nullptr);
  LONGS_EQUAL(0, ibssa_shm_object_name((std::string(cwd) + "/s.sock").c_str(), b, sizeof(b)));
  LONGS_EQUAL(0, ibssa_shm_object_name("s.sock", c, sizeof(c)));
  STRCMP_EQUAL(b, c);
  LONGS_EQUAL(-ENAMETOOLONG, ibssa_shm_object_name("/run/x.sock", a, 10));
}

// Root's objects live where only root may write; any other user's in a
// directory of its own that the daemon makes.
TEST(ShmPrdbFormat, EachUserHasItsOwnDirectory) {
  char d[128];
  LONGS_EQUAL(0, ibssa_shm_dir(0, d, sizeof(d)));
  STRCMP_EQUAL(IBSSA_SHM_ROOT_DIR, d);
  LONGS_EQUAL(0, ibssa_shm_dir(1000, d, sizeof(d)));
  STRCMP_EQUAL(IBSSA_SHM_DIR "/" IBSSA_SHM_USER_PREFIX "1000", d);
  LONGS_EQUAL(-ENAMETOOLONG, ibssa_shm_dir(1000, d, 8));
}

// What a reader refuses before it reads a byte: the wrong type (a FIFO,
// a directory), owner or mode, in words that name the file.
TEST(ShmPrdbFormat, PlacesAndObjectsOfAnotherKindOwnerOrModeAreRefused) {
  ssa::test::TempDir dir{"shm-place-test."};
  const uid_t me = geteuid();
  char why[320];
  int dfd = open(dir.path().c_str(), O_RDONLY | O_DIRECTORY);
  CHECK(dfd >= 0);
  CHECK_EQUAL(0, fchmod(dfd, 0755));
  LONGS_EQUAL(0, ibssa_shm_check_dir(dfd, "D", me, why, sizeof(why)));
  LONGS_EQUAL(-EPERM, ibssa_shm_check_dir(dfd, "D", me + 1, why, sizeof(why)));
  STRCMP_CONTAINS("D belongs to uid", why);
  CHECK_EQUAL(0, fchmod(dfd, 01777));
  LONGS_EQUAL(-EPERM, ibssa_shm_check_dir(dfd, "D", me, why, sizeof(why)));
  STRCMP_CONTAINS("may be written by others", why);
  close(dfd);

  std::string fifo = dir.path() + "/fifo", file = dir.path() + "/file";
  CHECK_EQUAL(0, mkfifo(fifo.c_str(), 0644));
  int fd = open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  CHECK(fd >= 0);
  LONGS_EQUAL(-EPERM, ibssa_shm_check_object(fd, "F", me, why, sizeof(why)));
  STRCMP_CONTAINS("F is not a regular file", why);
  close(fd);
  fd = open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  LONGS_EQUAL(-EPERM, ibssa_shm_check_dir(fd, "F", me, why, sizeof(why)));
  STRCMP_CONTAINS("F is not a directory", why);
  close(fd);
  CHECK_OK(ssa::WriteFileAtomically(file, std::string(200, 'x')));
  fd = open(file.c_str(), O_RDONLY);
  LONGS_EQUAL(0, ibssa_shm_check_object(fd, "O", me, why, sizeof(why)));
  LONGS_EQUAL(-EPERM, ibssa_shm_check_object(fd, "O", me + 1, why, sizeof(why)));
  CHECK_EQUAL(0, fchmod(fd, 0666));
  LONGS_EQUAL(-EPERM, ibssa_shm_check_object(fd, "O", me, why, sizeof(why)));
  close(fd);
  CHECK_OK(ssa::WriteFileAtomically(file, std::string(100, 'x')));
  fd = open(file.c_str(), O_RDONLY);
  LONGS_EQUAL(-EPERM, ibssa_shm_check_object(fd, "O", me, why, sizeof(why)));
  STRCMP_CONTAINS("not a table object", why);
  close(fd);
}

// The checksum's fast path (SSE4.2's crc32 where the CPU has it) against
// the table, and both against CRC-32C's check value, at every length and
// alignment around the 8-byte steps, and continued across pieces.
TEST(ShmPrdbFormat, TheChecksumIsCrc32cOnEveryPath) {
  const char* check = "123456789";
  LONGS_EQUAL(0xE3069283u, ibssa_shm_crc32c(0, check, 9));
  LONGS_EQUAL(0xE3069283u, ibssa_shm_crc32c_portable(0, check, 9));
  std::vector<uint8_t> buf(4096 + 16);
  uint32_t x = 12345;
  for (uint8_t& b : buf) b = static_cast<uint8_t>((x = x * 1103515245u + 12345u) >> 16);
  for (size_t off = 0; off < 8; ++off)
    for (size_t len : {0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1000, 4096}) {
      const uint8_t* p = buf.data() + off;
      uint32_t want = ibssa_shm_crc32c_portable(0, p, len);
      LONGS_EQUAL(want, ibssa_shm_crc32c(0, p, len));
      size_t half = len / 3;
      LONGS_EQUAL(want, ibssa_shm_crc32c(ibssa_shm_crc32c(0, p, half), p + half, len - half));
    }
}
