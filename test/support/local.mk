# test/support/: what the test programs share, so that each piece of test
# logic is written once: CHECK_OK (check_ok.h, header only), the temporary
# directories (temp_dir.h), the fake of the provider ABI's core
# (fake_core.h), the parsers of ibstat, ibnetdiscover and saquery output
# (tool_output.h), a TCP connection to this machine (loopback.h), metrics
# files checked with promtool and the Python client (prom_check.h),
# waiting for another process's doing with a bound (poll.h), a rogue
# process on a parent's data port (rogue_parent.h: it uses the tree's
# library, which its users link).
#
# libtestsupport.la is built by `make all`, not only by `make check`: the
# simulated fabric's harness and CLI (test/sim/libsimfab.la, simfab) and
# the benchmarks (`make bench`) use it too. It needs no CppUTest (check_ok.h
# needs it where it is used). Users link $(TEST_SUPPORT_LIBS) after the
# test libraries that use it.
noinst_LTLIBRARIES += test/support/libtestsupport.la
test_support_libtestsupport_la_SOURCES = \
	test/support/check_ok.h \
	test/support/temp_dir.h test/support/temp_dir.cc \
	test/support/fake_core.h test/support/fake_core.cc test/support/sa_reply.h \
	test/support/tool_output.h test/support/tool_output.cc \
	test/support/loopback.h test/support/loopback.cc \
	test/support/prom_check.h test/support/prom_check.cc \
	test/support/poll.h test/support/poll.cc \
	test/support/rogue_parent.h test/support/rogue_parent.cc
TEST_SUPPORT_LIBS = test/support/libtestsupport.la
