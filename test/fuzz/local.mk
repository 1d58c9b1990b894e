# test/fuzz/: libFuzzer targets. They need clang (-fsanitize=fuzzer), so they
# are compiled here directly with $(CLANGXX) from the library's sources rather
# than as automake programs (which g++ builds), and only when configure found
# clang++. run-fuzzers.sh runs them under `make check` (or reports SKIP).
acm_msg_fuzzer_inputs = \
	$(srcdir)/test/fuzz/acm_msg_fuzzer.cc \
	$(srcdir)/common/acm/acm_wire.cc \
	$(srcdir)/common/acm/acm_wire_server.cc \
	$(srcdir)/common/acm/acm_wire_client.cc \
	$(srcdir)/common/base/status.cc
acm_msg_fuzzer_headers = \
	$(srcdir)/test/fuzz/fuzz_check.h \
	$(srcdir)/common/acm/acm_wire.h \
	$(srcdir)/common/acm/acm_wire_internal.h \
	$(srcdir)/common/base/status.h
fuzzer_flags = -std=c++17 -g -O1 -fno-omit-frame-pointer \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	$(WARN_FLAGS) -I$(top_srcdir)

test/fuzz/acm_msg_fuzzer: $(acm_msg_fuzzer_inputs) $(acm_msg_fuzzer_headers)
	@$(MKDIR_P) test/fuzz
	$(AM_V_GEN)$(CLANGXX) $(fuzzer_flags) -o $@ $(acm_msg_fuzzer_inputs)

fuzzers_built_for_check =
if HAVE_CLANGXX
fuzzers_built_for_check += test/fuzz/acm_msg_fuzzer
endif
# The root Makefile.am does not declare check_SCRIPTS, so it starts here; a
# directory included after this one appends with +=.
check_SCRIPTS += $(fuzzers_built_for_check)
CLEANFILES += test/fuzz/acm_msg_fuzzer
TESTS += test/fuzz/run-fuzzers.sh
dist_noinst_SCRIPTS += test/fuzz/run-fuzzers.sh test/fuzz/gen_acm_msg_seeds.py
EXTRA_DIST += test/fuzz/fuzz_check.h test/fuzz/acm_msg_fuzzer.cc test/fuzz/corpus/acm_msg

# smdb_fuzzer: the SMDB/PRDB readers and the delta applier (common/smdb*).
smdb_fuzzer_inputs = \
	$(srcdir)/test/fuzz/smdb_fuzzer.cc \
	$(srcdir)/common/smdb/smdb_format.cc \
	$(srcdir)/common/smdb/smdb_codec.cc \
	$(srcdir)/common/smdb/smdb.cc \
	$(srcdir)/common/smdb/smdb_prdb.cc \
	$(srcdir)/common/smdb/smdb_stream.cc \
	$(srcdir)/common/smdb/smdb_delta.cc \
	$(srcdir)/common/smdb/smdb_dump.cc \
	$(srcdir)/common/base/status.cc
smdb_fuzzer_headers = \
	$(srcdir)/test/fuzz/fuzz_check.h \
	$(srcdir)/common/smdb/smdb_format.h \
	$(srcdir)/common/smdb/smdb_fields.h \
	$(srcdir)/common/smdb/smdb_records.h \
	$(srcdir)/common/smdb/smdb_codec.h \
	$(srcdir)/common/smdb/smdb.h \
	$(srcdir)/common/smdb/smdb_prdb.h \
	$(srcdir)/common/smdb/smdb_stream.h \
	$(srcdir)/common/smdb/smdb_delta.h \
	$(srcdir)/common/smdb/smdb_dump.h \
	$(srcdir)/common/base/status.h

test/fuzz/smdb_fuzzer: $(smdb_fuzzer_inputs) $(smdb_fuzzer_headers)
	@$(MKDIR_P) test/fuzz
	$(AM_V_GEN)$(CLANGXX) $(fuzzer_flags) -o $@ $(smdb_fuzzer_inputs)

if HAVE_CLANGXX
fuzzers_built_for_check += test/fuzz/smdb_fuzzer
endif
CLEANFILES += test/fuzz/smdb_fuzzer
dist_noinst_SCRIPTS += test/fuzz/gen_smdb_seeds.py
EXTRA_DIST += test/fuzz/smdb_fuzzer.cc test/fuzz/corpus/smdb

# acmp_msg_fuzzer: the acmp provider's ACM datagram decoder
# (providers/acmp/acmp_wire.cc).
acmp_msg_fuzzer_inputs = \
	$(srcdir)/test/fuzz/acmp_msg_fuzzer.cc \
	$(srcdir)/providers/acmp/acmp_wire.cc \
	$(srcdir)/common/base/status.cc
acmp_msg_fuzzer_headers = \
	$(srcdir)/test/fuzz/fuzz_check.h \
	$(srcdir)/providers/acmp/acmp_wire.h \
	$(srcdir)/providers/acmp/datagram_transport.h \
	$(srcdir)/common/base/big_endian.h \
	$(srcdir)/common/base/status.h

test/fuzz/acmp_msg_fuzzer: $(acmp_msg_fuzzer_inputs) $(acmp_msg_fuzzer_headers)
	@$(MKDIR_P) test/fuzz
	$(AM_V_GEN)$(CLANGXX) $(fuzzer_flags) -o $@ $(acmp_msg_fuzzer_inputs)

if HAVE_CLANGXX
fuzzers_built_for_check += test/fuzz/acmp_msg_fuzzer
endif
CLEANFILES += test/fuzz/acmp_msg_fuzzer
dist_noinst_SCRIPTS += test/fuzz/gen_acmp_msg_seeds.py
EXTRA_DIST += test/fuzz/acmp_msg_fuzzer.cc test/fuzz/corpus/acmp_msg
