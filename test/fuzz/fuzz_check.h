// fuzz_check.h: FUZZ_CHECK(cond) for the libFuzzer targets: an invariant
// that must hold for every input. Unlike assert() it stays on in every
// build; a failure names the condition and aborts, which libFuzzer reports
// as a crash with the input saved.
#ifndef IBACM_SSA_TEST_FUZZ_FUZZ_CHECK_H
#define IBACM_SSA_TEST_FUZZ_FUZZ_CHECK_H

#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(cond)                                                                  \
  do {                                                                                    \
    if (!(cond)) {                                                                        \
      std::fprintf(stderr, "FUZZ_CHECK failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
      std::abort();                                                                       \
    }                                                                                     \
  } while (0)

#endif
