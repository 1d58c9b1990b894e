// thread_annotations.h: clang's thread-safety attributes, so the locking
// rules are checked at compile time instead of read in comments.
//
// `Mutex member_mu_;` then `int count_ GUARDED_BY(member_mu_);` makes clang
// (-Wthread-safety, scripts/thread-safety.sh, run by scripts/test.sh) refuse
// every access to count_ made without member_mu_ held; REQUIRES(mu) on a
// function says its callers hold mu, EXCLUDES(mu) that they must not (it
// takes mu itself). GCC builds see empty macros. Use with Mutex and
// MutexLock (mutex.h): libstdc++'s std::mutex carries no attributes.
#ifndef IBACM_SSA_COMMON_BASE_THREAD_ANNOTATIONS_H
#define IBACM_SSA_COMMON_BASE_THREAD_ANNOTATIONS_H

#if defined(__clang__)
#define SSA_THREAD_ATTRIBUTE(x) __attribute__((x))
#else
#define SSA_THREAD_ATTRIBUTE(x)
#endif

#define CAPABILITY(x) SSA_THREAD_ATTRIBUTE(capability(x))
#define SCOPED_CAPABILITY SSA_THREAD_ATTRIBUTE(scoped_lockable)
#define GUARDED_BY(x) SSA_THREAD_ATTRIBUTE(guarded_by(x))
#define PT_GUARDED_BY(x) SSA_THREAD_ATTRIBUTE(pt_guarded_by(x))
#define REQUIRES(...) SSA_THREAD_ATTRIBUTE(requires_capability(__VA_ARGS__))
#define ACQUIRE(...) SSA_THREAD_ATTRIBUTE(acquire_capability(__VA_ARGS__))
#define RELEASE(...) SSA_THREAD_ATTRIBUTE(release_capability(__VA_ARGS__))
#define TRY_ACQUIRE(...) SSA_THREAD_ATTRIBUTE(try_acquire_capability(__VA_ARGS__))
#define EXCLUDES(...) SSA_THREAD_ATTRIBUTE(locks_excluded(__VA_ARGS__))
#define RETURN_CAPABILITY(x) SSA_THREAD_ATTRIBUTE(lock_returned(x))
#define NO_THREAD_SAFETY_ANALYSIS SSA_THREAD_ATTRIBUTE(no_thread_safety_analysis)

#endif
