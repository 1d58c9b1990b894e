# core/netlink/: the netlink socket seam and message framing the core's
# kernel services share. Part of the daemon's library.
CORE_NETLINK_MSG_SOURCES = core/netlink/netlink_msg.h core/netlink/netlink_msg.cc
core_libibacmcore_la_SOURCES += $(CORE_NETLINK_MSG_SOURCES) \
	core/netlink/netlink_socket.h core/netlink/netlink_socket.cc
