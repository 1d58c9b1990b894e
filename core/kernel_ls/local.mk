# core/kernel_ls/: the kernel's path-record requests (NETLINK_RDMA, client
# RDMA_NL_LS) served through the providers. The codec has its own source
# list for the fuzzer (test/fuzz/local.mk).
CORE_KERNEL_LS_CODEC_SOURCES = core/kernel_ls/ls_codec.h core/kernel_ls/ls_codec.cc \
	core/kernel_ls/ls_answer.h core/kernel_ls/ls_answer.cc
core_libibacmcore_la_SOURCES += $(CORE_KERNEL_LS_CODEC_SOURCES) \
	core/kernel_ls/path_resolver.h \
	core/kernel_ls/kernel_path_service.h core/kernel_ls/kernel_path_service.cc
