// sa_provider_events_test.cc: the built sa provider driven through its ops
// table by a fake core (sa_provider_fake_core.h): QUERY_SA pass-through,
// names and IPs through the address data, port changes (routes dropped,
// stale answers not cached, waiting requests asked again), endpoint close,
// route preload from OpenSM's dump, and option warnings.
#include "test/unit/sa_provider_fake_core.h"

#include "common/base/big_endian.h"

TEST_GROUP_BASE(SaProviderEvents, sa_provider_test::SaProviderFixture){};

using namespace sa_provider_test;

TEST(SaProviderEvents, NamesAndIpsMapToGidsThroughTheAddressData) {
  std::string hosts = Write("hosts.data", "node9 fe80::2:c903:0:9\n10.0.0.9 fe80::2:c903:0:9\n");
  Options({{"addr_preload", "acm_hosts"}, {"addr_data_file", hosts}});
  Open();
  uint64_t by_name = Resolve(Name("NODE9"));
  LONGS_EQUAL(1, core.sent.size());
  uint8_t want[16];
  inet_pton(AF_INET6, "fe80::2:c903:0:9", want);
  MEMCMP_EQUAL(want, Asked(0).dgid, 16);
  ssa_address ip = {};
  ip.size = sizeof(ip);
  ip.type = SSA_ADDR_IP;
  inet_pton(AF_INET, "10.0.0.9", ip.data);
  uint64_t by_ip = Resolve(ip);
  LONGS_EQUAL(1, core.sent.size());  // same GID: joined the same query
  Reply(0);
  LONGS_EQUAL(ACM_STATUS_SUCCESS, AnswerOf(by_name).status);
  LONGS_EQUAL(ACM_STATUS_SUCCESS, AnswerOf(by_ip).status);
  // A local endpoint's own name maps to its port's GID.
  Resolve(Name("node5"));
  uint8_t self[16];
  GidOf(kGuid, self);
  MEMCMP_EQUAL(self, Asked(1).dgid, 16);
  LONGS_EQUAL(3, EpCounter(ep_ctx, ACM_CNTR_ADDR_CACHE));
  LONGS_EQUAL(3, core.counters[ACM_CNTR_ADDR_CACHE]);
  LONGS_EQUAL(0, core.warnings.size());
}

TEST(SaProviderEvents, QuerySaPassesTheClientsRecordThroughUncached) {
  Open();
  ibv_path_record p{};
  GidOf(kGuid, p.sgid.raw);
  GidOf(0x100001, p.dgid.raw);
  p.slid = ssa::ToBe16(5);
  p.dlid = ssa::ToBe16(1);
  p.reversible_numpath = 0x80;
  p.pkey = ssa::ToBe16(0xffff);
  p.mtu = 0x84;
  p.rate = 0x83;
  p.packetlifetime = 0x92;
  uint64_t id = QuerySa(p);
  uint64_t mask = 0;
  Asked(0, &mask);
  MEMCMP_EQUAL(&p, core.sent[0].mad.data() + mad::kSaDataOffset, sizeof(p));
  CHECK(mask & mad::kPrCompMtu);
  CHECK_FALSE(mask & mad::kPrCompNumbPath);
  Reply(0);
  CHECK_TRUE(AnswerOf(id).is_query);
  LONGS_EQUAL(ACM_STATUS_SUCCESS, AnswerOf(id).status);
  QuerySa(p);
  LONGS_EQUAL(2, core.sent.size());  // uncached
  Resolve(Lid(1));
  LONGS_EQUAL(3, core.sent.size());  // and it filled no cache entry
  // A record without any source gets the endpoint's.
  ibv_path_record bare{};
  bare.dlid = ssa::ToBe16(3);
  QuerySa(bare);
  LONGS_EQUAL(5, Asked(3).slid);
}

TEST(SaProviderEvents, APortChangeDropsRoutesAndAnswersOfTheOldGeneration) {
  Open();
  Resolve(Lid(8));
  Reply(0);  // cached under LID 5
  uint64_t waiting = Resolve(Lid(9));
  LONGS_EQUAL(2, core.sent.size());
  port.lid = 6;  // the SM gave us a new LID
  prov->port_changed(port_ctx, &port);
  LONGS_EQUAL(3, core.sent.size());  // the waiting request is asked again
  LONGS_EQUAL(6, Asked(2).slid);
  Reply(1);  // the old answer arrives: not for anyone any more
  CHECK_FALSE(Answered(waiting));
  Reply(2);
  LONGS_EQUAL(ACM_STATUS_SUCCESS, AnswerOf(waiting).status);
  LONGS_EQUAL(6, ssa::FromBe16(AnswerOf(waiting).path.slid));
  Resolve(Lid(8));  // dropped by the change: asked again
  LONGS_EQUAL(4, core.sent.size());
  LONGS_EQUAL(6, Asked(3).slid);
  // An SM change drops routes too; a report that changes neither does not.
  Reply(3);
  prov->port_changed(port_ctx, &port);
  Resolve(Lid(8));
  LONGS_EQUAL(4, core.sent.size());
  port.sm_lid = 2;
  prov->port_changed(port_ctx, &port);
  Resolve(Lid(8));
  LONGS_EQUAL(5, core.sent.size());
}

TEST(SaProviderEvents, ClosingAnEndpointAnswersItsWaitingRequests) {
  Open();
  uint64_t waiting = Resolve(Lid(12));
  prov->remove_address(addr_ctx);
  addr_ctx = nullptr;
  prov->close_endpoint(ep_ctx);
  ep_ctx = nullptr;
  LONGS_EQUAL(ACM_STATUS_ENOTCONN, AnswerOf(waiting).status);
  Reply(0);  // the late answer is dropped, not given twice
  LONGS_EQUAL(1, core.answers.at(waiting).times);
}

TEST(SaProviderEvents, RoutePreloadFillsTheCacheFromOpensmsDump) {
  std::string dump = Write("route.data",
                           "Channel Adapter 0x0002c90300001231, base LID 5, \"me\", port 1\n"
                           "# LID  : SL : MTU : RATE\n"
                           "0x0001 : 0  : 4   : 3\n"
                           "0x0005 : 0  : 4   : 3\n"
                           "\n"
                           "Channel Adapter 0x0000000000100001, base LID 1, \"sm\", port 1\n"
                           "# LID  : SL : MTU : RATE\n"
                           "0x0005 : 0  : 4   : 3\n");
  Options({{"route_preload", "opensm_full_v1"}, {"route_data_file", dump}});
  Open();
  uint64_t by_lid = Resolve(Lid(1));
  uint64_t by_gid = Resolve(GidAddr(0x100001));
  LONGS_EQUAL(0, core.sent.size());
  LONGS_EQUAL(ACM_STATUS_SUCCESS, AnswerOf(by_lid).status);
  LONGS_EQUAL(ACM_STATUS_SUCCESS, AnswerOf(by_gid).status);
  const ibv_path_record& p = AnswerOf(by_lid).path;
  LONGS_EQUAL(1, ssa::FromBe16(p.dlid));
  LONGS_EQUAL(5, ssa::FromBe16(p.slid));
  LONGS_EQUAL(0x84, p.mtu);
  uint8_t dgid[16];
  GidOf(0x100001, dgid);
  MEMCMP_EQUAL(dgid, p.dgid.raw, 16);
  LONGS_EQUAL(2, EpCounter(ep_ctx, ACM_CNTR_ROUTE_CACHE));
  // After a LID change the block no longer matches: nothing preloaded.
  port.lid = 7;
  prov->port_changed(port_ctx, &port);
  Resolve(Lid(1));
  LONGS_EQUAL(1, core.sent.size());
}

TEST(SaProviderEvents, UnknownOptionsAreReportedToTheCore) {
  Options({{"route_timout", "5"}, {"cache_size", "lots"}, {"route_timeout", "10"}});
  Open();
  LONGS_EQUAL(2, core.warnings.size());
  STRCMP_CONTAINS("opts.cfg:2: unknown option 'route_timout'", core.warnings[0].c_str());
  STRCMP_CONTAINS("opts.cfg:3: bad value for 'cache_size'", core.warnings[1].c_str());
}
