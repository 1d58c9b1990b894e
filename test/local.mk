# test/: what the test binaries share. libtestmain.la is CppUTest's entry
# point for every test binary (unit and sim): they link libtestmain.la
# first and have no main() of their own.
check_LTLIBRARIES += test/libtestmain.la
test_libtestmain_la_SOURCES = test/test_main.cc
test_libtestmain_la_CPPFLAGS = $(AM_CPPFLAGS) $(CPPUTEST_CFLAGS)

# Every C and C++ file in the house style (scripts/format.sh --check).
TESTS += test/format_test.sh
EXTRA_DIST += test/format_test.sh
