// first_touch.h: what this machine charges for memory a process touches
// for the first time (a page fault, the page zeroed, and on a virtual
// machine whose host backs guest memory lazily, the host's own fault),
// in seconds of CPU per GiB. A replica tree's bring-up must touch every
// byte it keeps (each consumer's PRDB, each access node's copy of it), so
// this is the floor of its CPU time here; bench_tree prints both.
#ifndef IBACM_SSA_TEST_BENCH_FIRST_TOUCH_H
#define IBACM_SSA_TEST_BENCH_FIRST_TOUCH_H

#include <cstddef>

namespace ssa {
namespace bench {

// Maps `bytes` of fresh anonymous memory, writes every page once, unmaps
// it; returns the CPU seconds (user + system) per GiB, or -1 on error.
double FirstTouchSecondsPerGib(size_t bytes = size_t{256} << 20);

}  // namespace bench
}  // namespace ssa

#endif
