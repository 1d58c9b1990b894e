# core/addr_watch/: IP address changes of IPoIB interfaces at run time
# (rtnetlink) turned into endpoint addresses.
CORE_RTNL_ADDR_CODEC_SOURCES = core/addr_watch/rtnl_addr_codec.h core/addr_watch/rtnl_addr_codec.cc
core_libibacmcore_la_SOURCES += $(CORE_RTNL_ADDR_CODEC_SOURCES) \
	core/addr_watch/link_info.h core/addr_watch/link_info.cc \
	core/addr_watch/ipoib_addresses.h core/addr_watch/ipoib_addresses.cc \
	core/addr_watch/addr_watcher.h core/addr_watch/addr_watcher.cc
