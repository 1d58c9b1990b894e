# test/sdk/: the provider SDK tested as an author and an administrator use
# it, through the installed files: make install DESTDIR into a scratch
# root, examples/provider/ built there with its own Makefile, the installed
# ibacm and ib_acme on the simulated fabric (test/sdk/lib.sh has the shared
# shell helpers; each script prints a CppUTest-style summary line).
TESTS += test/sdk/example_provider_test.sh
dist_noinst_SCRIPTS += test/sdk/example_provider_test.sh
dist_noinst_DATA += test/sdk/lib.sh

# The example provider an author starts from (examples/provider/README).
EXTRA_DIST += examples/provider/README examples/provider/Makefile \
	examples/provider/pathfile.c examples/provider/provider.map \
	examples/provider/paths.txt examples/provider/pathfile.cfg \
	examples/.clang-format \
	examples/shm_path/README examples/shm_path/Makefile examples/shm_path/pathlookup.c

# The upstream bridge (providers/upstream/) with Debian's libibacmp.so and
# the upstream-style test libraries of test/providers/upstream/.
TESTS += test/sdk/upstream_bridge_test.sh
dist_noinst_SCRIPTS += test/sdk/upstream_bridge_test.sh

# The bridge's declarations of upstream's structs against upstream's header
# (Debian's ibacm package), in the unit test binary.
test_unit_unit_tests_SOURCES += test/unit/upstream_abi_layout.h \
	test/unit/upstream_abi_layout_test.cc \
	test/unit/upstream_abi_ours.c test/unit/upstream_abi_theirs.c
