# common/: the protocol library, one convenience library per subsystem.
# A convenience library never links another one (a module linking both
# would get the objects twice): each program names what it uses, users
# before what they use, through these variables.
include $(srcdir)/common/base/local.mk
include $(srcdir)/common/mad/local.mk
include $(srcdir)/common/acm/local.mk
include $(srcdir)/common/smdb/local.mk
include $(srcdir)/common/tree/local.mk
include $(srcdir)/common/metrics/local.mk
include $(srcdir)/common/shm_prdb/local.mk
include $(srcdir)/common/answer/local.mk

SSA_BASE_LIBS = common/base/libssabase.la
SSA_MAD_LIBS = common/mad/libssamad.la $(SSA_BASE_LIBS)
SSA_ACM_LIBS = common/acm/libssaacm.la $(SSA_BASE_LIBS)
SSA_SMDB_LIBS = common/smdb/libssasmdb.la $(SSA_BASE_LIBS)
SSA_METRICS_LIBS = common/metrics/libssametrics.la $(SSA_BASE_LIBS)
SSA_TREE_LIBS = common/tree/libssatree.la common/smdb/libssasmdb.la common/mad/libssamad.la \
	$(SSA_BASE_LIBS)
# Everything above, in link order.
SSA_ALL_LIBS = common/tree/libssatree.la common/acm/libssaacm.la common/smdb/libssasmdb.la \
	common/mad/libssamad.la common/metrics/libssametrics.la $(SSA_BASE_LIBS)
