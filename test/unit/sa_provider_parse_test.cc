// sa_provider_parse_test.cc: the sa provider's text inputs: the acm_hosts
// address data, OpenSM's opensm_full_v1 path-record dump, and its options
// (upstream names, bad values, unknown keys in INI vs. upstream files).
#include <arpa/inet.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include <ibacm_ssa/provider.h>
#include "common/base/big_endian.h"
#include "common/base/option_set.h"
#include "providers/sa/sa_options.h"
#include "providers/shared/address_map.h"
#include "providers/shared/provider_options.h"
#include "providers/shared/route_preload.h"

// Last: CppUTest redefines new for leak checking.
#include <CppUTest/TestHarness.h>

using ssa::OptionNote;
using ssa::OptionSet;
using ssa::provider_shared::AddressFileIssue;
using ssa::provider_shared::AddressKey;
using ssa::provider_shared::AddressMap;
using ssa::provider_shared::ConfigFormat;
using ssa::provider_shared::Gid;
using ssa::provider_shared::PreloadResult;
using ssa::provider_shared::RawOption;
using ssa::sa::SaOptions;

namespace {

std::string NameKey(const char* name) {
  return AddressKey(SSA_ADDR_NAME, reinterpret_cast<const uint8_t*>(name), strlen(name));
}

std::string Ip4Key(const char* text) {
  uint8_t b[4];
  inet_pton(AF_INET, text, b);
  return AddressKey(SSA_ADDR_IP, b, 4);
}

std::string Ip6Key(const char* text) {
  uint8_t b[16];
  inet_pton(AF_INET6, text, b);
  return AddressKey(SSA_ADDR_IP6, b, 16);
}

std::string GidText(const Gid& g) {
  char buf[INET6_ADDRSTRLEN];
  inet_ntop(AF_INET6, g.raw, buf, sizeof(buf));
  return buf;
}

}  // namespace

// --- acm_hosts ---------------------------------------------------------------

TEST_GROUP(SaProviderAddressMap){};

TEST(SaProviderAddressMap, ReadsNamesAndIpAddressesOfTheAcmHostsFormat) {
  AddressMap m;
  std::vector<AddressFileIssue> issues;
  size_t n = m.LoadHostsText(
      "# upstream ibacm_hosts.data\n"
      "192.168.0.1     fe80::2:c903:0:1f11\n"
      "fe80::1:2       fe80::2:c903:0:1f12   # an IPv6 address\n"
      "Node3\tfe80::2:c903:0:1f13\n"
      "\n",
      &issues);
  LONGS_EQUAL(3, n);
  LONGS_EQUAL(0, issues.size());
  Gid g;
  CHECK(m.Lookup(Ip4Key("192.168.0.1"), nullptr, &g) == AddressMap::Found::kFile);
  STRCMP_EQUAL("fe80::2:c903:0:1f11", GidText(g).c_str());
  CHECK(m.Lookup(Ip6Key("fe80::1:2"), nullptr, &g) == AddressMap::Found::kFile);
  STRCMP_EQUAL("fe80::2:c903:0:1f12", GidText(g).c_str());
  // Host names compare without regard to case, as the core compares them.
  CHECK(m.Lookup(NameKey("node3"), nullptr, &g) == AddressMap::Found::kFile);
  STRCMP_EQUAL("fe80::2:c903:0:1f13", GidText(g).c_str());
  CHECK(m.Lookup(NameKey("NODE3"), nullptr, &g) == AddressMap::Found::kFile);
  CHECK(m.Lookup(NameKey("node4"), nullptr, &g) == AddressMap::Found::kNone);
  CHECK(m.Lookup(Ip4Key("192.168.0.2"), nullptr, &g) == AddressMap::Found::kNone);
}

TEST(SaProviderAddressMap, ReportsBadLinesWithTheirNumbersAndKeepsTheRest) {
  AddressMap m;
  std::vector<AddressFileIssue> issues;
  std::string long_name(64, 'x');
  size_t n = m.LoadHostsText(
      "good fe80::1\n"
      "nogid\n"
      "bad fe80::zz\n" +
          long_name +
          " fe80::2\n"
          "extra fe80::3 junk\n",
      &issues);
  LONGS_EQUAL(2, n);  // "good" and "extra" (whose trailing text is reported)
  LONGS_EQUAL(4, issues.size());
  LONGS_EQUAL(2, issues[0].line);
  STRCMP_CONTAINS("no GID", issues[0].message.c_str());
  LONGS_EQUAL(3, issues[1].line);
  STRCMP_CONTAINS("not a GID", issues[1].message.c_str());
  LONGS_EQUAL(4, issues[2].line);
  STRCMP_CONTAINS("longer than 63", issues[2].message.c_str());
  LONGS_EQUAL(5, issues[3].line);
  CHECK(m.Lookup(NameKey("extra"), nullptr, nullptr) == AddressMap::Found::kFile);
}

TEST(SaProviderAddressMap, LaterLinesReplaceEarlierOnesAndLocalAddressesWin) {
  AddressMap m;
  m.LoadHostsText("node1 fe80::1\nnode1 fe80::2\n", nullptr);
  Gid g;
  m.Lookup(NameKey("node1"), nullptr, &g);
  STRCMP_EQUAL("fe80::2", GidText(g).c_str());
  int owner_a = 0, owner_b = 0;
  m.AddLocal(NameKey("node1"), &owner_a);
  m.AddLocal(NameKey("node1"), &owner_b);
  const void* owner = nullptr;
  CHECK(m.Lookup(NameKey("node1"), &owner, &g) == AddressMap::Found::kLocal);
  POINTERS_EQUAL(&owner_a, owner);
  m.RemoveLocal(&owner_a);
  CHECK(m.Lookup(NameKey("node1"), &owner, &g) == AddressMap::Found::kLocal);
  POINTERS_EQUAL(&owner_b, owner);
  m.RemoveLocal(&owner_b);
  CHECK(m.Lookup(NameKey("node1"), &owner, &g) == AddressMap::Found::kFile);
  LONGS_EQUAL(0, m.local_entries());
}

TEST(SaProviderAddressMap, AddressKeysRejectWhatIsNotANameOrIp) {
  uint8_t lid[2] = {0, 5};
  CHECK(AddressKey(SSA_ADDR_LID, lid, 2).empty());
  CHECK(AddressKey(SSA_ADDR_GID, lid, 2).empty());
  uint8_t empty[64] = {};
  CHECK(AddressKey(SSA_ADDR_NAME, empty, sizeof(empty)).empty());
  CHECK(AddressKey(SSA_ADDR_IP6, lid, 2).empty());  // too short
}

TEST(SaProviderAddressMap, AMissingFileIsAnError) {
  AddressMap m;
  ssa::Status st = m.LoadHostsFile("/nonexistent/ibacm_hosts.data", nullptr, nullptr);
  CHECK_FALSE(st.ok());
  STRCMP_CONTAINS("/nonexistent/ibacm_hosts.data", st.message().c_str());
}

// --- opensm_full_v1 ------------------------------------------------------------

namespace {

// As OpenSM's dump_pr plugin writes it (opensm-path-records.dump).
const char kDump[] =
    "Channel Adapter 0x0000000000100003, base LID 4, \"Hca2\", port 1\n"
    "# LID  : SL : MTU : RATE\n"
    "0x0001 : 0  : 4   : 3   \n"
    "0x0002 : 0  : 4   : 3   \n"
    "0x0004 : 0  : 4   : 3   \n"
    "0x0006 : UNREACHABLE\n"
    "0x0009 : 1  : 3   : 6   \n"
    "\n"
    "Switch 0x0000000000200000, base LID 2, \"Switch2\", port 0\n"
    "# LID  : SL : MTU : RATE\n"
    "0x0001 : 0  : 4   : 3   \n"
    "this line is not parsed: it is not our block\n"
    "\n"
    "Channel Adapter 0x0000000000100001, base LID 1, \"Hca1\", port 1\n"
    "# LID  : SL : MTU : RATE\n"
    "0x0004 : 0  : 4   : 3   \n"
    "\n";

PreloadResult Parse(const std::string& text, uint64_t guid, uint16_t lid) {
  std::istringstream in(text);
  PreloadResult r;
  ssa::provider_shared::ParseOpensmFullV1(in, guid, lid, &r);
  return r;
}

}  // namespace

TEST_GROUP(SaProviderPreload){};

TEST(SaProviderPreload, KeepsTheBlockOfTheGivenPortAndMapsLidsToGuids) {
  PreloadResult r = Parse(kDump, 0x100003, 4);
  CHECK_TRUE(r.found_source);
  LONGS_EQUAL(0, r.issues.size());
  LONGS_EQUAL(1, r.unreachable);
  LONGS_EQUAL(4, r.routes.size());
  LONGS_EQUAL(1, r.routes[0].dlid);
  CHECK(r.routes[0].dest_guid == 0x100001);  // from Hca1's header, after ours
  LONGS_EQUAL(4, r.routes[0].mtu);
  LONGS_EQUAL(3, r.routes[0].rate);
  CHECK(r.routes[1].dest_guid == 0x200000);  // a switch's port 0
  CHECK(r.routes[2].dest_guid == 0x100003);  // ourselves
  LONGS_EQUAL(9, r.routes[3].dlid);
  LONGS_EQUAL(1, r.routes[3].sl);
  LONGS_EQUAL(6, r.routes[3].rate);
  CHECK(r.routes[3].dest_guid == 0);  // no header names LID 9
}

TEST(SaProviderPreload, NeedsBothTheGuidAndTheBaseLidToMatch) {
  CHECK_FALSE(Parse(kDump, 0x100003, 5).found_source);  // our LID moved
  CHECK_FALSE(Parse(kDump, 0x100099, 4).found_source);
  PreloadResult r = Parse(kDump, 0x100001, 1);
  CHECK_TRUE(r.found_source);
  LONGS_EQUAL(1, r.routes.size());
  CHECK(r.routes[0].dest_guid == 0x100003);
}

TEST(SaProviderPreload, ReportsMalformedLinesOfItsOwnBlock) {
  PreloadResult r = Parse(
      "Channel Adapter 0x0000000000000010, base LID 3, \"x\", port 1\n"
      "0x0001 : 0 : 4 : 3\n"
      "0x0000 : 0 : 4 : 3\n"   // LID 0
      "0xc000 : 0 : 4 : 3\n"   // multicast
      "0x0002 : 16 : 4 : 3\n"  // SL
      "0x0003 : 0 : 6 : 3\n"   // MTU code
      "0x0004 : 0 : 4\n"       // short
      "0x0005 : SOMETIMES\n"
      "Switch bogus header\n"
      "Router 0x0000000000000020, base LID x1\n",
      0x10, 3);
  CHECK_TRUE(r.found_source);
  LONGS_EQUAL(1, r.routes.size());
  LONGS_EQUAL(8, r.issues.size());
  LONGS_EQUAL(3, r.issues[0].line);
  STRCMP_CONTAINS("destination LID", r.issues[0].message.c_str());
  STRCMP_CONTAINS("SL", r.issues[2].message.c_str());
  STRCMP_CONTAINS("MTU", r.issues[3].message.c_str());
  STRCMP_CONTAINS("port GUID", r.issues[6].message.c_str());
  STRCMP_CONTAINS("base LID", r.issues[7].message.c_str());
}

TEST(SaProviderPreload, RecordsLookLikeTheSaAnswers) {
  ssa::provider_shared::PreloadedRoute route;
  route.dlid = 1;
  route.sl = 2;
  route.mtu = 4;
  route.rate = 3;
  uint8_t sgid[16] = {0xfe, 0x80}, dgid[16] = {0xfe, 0x80};
  sgid[15] = 3;
  dgid[15] = 1;
  ibv_path_record p = ssa::provider_shared::PreloadedPathRecord(route, sgid, dgid, 4, 0xffff);
  LONGS_EQUAL(1, ssa::FromBe16(p.dlid));
  LONGS_EQUAL(4, ssa::FromBe16(p.slid));
  MEMCMP_EQUAL(sgid, p.sgid.raw, 16);
  MEMCMP_EQUAL(dgid, p.dgid.raw, 16);
  LONGS_EQUAL(0xffff, ssa::FromBe16(p.pkey));
  LONGS_EQUAL(2, ssa::FromBe16(p.qosclass_sl));
  LONGS_EQUAL(0x84, p.mtu);             // selector 2 (exactly), 2048
  LONGS_EQUAL(0x83, p.rate);            // exactly 10 Gb/s
  LONGS_EQUAL(0x92, p.packetlifetime);  // exactly 18
  LONGS_EQUAL(0x80, p.reversible_numpath);
  route.dlid = 4;  // to itself
  p = ssa::provider_shared::PreloadedPathRecord(route, sgid, sgid, 4, 0xffff);
  LONGS_EQUAL(0x80, p.packetlifetime);
}

// --- options -------------------------------------------------------------------

TEST_GROUP(SaProviderOptions) {
  SaOptions o;
  // The sa provider's read (providers/shared/provider_options.h).
  std::vector<OptionNote> Read(const std::vector<RawOption>& entries,
                               ConfigFormat format = ConfigFormat::kIni) {
    OptionSet set;
    o.Bind(&set);
    return ssa::provider_shared::ReadOptions(entries, format, "sa", set);
  }
};

TEST(SaProviderOptions, DefaultsAreUpstreams) {
  CHECK(o.addr_preload == SaOptions::AddrPreload::kNone);
  CHECK(o.route_preload == SaOptions::RoutePreload::kNone);
  STRCMP_CONTAINS("/ibacm_hosts.data", o.addr_data_file.c_str());
  STRCMP_CONTAINS("/ibacm_route.data", o.route_data_file.c_str());
  LONGS_EQUAL(-1, o.route_timeout_min);
  CHECK(o.RouteLifetimeMs() == UINT64_MAX);
  LONGS_EQUAL(65536, o.cache_size);
  LONGS_EQUAL(5000, o.negative_timeout_ms);
}

TEST(SaProviderOptions, ReadsEveryOption) {
  std::vector<OptionNote> notes = Read({{"addr_preload", "acm_hosts", "f", 2},
                                        {"addr_data_file", "/x/hosts", "f", 3},
                                        {"route_preload", "OpenSM_Full_V1", "f", 4},
                                        {"route_data_file", "/x/route", "f", 5},
                                        {"route_timeout", "30", "f", 6},
                                        {"cache_size", "100", "f", 7},
                                        {"negative_timeout_ms", "250", "f", 8}});
  LONGS_EQUAL(0, notes.size());
  CHECK(o.addr_preload == SaOptions::AddrPreload::kAcmHosts);
  STRCMP_EQUAL("/x/hosts", o.addr_data_file.c_str());
  // Enumerations match without regard to case, as upstream's strcasecmp.
  CHECK(o.route_preload == SaOptions::RoutePreload::kOpensmFullV1);
  STRCMP_EQUAL("/x/route", o.route_data_file.c_str());
  LONGS_EQUAL(30, o.route_timeout_min);
  CHECK(o.RouteLifetimeMs() == 30ULL * 60 * 1000);
  LONGS_EQUAL(100, o.cache_size);
  LONGS_EQUAL(250, o.negative_timeout_ms);
}

TEST(SaProviderOptions, BadValuesAreErrorsAndLeaveTheOptionAlone) {
  std::vector<OptionNote> notes = Read({{"route_timeout", "-2", "f", 1},
                                        {"cache_size", "many", "f", 2},
                                        {"addr_preload", "dns", "f", 3},
                                        {"route_preload", "opensm_full_v2", "f", 4},
                                        {"negative_timeout_ms", "99999999", "f", 5},
                                        {"addr_data_file", "", "f", 6}});
  LONGS_EQUAL(6, notes.size());
  for (const auto& n : notes) CHECK_TRUE(n.error());
  STRCMP_EQUAL("f:1: bad value for 'route_timeout': '-2' is out of range [-1, 5270400]",
               notes[0].ToString().c_str());
  // The first name of each value: not upstream's "no" for "none".
  STRCMP_CONTAINS("'dns' is not one of none|acm_hosts", notes[2].text.c_str());
  LONGS_EQUAL(-1, o.route_timeout_min);
  LONGS_EQUAL(65536, o.cache_size);
  CHECK(o.addr_preload == SaOptions::AddrPreload::kNone);
}

TEST(SaProviderOptions, UnknownKeysAreErrorsInOurSectionOnly) {
  // INI: the provider sees only [sa]; anything it does not read is a
  // mistake, and a key another section reads is named as misplaced.
  std::vector<OptionNote> notes = Read({{"route_timout", "5", "ini.cfg", 4},
                                        {"timeout", "5", "ini.cfg", 5},
                                        {"fallback", "sa", "ini.cfg", 6}});
  LONGS_EQUAL(3, notes.size());
  for (const auto& n : notes) CHECK_TRUE(n.error());
  STRCMP_EQUAL("ini.cfg:4: unknown option 'route_timout' in [sa]; did you mean 'route_timeout'?",
               notes[0].ToString().c_str());
  STRCMP_EQUAL("ini.cfg:5: option 'timeout' belongs in [core] or [acmp], not [sa]",
               notes[1].ToString().c_str());
  STRCMP_CONTAINS("belongs in [ssa], not [sa]", notes[2].text.c_str());

  // Upstream format: every provider sees every line; others' keys are quiet.
  notes = Read({{"log_level", "0", "up.cfg", 1},
                {"route_prot", "sa", "up.cfg", 2},
                {"route_timeout", "7", "up.cfg", 3},
                {"bogus", "1", "up.cfg", 4}},
               ConfigFormat::kUpstream);
  LONGS_EQUAL(7, o.route_timeout_min);
  LONGS_EQUAL(3, notes.size());
  for (const auto& n : notes) CHECK_FALSE(n.error());
  STRCMP_EQUAL("up.cfg:1: option 'log_level' is not the sa provider's",
               notes[0].ToString().c_str());
}

TEST(SaProviderOptions, TheCoreNamesTheFormatAnOlderCoreLeavesItToTheKeys) {
  ssa_core_ops ops = {};
  ops.size = sizeof(ops);
  ops.config_format = [](ssa_core_t*) { return static_cast<int>(SSA_CONFIG_UPSTREAM); };
  std::vector<RawOption> ours = {{"route_timeout", "5", "f", 1}, {"bogus", "1", "f", 2}};
  CHECK(ssa::provider_shared::FormatOf(&ops, nullptr, ours, "sa") == ConfigFormat::kUpstream);
  ops.config_format = [](ssa_core_t*) { return static_cast<int>(SSA_CONFIG_INI); };
  std::vector<RawOption> others = {{"log_level", "0", "f", 1}};
  CHECK(ssa::provider_shared::FormatOf(&ops, nullptr, others, "sa") == ConfigFormat::kIni);

  // A 1.1 core: a key only other sections read means the file is shared.
  ops.size = SSA_CORE_OPS_V1_0_SIZE;
  CHECK(ssa::provider_shared::FormatOf(&ops, nullptr, others, "sa") == ConfigFormat::kUpstream);
  CHECK(ssa::provider_shared::FormatOf(&ops, nullptr, ours, "sa") == ConfigFormat::kIni);
  // The ssa provider's section holds the sa keys as well.
  std::vector<RawOption> ssa_section = {{"fallback", "sa", "f", 1}, {"cache_size", "9", "f", 2}};
  CHECK(ssa::provider_shared::FormatOf(&ops, nullptr, ssa_section, "ssa") == ConfigFormat::kIni);
}
