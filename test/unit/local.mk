# test/unit/: CppUTest unit tests, one binary for all of them. The code
# under test comes from the libraries (users before what they use); the
# providers' tests also load the built modules.
check_PROGRAMS += test/unit/unit_tests
TESTS += test/unit/unit_tests
test_unit_unit_tests_SOURCES = \
	test/unit/status_test.cc test/unit/big_endian_test.cc \
	test/unit/log_test.cc \
	test/unit/event_loop_test.cc test/unit/mailbox_test.cc test/unit/raw_fd_test.cc \
	test/unit/worker_pool_test.cc \
	test/unit/buffer_recycler_test.cc \
	test/unit/config_file_test.cc \
	test/unit/option_registry_test.cc test/unit/nearest_word_test.cc \
	test/unit/ibssa_options_test.cc \
	test/unit/rsocket_poller_test.cc \
	test/unit/addr_db_test.cc \
	test/unit/progress_meter_test.cc \
	test/unit/umad_ports_test.cc \
	test/unit/mad_wire_test.cc \
	test/unit/fair_queue_test.cc \
	test/unit/fake_sa_wire.h test/unit/sa_client_test.cc \
	test/unit/provider_loader_test.cc \
	test/unit/provider_selector_test.cc \
	test/unit/provider_host_ops_test.cc \
	test/unit/provider_metrics_test.cc \
	test/unit/core_config_test.cc \
	test/unit/client_server_test.cc \
	test/unit/daemon_util_test.cc test/unit/daemon_shell_test.cc test/unit/file_io_test.cc \
	test/unit/daemon_test.cc \
	test/unit/fake_netlink.h test/unit/fake_netlink.cc \
	test/unit/kernel_ls_side.h test/unit/ls_daemon_parse.h test/unit/netlink_loop_fixture.h \
	test/unit/kernel_ls_codec_test.cc \
	test/unit/kernel_ls_answer_test.cc test/unit/kernel_path_service_test.cc \
	test/unit/prom_text_test.cc \
	test/unit/addr_watch_test.cc test/unit/daemon_fixture.h test/unit/daemon_kernel_test.cc \
	test/unit/shipped_config_test.cc \
	test/unit/acm_stock_msg.h \
	test/unit/acm_wire_test.cc \
	test/unit/acm_wire_reply_test.cc \
	test/unit/acm_wire_client_test.cc \
	test/unit/ib_acme_range_test.cc \
	test/unit/ib_acme_options_test.cc \
	test/unit/ib_acme_output_test.cc \
	test/unit/ib_acme_report_test.cc \
	test/unit/sa_provider_cache_test.cc \
	test/unit/fallback_bound_test.cc \
	test/unit/sa_provider_parse_test.cc \
	test/unit/sa_provider_query_test.cc \
	test/unit/sa_provider_fake_core.h test/unit/sa_provider_abi_test.cc \
	test/unit/sa_provider_events_test.cc \
	test/unit/acmp_wire_test.cc \
	test/unit/acmp_groups_test.cc \
	test/unit/acmp_membership_test.cc \
	test/unit/acmp_cache_test.cc test/unit/manual_reactor.h \
	test/unit/acmp_fake_fabric.h test/unit/acmp_fake_fabric.cc \
	test/unit/acmp_provider_test.cc \
	test/unit/acmp_send_queue_test.cc \
	test/unit/datagram_sim_test.cc \
	test/unit/smdb_test_util.h test/unit/smdb_test_util.cc \
	test/unit/smdb_test.cc test/unit/smdb_corrupt_test.cc test/unit/smdb_delta_test.cc \
	test/unit/smdb_index_lft_test.cc \
	test/unit/smdb_catch_up_test.cc \
	test/unit/path_engine_fabric.h test/unit/path_engine_checks.h test/unit/path_engine_test.cc test/unit/router_path_test.cc test/unit/prefix_rows_test.cc test/unit/qos_policy_test.cc \
	test/unit/route_diff_test.cc \
	test/unit/text_util_test.cc \
	test/unit/route_suffixes_test.cc \
	test/unit/whole_prdb_test.cc \
	test/unit/prdb_service_test.cc test/unit/prdb_patch_test.cc test/unit/route_sl_slice_test.cc \
	test/unit/tree_frame_test.cc \
	test/unit/inproc_mad_test.cc \
	test/unit/mad_faults_test.cc \
	test/unit/stream_faults_test.cc \
	test/unit/tree_failover_test.cc test/unit/core_confirmation_test.cc \
	test/unit/data_auth_test.cc test/unit/federation_test.cc \
	test/unit/data_storm_test.cc \
	test/unit/membership_test.cc \
	test/unit/db_replica_test.cc \
	test/unit/prdb_view_test.cc \
	test/unit/view_builder_test.cc \
	test/unit/shm_export_test.cc test/unit/answer_rule_test.cc \
	test/unit/smdb_tool_test.cc \
	test/unit/tree_view_test.cc \
	test/unit/tree_check_test.cc
test_unit_unit_tests_CPPFLAGS = $(AM_CPPFLAGS) $(CPPUTEST_CFLAGS) $(TEST_PROVIDER_CPPFLAGS) \
	-DABS_TOP_SRCDIR='"$(abs_top_srcdir)"' -DABS_TOP_BUILDDIR='"$(abs_top_builddir)"'
# What the tests run: the providers they load (sa_provider_abi_test.cc,
# sa_provider_events_test.cc, acmp_provider_test.cc; all three in
# shipped_config_test.cc), ssa-smdb (smdb_tool_test.cc) and ssa-tree
# (tree_check_test.cc).
EXTRA_test_unit_unit_tests_DEPENDENCIES = providers/sa/sa.la providers/acmp/acmp.la \
	providers/ssa/ssa.la util/smdb_tool/ssa-smdb util/ssa_tree/ssa-tree
test_unit_unit_tests_LDADD = test/libtestmain.la $(TEST_SUPPORT_LIBS) \
	util/ib_acme/libacme.la util/smdb_tool/libsmdbtool.la util/ssa_tree/libtreeview.la \
	providers/ssa/libssaprovider.la providers/upstream/libupstreamprovider.la \
	providers/sa/libsaprovider.la providers/acmp/libacmpprovider.la common/answer/libanswer.la \
	distrib/libibssa.la core/libibacmcore.la providers/shared/libprovshared.la \
	$(SSA_ALL_LIBS) $(VERBS_LIBS) $(CPPUTEST_LIBS)

# The shared-memory path tables (common/shm_prdb/) and libibssa_path; their
# libraries need only libc, so they may come last.
test_unit_unit_tests_SOURCES += test/unit/shm_path_fixture.h test/unit/shm_prdb_format_test.cc \
	test/unit/ibssa_path_test.cc test/unit/ibssa_path_attack_test.cc
test_unit_unit_tests_LDADD += common/shm_prdb/libshmprdb.la $(IBSSA_PATH_LIBS)
