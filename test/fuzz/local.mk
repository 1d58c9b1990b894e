# test/fuzz/: libFuzzer targets. They need clang (-fsanitize=fuzzer) and
# instrumented code, so each is compiled here directly with $(CLANGXX) from
# the sources of the libraries it exercises rather than linked with them
# (g++ builds those). The source lists are the libraries' own variables,
# defined once beside each library (SSA_ACM_SOURCES in common/acm/local.mk,
# ...); fuzz_build compiles the .cc files among them. Built only when
# configure found clang++; run-fuzzers.sh runs them under `make check` (or
# reports SKIP).
fuzzer_flags = -std=c++17 -g -O1 -fno-omit-frame-pointer \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	$(WARN_FLAGS) -I$(top_srcdir) -I$(top_srcdir)/include
# In a rule: fuzz_inputs='<sources and headers>'; $(fuzz_build)
fuzz_build = srcs=; for f in $$fuzz_inputs; do \
	  case $$f in *.cc) srcs="$$srcs $(srcdir)/$$f";; esac; \
	done; \
	$(MKDIR_P) test/fuzz && $(CLANGXX) $(fuzzer_flags) -o $@ $$srcs $$fuzz_libs

# acm_msg_fuzzer: the ibacm client protocol's decoders (common/acm/).
acm_msg_fuzzer_main = test/fuzz/acm_msg_fuzzer.cc
acm_msg_fuzzer_inputs = $(acm_msg_fuzzer_main) test/fuzz/fuzz_check.h \
	$(SSA_ACM_SOURCES) $(SSA_BASE_PURE_SOURCES)
test/fuzz/acm_msg_fuzzer: $(acm_msg_fuzzer_inputs)
	$(AM_V_GEN)fuzz_inputs='$(acm_msg_fuzzer_inputs)'; $(fuzz_build)


# smdb_fuzzer: the SMDB/PRDB readers and the delta applier (common/smdb/).
smdb_fuzzer_main = test/fuzz/smdb_fuzzer.cc
smdb_fuzzer_inputs = $(smdb_fuzzer_main) test/fuzz/fuzz_check.h \
	$(SSA_SMDB_SOURCES) $(SSA_BASE_PURE_SOURCES)
test/fuzz/smdb_fuzzer: $(smdb_fuzzer_inputs)
	$(AM_V_GEN)fuzz_inputs='$(smdb_fuzzer_inputs)'; $(fuzz_build)


# acmp_msg_fuzzer: the acmp provider's ACM datagram decoder
# (ACMP_WIRE_SOURCES in providers/acmp/local.mk).
acmp_msg_fuzzer_main = test/fuzz/acmp_msg_fuzzer.cc
acmp_msg_fuzzer_inputs = $(acmp_msg_fuzzer_main) test/fuzz/fuzz_check.h \
	$(ACMP_WIRE_SOURCES) $(SSA_BASE_PURE_SOURCES)
test/fuzz/acmp_msg_fuzzer: $(acmp_msg_fuzzer_inputs)
	$(AM_V_GEN)fuzz_inputs='$(acmp_msg_fuzzer_inputs)'; $(fuzz_build)


# ssa_mad_fuzzer: the SSA tree's control MAD codecs, and tree_frame_fuzzer:
# its data-channel frame reader and payload codecs (SSA_TREE_WIRE_SOURCES in
# common/tree/local.mk, with the MAD header codec and the CRC32 they use).
ssa_tree_wire_fuzz_inputs = test/fuzz/fuzz_check.h $(SSA_TREE_WIRE_SOURCES) \
	$(SSA_MAD_WIRE_SOURCES) $(SSA_SMDB_FORMAT_SOURCES) $(SSA_BASE_PURE_SOURCES)
ssa_mad_fuzzer_main = test/fuzz/ssa_mad_fuzzer.cc
ssa_mad_fuzzer_inputs = $(ssa_mad_fuzzer_main) $(ssa_tree_wire_fuzz_inputs)
test/fuzz/ssa_mad_fuzzer: $(ssa_mad_fuzzer_inputs)
	$(AM_V_GEN)fuzz_inputs='$(ssa_mad_fuzzer_inputs)'; $(fuzz_build)

tree_frame_fuzzer_main = test/fuzz/tree_frame_fuzzer.cc
tree_frame_fuzzer_inputs = $(tree_frame_fuzzer_main) $(ssa_tree_wire_fuzz_inputs)
test/fuzz/tree_frame_fuzzer: $(tree_frame_fuzzer_inputs)
	$(AM_V_GEN)fuzz_inputs='$(tree_frame_fuzzer_inputs)'; $(fuzz_build)


# config_fuzzer: the readers of what administrators write: option files
# (INI and upstream), ibacm_addr.cfg, the hosts file, the plugin's options.
config_fuzzer_main = test/fuzz/config_fuzzer.cc
config_fuzzer_inputs = $(config_fuzzer_main) test/fuzz/fuzz_check.h \
	$(SSA_BASE_CONFIG_SOURCES) $(CORE_ADDR_CONFIG_SOURCES) $(OSM_PLUGIN_OPTIONS_SOURCES) \
	$(SSA_SMDB_SOURCES) $(SSA_BASE_PURE_SOURCES)
test/fuzz/config_fuzzer: $(config_fuzzer_inputs)
	$(AM_V_GEN)fuzz_inputs='$(config_fuzzer_inputs)'; \
	fuzz_libs='$(INIH_CFLAGS) $(INIH_LIBS) -lpthread'; $(fuzz_build)


# netlink_fuzzer: the core's netlink codecs, the kernel's path-record
# requests (CORE_KERNEL_LS_CODEC_SOURCES in core/kernel_ls/local.mk) and
# rtnetlink address messages (CORE_RTNL_ADDR_CODEC_SOURCES), with their
# framing (CORE_NETLINK_MSG_SOURCES).
netlink_fuzzer_main = test/fuzz/netlink_fuzzer.cc
netlink_fuzzer_inputs = $(netlink_fuzzer_main) test/fuzz/fuzz_check.h \
	$(CORE_NETLINK_MSG_SOURCES) $(CORE_KERNEL_LS_CODEC_SOURCES) \
	$(CORE_RTNL_ADDR_CODEC_SOURCES) $(SSA_BASE_PURE_SOURCES)
test/fuzz/netlink_fuzzer: $(netlink_fuzzer_inputs)
	$(AM_V_GEN)fuzz_inputs='$(netlink_fuzzer_inputs)'; $(fuzz_build)


# In a rule: fuzz_c='<C sources and headers>'; fuzz_main=<target .cc>;
# $(fuzz_build_c): compiles the .c files among them as C, instrumented,
# then links them with the C++ target.
fuzz_build_c = $(MKDIR_P) test/fuzz && objs= && \
	for f in $$fuzz_c; do case $$f in *.c) \
	  o=$@-$$(basename $$f .c).o; \
	  $(CLANGXX) -x c -std=gnu11 -g -O1 -fno-omit-frame-pointer -pthread \
	    -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined \
	    $(WARN_FLAGS) -I$(top_srcdir) -I$(top_srcdir)/include -c $(srcdir)/$$f -o $$o || exit 1; \
	  objs="$$objs $$o";; esac; done && \
	$(CLANGXX) $(fuzzer_flags) -pthread -o $@ $(srcdir)/$$fuzz_main $$objs

# shm_prdb_fuzzer: the reader of the shared-memory path tables
# (SHM_PRDB_C_SOURCES in common/shm_prdb/local.mk, C: compiled as C here,
# then linked with the C++ target).
shm_prdb_fuzzer_main = test/fuzz/shm_prdb_fuzzer.cc
shm_prdb_fuzzer_inputs = $(shm_prdb_fuzzer_main) test/fuzz/fuzz_check.h $(SHM_PRDB_C_SOURCES)
test/fuzz/shm_prdb_fuzzer: $(shm_prdb_fuzzer_inputs)
	$(AM_V_GEN)fuzz_c='$(SHM_PRDB_C_SOURCES)'; fuzz_main=$(shm_prdb_fuzzer_main); $(fuzz_build_c)


# ibssa_path_fuzzer: libibssa_path on what other processes control: the
# daemon's socket replies, table objects of any kind, owner and mode at
# the name it opens, and every lookup on what validates
# (IBSSA_PATH_C_SOURCES in libibssa_path/local.mk).
ibssa_path_fuzzer_main = test/fuzz/ibssa_path_fuzzer.cc
ibssa_path_fuzzer_inputs = $(ibssa_path_fuzzer_main) test/fuzz/fuzz_check.h $(IBSSA_PATH_C_SOURCES)
test/fuzz/ibssa_path_fuzzer: $(ibssa_path_fuzzer_inputs)
	$(AM_V_GEN)fuzz_c='$(IBSSA_PATH_C_SOURCES)'; fuzz_main=$(ibssa_path_fuzzer_main); $(fuzz_build_c)

# Every fuzzer (run-fuzzers.sh runs the same list): built for `make check`
# when configure found clang++, with its seed generator and corpus in the
# distribution. fuzz_build_c leaves objects beside its target.
fuzzers = test/fuzz/acm_msg_fuzzer test/fuzz/smdb_fuzzer test/fuzz/acmp_msg_fuzzer \
	test/fuzz/ssa_mad_fuzzer test/fuzz/tree_frame_fuzzer test/fuzz/config_fuzzer \
	test/fuzz/netlink_fuzzer test/fuzz/shm_prdb_fuzzer test/fuzz/ibssa_path_fuzzer
fuzzers_built_for_check =
if HAVE_CLANGXX
fuzzers_built_for_check += $(fuzzers)
endif
check_SCRIPTS += $(fuzzers_built_for_check)
CLEANFILES += $(fuzzers) test/fuzz/*_fuzzer-*.o
TESTS += test/fuzz/run-fuzzers.sh
dist_noinst_SCRIPTS += test/fuzz/run-fuzzers.sh \
	test/fuzz/gen_acm_msg_seeds.py test/fuzz/gen_smdb_seeds.py test/fuzz/gen_acmp_msg_seeds.py \
	test/fuzz/gen_ssa_mad_seeds.py test/fuzz/gen_tree_frame_seeds.py test/fuzz/gen_config_seeds.py \
	test/fuzz/gen_netlink_seeds.py test/fuzz/gen_shm_prdb_seeds.py test/fuzz/gen_ibssa_path_seeds.py
EXTRA_DIST += test/fuzz/fuzz_check.h \
	$(acm_msg_fuzzer_main) $(smdb_fuzzer_main) $(acmp_msg_fuzzer_main) \
	$(ssa_mad_fuzzer_main) $(tree_frame_fuzzer_main) $(config_fuzzer_main) \
	$(netlink_fuzzer_main) $(shm_prdb_fuzzer_main) $(ibssa_path_fuzzer_main) \
	test/fuzz/corpus/acm_msg test/fuzz/corpus/smdb test/fuzz/corpus/acmp_msg \
	test/fuzz/corpus/ssa_mad test/fuzz/corpus/tree_frame test/fuzz/corpus/config \
	test/fuzz/corpus/netlink test/fuzz/corpus/shm_prdb test/fuzz/corpus/ibssa_path
