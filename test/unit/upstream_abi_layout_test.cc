// upstream_abi_layout_test.cc: the upstream bridge's own declarations of
// upstream ibacm's provider structs (providers/upstream/acm_prov_abi.h)
// match upstream's header bit for bit: every member at the same offset
// with the same size, every struct of the same size. A library compiled
// against upstream's header reads the structs the bridge hands it.
#include <cstddef>
#include <string>

#include "test/unit/upstream_abi_layout.h"

#include <CppUTest/TestHarness.h>

namespace {

const char* const kEntryNames[] = {
#define NAME_MEMBER(s, m) #s "." #m " offset", #s "." #m " size",
#define NAME_STRUCT(s) "sizeof " #s,
    UPSTREAM_ABI_MEMBERS(NAME_MEMBER) UPSTREAM_ABI_STRUCTS(NAME_STRUCT)
#undef NAME_MEMBER
#undef NAME_STRUCT
};

}  // namespace

TEST_GROUP(UpstreamAbiLayout){};

TEST(UpstreamAbiLayout, EveryMemberAndStructMatchesUpstreamsHeader) {
  size_t n_ours = 0, n_theirs = 0;
  const size_t* ours = upstream_abi_ours(&n_ours);
  const size_t* theirs = upstream_abi_theirs(&n_theirs);
  LONGS_EQUAL(sizeof(kEntryNames) / sizeof(kEntryNames[0]), n_ours);
  LONGS_EQUAL(n_ours, n_theirs);
  for (size_t i = 0; i < n_ours; i++) {
    std::string what = kEntryNames[i];
    if (ours[i] != theirs[i])
      FAIL(
          (what + ": bridge " + std::to_string(ours[i]) + ", upstream " + std::to_string(theirs[i]))
              .c_str());
  }
}
