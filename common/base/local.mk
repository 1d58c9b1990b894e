# common/base/: what every program here builds on: Status, logging, the
# epoll event loop and the worker pool, INI/upstream config files and
# option tables, text helpers, the progress meter and the host's IPoIB
# interfaces (network interfaces, as getifaddrs lists them). No InfiniBand
# device access in it.
#
# SSA_BASE_PURE_SOURCES: the part with no dependency beyond libc (Status,
# byte order, whole-file reads and writes, the buffer recycler the PRDB
# patch writes into); the fuzzers (test/fuzz/local.mk) compile it with clang.
SSA_BASE_PURE_SOURCES = common/base/status.h common/base/status.cc common/base/big_endian.h \
	common/base/file_io.h common/base/file_io.cc common/base/raw_fd.h \
	common/base/buffer_recycler.h common/base/buffer_recycler.cc
# SSA_BASE_CONFIG_SOURCES: the readers of option files and what they log
# through (the config fuzzer compiles them too).
SSA_BASE_CONFIG_SOURCES = common/base/config_file.h common/base/config_file.cc \
	common/base/option_set.h common/base/option_set.cc common/base/text_util.h \
	common/base/option_registry.h common/base/option_registry.cc \
	common/base/nearest_word.h common/base/nearest_word.cc \
	common/base/log.h common/base/log.cc
noinst_LTLIBRARIES += common/base/libssabase.la
common_base_libssabase_la_SOURCES = $(SSA_BASE_PURE_SOURCES) $(SSA_BASE_CONFIG_SOURCES) \
	common/base/event_loop.h common/base/event_loop.cc \
	common/base/daemon_util.h common/base/daemon_util.cc \
	common/base/daemon_shell.h common/base/daemon_shell.cc \
	common/base/daemon_cli.h common/base/daemon_cli.cc \
	common/base/rate_limit.h common/base/rate_limit.cc \
	common/base/fault_spec.h common/base/fault_spec.cc \
	common/base/worker_pool.h common/base/worker_pool.cc \
	common/base/mailbox.h common/base/mutex.h common/base/thread_annotations.h \
	common/base/task_mailbox.h common/base/task_mailbox.cc \
	common/base/object_recycler.h common/base/fair_queue.h common/base/sort_unique.h \
	common/base/progress_meter.h common/base/progress_meter.cc \
	common/base/ipoib_interfaces.h common/base/ipoib_interfaces.cc \
	common/base/reactor.h
common_base_libssabase_la_CPPFLAGS = $(AM_CPPFLAGS) $(INIH_CFLAGS)
common_base_libssabase_la_LIBADD = $(INIH_LIBS) -lpthread
