# test/: what the test binaries share. libtestmain.la is CppUTest's entry
# point for every test binary (unit and sim): they link libtestmain.la
# first and have no main() of their own.
check_LTLIBRARIES += test/libtestmain.la
test_libtestmain_la_SOURCES = test/test_main.cc
test_libtestmain_la_CPPFLAGS = $(AM_CPPFLAGS) $(CPPUTEST_CFLAGS)

# Every C and C++ file in the house style (scripts/format.sh --check).
TESTS += test/format_test.sh
EXTRA_DIST += test/format_test.sh test/script_check.sh

# The locking rules hold under clang's thread-safety analysis
# (scripts/thread-safety.sh, common/base/mutex.h).
TESTS += test/thread_safety_test.sh
EXTRA_DIST += test/thread_safety_test.sh scripts/thread-safety.sh

# A system install puts every file where the man pages say
# (test/install_layout_test.sh); the example configuration files are what
# the option tables make (core/local.mk, test/config_examples_test.sh).
TESTS += test/install_layout_test.sh
EXTRA_DIST += test/install_layout_test.sh

# The README's "Run it yourself" steps, exactly as written
# (test/readme_steps_test.sh).
TESTS += test/readme_steps_test.sh
EXTRA_DIST += test/readme_steps_test.sh
