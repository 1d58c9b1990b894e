# common/mad/: MADs over libibumad: the MAD and SA attribute codecs, the
# MadTransport seam with its umad implementation (direct or bridged under
# umad2sim), port discovery, and the SA client (queries, timeouts, retries).
#
# SSA_MAD_WIRE_SOURCES: the MAD header and SA codecs (rdma-core headers
# only, no libibumad); also compiled by test/fuzz/local.mk.
SSA_MAD_WIRE_SOURCES = common/mad/mad_wire.h common/mad/mad_wire.cc
noinst_LTLIBRARIES += common/mad/libssamad.la
common_mad_libssamad_la_SOURCES = $(SSA_MAD_WIRE_SOURCES) \
	common/mad/mad_transport.h common/mad/mad_faults.h common/mad/mad_faults.cc \
	common/mad/umad_transport.h common/mad/umad_transport.cc \
	common/mad/umad_ports.h common/mad/umad_ports.cc \
	common/mad/sa_client.h common/mad/sa_client.cc \
	common/mad/sm_lid_probe.h common/mad/sm_lid_probe.cc
common_mad_libssamad_la_LIBADD = $(UMAD_LIBS)
