// The address watch (core/addr_watch/): the rtnetlink codec on messages
// recorded from a Linux 6.x kernel (ip addr add/del on a veth interface),
// the sysfs interface facts, and AddrWatcher with the fake netlink socket
// and a recording sink: IPoIB addresses added and removed, others filtered
// out, bad messages counted, lost events followed by a re-read.
#include <arpa/inet.h>
#include <linux/rtnetlink.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "common/base/event_loop.h"
#include "core/addr_watch/addr_watcher.h"
#include "core/addr_watch/link_info.h"
#include "core/addr_watch/rtnl_addr_codec.h"
#include "test/support/check_ok.h"
#include "test/support/temp_dir.h"
#include "test/unit/fake_netlink.h"
#include "test/unit/netlink_loop_fixture.h"

// Last: its memory-leak macros redefine new.
#include <CppUTest/TestHarness.h>

using namespace ssa;

namespace {

std::vector<uint8_t> Hex(const char* hex) {
  std::vector<uint8_t> out;
  for (size_t i = 0; hex[i] && hex[i + 1]; i += 2) {
    char byte[3] = {hex[i], hex[i + 1], 0};
    out.push_back(static_cast<uint8_t>(strtoul(byte, nullptr, 16)));
  }
  return out;
}

// Recorded: RTM_NEWADDR / RTM_DELADDR for 192.0.2.77/24 and
// 2001:db8::77/64 on interface 10 ("ssarec0").
const char kNew4[] =
    "5000000014000000bcfe066b14150000021880000a00000008000100c000024d08000200c000024d0c00030073"
    "73617265633000080008008000000014000600ffffffffffffffff46350f0046350f00";
const char kNew6[] =
    "480000001400000000000000000000000a4082000a0000001400010020010db8000000000000000000000077"
    "14000600ffffffffffffffff46350f0046350f000800080082000000";
const char kDel4[] =
    "5000000015000000bcfe066b16150000021880000a00000008000100c000024d08000200c000024d0c00030073"
    "73617265633000080008008000000014000600ffffffffffffffff46350f0046350f00";
const char kDel6[] =
    "480000001500000000000000000000000a4082000a0000001400010020010db8000000000000000000000077"
    "14000600ffffffffffffffff46350f0046350f000800080082000000";

AddrDecode Decode(const std::vector<uint8_t>& bytes, AddrEvent* ev, std::string* why) {
  NlMessageReader r(bytes.data(), bytes.size());
  NlMessage m;
  CHECK_TRUE(r.Next(&m));
  return DecodeAddrMessage(m, ev, why);
}

AddrEvent Event(bool added, int ifindex, const char* ip) {
  AddrEvent e;
  e.added = added;
  e.ifindex = ifindex;
  e.address.size = sizeof(e.address);
  if (inet_pton(AF_INET, ip, e.address.data) == 1) {
    e.family = AF_INET;
    e.address.type = SSA_ADDR_IP;
    e.prefix_len = 24;
  } else {
    CHECK_EQUAL(1, inet_pton(AF_INET6, ip, e.address.data));
    e.family = AF_INET6;
    e.address.type = SSA_ADDR_IP6;
    e.prefix_len = 64;
  }
  e.text = ip;
  return e;
}

class RecordingSink : public IpoibAddressSink {
 public:
  std::vector<IpoibAddress> held;
  int rereads = 0;
  std::vector<IpoibAddress> reread_result;
  bool AddIpoib(const IpoibAddress& a, int* endpoints) override {
    for (const auto& h : held)
      if (h.ifindex == a.ifindex && h.text == a.text) return false;
    held.push_back(a);
    *endpoints = 1;
    return true;
  }
  bool RemoveIpoib(int ifindex, const ssa_address& addr, int* endpoints) override {
    for (auto it = held.begin(); it != held.end(); ++it)
      if (it->ifindex == ifindex && it->address.type == addr.type &&
          std::memcmp(it->address.data, addr.data, 16) == 0) {
        held.erase(it);
        *endpoints = 1;
        return true;
      }
    return false;
  }
  Status RereadIpoib(int* added, int* removed) override {
    ++rereads;
    *removed = static_cast<int>(held.size());
    *added = static_cast<int>(reread_result.size());
    held = reread_result;
    return Status::Ok();
  }
};

}  // namespace

TEST_GROUP(RtnlAddrCodec){};

TEST(RtnlAddrCodec, RecordedKernelMessages) {
  AddrEvent ev;
  std::string why;
  CHECK(Decode(Hex(kNew4), &ev, &why) == AddrDecode::kEvent);
  CHECK_TRUE(ev.added);
  LONGS_EQUAL(10, ev.ifindex);
  LONGS_EQUAL(SSA_ADDR_IP, ev.address.type);
  STRCMP_EQUAL("192.0.2.77", ev.text.c_str());
  STRCMP_EQUAL("ssarec0", ev.label.c_str());
  LONGS_EQUAL(24, ev.prefix_len);

  CHECK(Decode(Hex(kNew6), &ev, &why) == AddrDecode::kEvent);
  CHECK_TRUE(ev.added);
  LONGS_EQUAL(SSA_ADDR_IP6, ev.address.type);
  STRCMP_EQUAL("2001:db8::77", ev.text.c_str());

  CHECK(Decode(Hex(kDel4), &ev, &why) == AddrDecode::kEvent);
  CHECK_FALSE(ev.added);
  STRCMP_EQUAL("192.0.2.77", ev.text.c_str());
  CHECK(Decode(Hex(kDel6), &ev, &why) == AddrDecode::kEvent);
  CHECK_FALSE(ev.added);
  STRCMP_EQUAL("2001:db8::77", ev.text.c_str());
}

TEST(RtnlAddrCodec, EncoderMatchesTheKernelsLayout) {
  AddrEvent e = Event(true, 10, "2001:db8::77");
  std::vector<uint8_t> bytes = EncodeAddrMessage(e);
  AddrEvent back;
  std::string why;
  CHECK(Decode(bytes, &back, &why) == AddrDecode::kEvent);
  STRCMP_EQUAL("2001:db8::77", back.text.c_str());
  LONGS_EQUAL(10, back.ifindex);
  // The recorded message's first attribute is the same IFA_ADDRESS.
  std::vector<uint8_t> rec = Hex(kNew6);
  MEMCMP_EQUAL(rec.data() + 24, bytes.data() + 24, 20);
}

TEST(RtnlAddrCodec, MalformedAndForeignMessages) {
  AddrEvent ev;
  std::string why;
  std::vector<uint8_t> bytes = Hex(kNew4);
  bytes[24] = 5;  // IFA_ADDRESS of 1 byte
  CHECK(Decode(bytes, &ev, &why) == AddrDecode::kError);
  CHECK_FALSE(why.empty());

  bytes = Hex(kNew4);
  bytes[20 + 4 + 0] = 0xff;  // first attribute longer than the message
  bytes[20 + 4 + 1] = 0x00;
  CHECK(Decode(bytes, &ev, &why) == AddrDecode::kError);

  bytes = Hex(kNew4);
  bytes.resize(20);  // header and 4 bytes of ifaddrmsg
  bytes[0] = 20;
  CHECK(Decode(bytes, &ev, &why) == AddrDecode::kError);

  bytes = Hex(kNew4);
  bytes[16] = 17;  // AF_PACKET: not ours, not an error
  CHECK(Decode(bytes, &ev, &why) == AddrDecode::kIgnored);
  bytes = Hex(kNew4);
  bytes[4] = RTM_NEWLINK;
  CHECK(Decode(bytes, &ev, &why) == AddrDecode::kIgnored);
}

TEST_GROUP(LinkInfo) {
  ssa::test::TempDir tmp{"ssa-sysfs-"};
  const std::string& dir = tmp.path();
  void setup() override { CHECK_OK(tmp.status()); }
  void teardown() override { CHECK_OK(tmp.Remove()); }
  void Iface(const std::string& name, int index, int type, const std::string& addr,
             const std::string& pkey) {
    std::string base = dir + "/" + name;
    mkdir(base.c_str(), 0755);
    std::ofstream(base + "/ifindex") << index << "\n";
    std::ofstream(base + "/type") << type << "\n";
    std::ofstream(base + "/address") << addr << "\n";
    if (!pkey.empty()) std::ofstream(base + "/pkey") << pkey << "\n";
  }
};

TEST(LinkInfo, IpoibInterfacesGiveTheirPortAndPkey) {
  const char* hw = "80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:00:12:31";
  Iface("ib0", 4, 32, hw, "0xffff");
  Iface("ib0.8001", 7, 32, hw, "0x8001");
  Iface("ib1.8002", 8, 32, hw, "");  // no pkey file: the name tells
  Iface("eth0", 2, 1, "02:fc:00:00:00:01", "");
  SysfsLinkInfo links(dir);
  LinkInfo l;
  CHECK_TRUE(links.Lookup(7, &l));
  STRCMP_EQUAL("ib0.8001", l.ifname.c_str());
  CHECK_TRUE(l.ipoib);
  LONGS_EQUAL(0x8001, l.pkey);
  CHECK(l.port_guid == 0x0002c90300001231ULL);
  CHECK(l.gid_prefix == 0xfe80000000000000ULL);
  CHECK_TRUE(links.Lookup(4, &l));
  LONGS_EQUAL(0xffff, l.pkey);
  CHECK_TRUE(links.Lookup(8, &l));
  LONGS_EQUAL(0x8002, l.pkey);
  CHECK_TRUE(links.Lookup(2, &l));
  CHECK_FALSE(l.ipoib);
  LONGS_EQUAL(1, l.type);
  CHECK_FALSE(links.Lookup(99, &l));
}

TEST(LinkInfo, BadHardwareAddressesAreNotIpoib) {
  LinkInfo l;
  l.ifname = "ib0";
  ParseLinkFiles("32", "80:00:02:08:fe:80", "0xffff", &l);  // too short for a GID
  CHECK_FALSE(l.ipoib);
  ParseLinkFiles("32", "zz:00", "", &l);
  CHECK_FALSE(l.ipoib);
  std::vector<uint8_t> b;
  CHECK_FALSE(ParseHardwareAddress("01:02:", &b));
  CHECK_FALSE(ParseHardwareAddress("1:2", &b));
  CHECK_TRUE(ParseHardwareAddress("0a:Ff", &b));
  LONGS_EQUAL(2, b.size());
  LONGS_EQUAL(0xff, b[1]);
  LONGS_EQUAL(0, PkeyFromInterfaceName("ib0"));
  LONGS_EQUAL(0, PkeyFromInterfaceName("ib0.12345"));
  LONGS_EQUAL(0x7fff, PkeyFromInterfaceName("ib0.7fff"));
}

TEST_GROUP_BASE(AddrWatcher, test::NetlinkLoopTest) {
  testing::FakeLinks links;
  RecordingSink sink;
  std::unique_ptr<AddrWatcher> watcher;

  void setup() override {
    NetlinkLoopTest::setup();
    links.AddIpoib(4, "ib0", 0x0002c90300001231ULL, 0xffff);
    links.AddIpoib(7, "ib0.8001", 0x0002c90300001231ULL, 0x8001);
    links.AddOther(2, "eth0", 1);
    watcher = std::make_unique<AddrWatcher>(&loop, &log, &links, &sink);
    CHECK_TRUE(watcher->Start(netlink.Opener()));
    TakeSocket(NETLINK_ROUTE);
    LONGS_EQUAL(RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR, sock->groups);
  }
  // Runs the loop until the watcher has read everything queued (the
  // fake's fd is readable until then).
  void Run() {
    CHECK_TRUE(loop.RunUntil([&] { return !Readable(); }, std::chrono::seconds(5)));
  }
  bool Readable() {
    pollfd p = {sock->fd(), POLLIN, 0};
    return poll(&p, 1, 0) > 0;
  }
};

TEST(AddrWatcher, IpoibAddressesComeAndGoOthersAreFiltered) {
  sock->Inject(EncodeAddrMessage(Event(true, 7, "10.1.0.5")));
  sock->Inject(EncodeAddrMessage(Event(true, 2, "192.0.2.9")));  // eth0
  sock->Inject(EncodeAddrMessage(Event(true, 4, "fd00::5")));
  sock->Inject(EncodeAddrMessage(Event(true, 7, "10.1.0.5")));   // repeat
  sock->Inject(EncodeAddrMessage(Event(true, 55, "10.9.9.9")));  // interface gone
  Run();
  LONGS_EQUAL(2, sink.held.size());
  STRCMP_EQUAL("ib0.8001", sink.held[0].ifname.c_str());
  LONGS_EQUAL(0x8001, sink.held[0].pkey);
  CHECK(sink.held[0].port_guid == 0x0002c90300001231ULL);
  LONGS_EQUAL(SSA_ADDR_IP6, sink.held[1].address.type);
  LONGS_EQUAL(2, watcher->stats().added);
  LONGS_EQUAL(1, watcher->stats().not_ipoib);
  LONGS_EQUAL(1, watcher->stats().unchanged);
  LONGS_EQUAL(1, watcher->stats().unknown_link);

  // Deleted, even after the interface went away.
  links.Remove(7);
  sock->Inject(EncodeAddrMessage(Event(false, 7, "10.1.0.5")));
  sock->Inject(EncodeAddrMessage(Event(false, 2, "192.0.2.9")));  // never held
  Run();
  LONGS_EQUAL(1, sink.held.size());
  LONGS_EQUAL(1, watcher->stats().removed);
  LONGS_EQUAL(2, watcher->stats().unchanged);
  CHECK(lines.str().find("address 10.1.0.5 added to IPoIB ib0.8001") != std::string::npos);
  CHECK(lines.str().find("(1 added, 0 removed since start)") != std::string::npos);
  CHECK(lines.str().find("(2 added, 1 removed since start)") != std::string::npos);
}

TEST(AddrWatcher, RecordedMessagesOfANonIpoibInterfaceAreFiltered) {
  links.AddOther(10, "ssarec0", 1);
  for (const char* hex : {kNew4, kNew6, kDel4, kDel6}) sock->Inject(Hex(hex));
  Run();
  LONGS_EQUAL(0, sink.held.size());
  LONGS_EQUAL(2, watcher->stats().not_ipoib);
  LONGS_EQUAL(2, watcher->stats().unchanged);  // deletes of what was never added
}

TEST(AddrWatcher, BadMessagesAreCountedAndLostEventsReread) {
  std::vector<uint8_t> bad = Hex(kNew4);
  bad[24] = 5;
  sock->Inject(bad);
  sock->Inject({0x10, 0, 0});  // broken framing
  sock->Inject(EncodeAddrMessage(Event(true, 4, "10.1.0.1")), /*from_kernel=*/false);
  sock->InjectError(ENOBUFS);
  IpoibAddress fresh;
  fresh.ifname = "ib0";
  fresh.ifindex = 4;
  fresh.text = "10.1.0.7";
  sink.reread_result = {fresh};
  Run();
  LONGS_EQUAL(2, watcher->stats().malformed);
  LONGS_EQUAL(1, watcher->stats().ignored);
  LONGS_EQUAL(1, watcher->stats().overflows);
  LONGS_EQUAL(1, sink.rereads);
  LONGS_EQUAL(1, watcher->stats().added);
  LONGS_EQUAL(1, sink.held.size());
  // Still serving afterwards.
  sock->Inject(EncodeAddrMessage(Event(true, 4, "10.1.0.8")));
  Run();
  LONGS_EQUAL(2, sink.held.size());
}

TEST(AddrWatcher, NoRtnetlinkIsReportedAndNotFatal) {
  testing::FakeNetlink none;
  none.Refuse(NETLINK_ROUTE, EACCES);
  AddrWatcher w(&loop, &log, &links, &sink);
  CHECK_FALSE(w.Start(none.Opener()));
  CHECK(lines.str().find("IP address changes are not followed") != std::string::npos);
}

// The real thing where the machine allows it (root, dummy or veth
// support): a real rtnetlink socket and sysfs, addresses added to and
// deleted from such an interface reach the watcher and are filtered out as
// not IPoIB. Where
// interfaces cannot be created, says so and checks nothing more.
TEST_GROUP(AddrWatcherLive) {
  std::string name;
  bool created = false;
  void teardown() override {
    if (created) CHECK_EQUAL(0, system(("ip link del " + name + " 2>/dev/null").c_str()));
  }
};

TEST(AddrWatcherLive, DummyInterfaceAddressesAreFilteredAsNotIpoib) {
  EventLoop loop;
  CHECK_OK(loop.Init());
  Logger log;
  log.set_sink([](LogLevel, const std::string&) {});
  SysfsLinkInfo links;
  RecordingSink sink;
  AddrWatcher watcher(&loop, &log, &links, &sink);
  if (!watcher.Start(OpenNetlinkSocket)) {
    fprintf(stderr, "\n  (no rtnetlink here: live address watch not tested)\n");
    return;
  }
  name = "ssaw" + std::to_string(getpid() % 100000);
  std::string peer = name + "p";
  // A dummy interface where the kernel has the module, else a veth pair.
  if (system(("ip link add " + name + " type dummy 2>/dev/null").c_str()) != 0 &&
      system(("ip link add " + name + " type veth peer name " + peer + " 2>/dev/null").c_str()) !=
          0) {
    fprintf(stderr, "\n  (cannot create a veth interface: live address watch not tested)\n");
    return;
  }
  created = true;
  int octet = 1 + getpid() % 250;
  std::string v4 = "192.0.2." + std::to_string(octet), v6 = "2001:db8::" + std::to_string(octet);
  CHECK_EQUAL(0, system(("ip addr add " + v4 + "/32 dev " + name).c_str()));
  CHECK_EQUAL(0, system(("ip -6 addr add " + v6 + "/128 dev " + name + " nodad").c_str()));
  CHECK_TRUE(
      loop.RunUntil([&] { return watcher.stats().not_ipoib >= 2; }, std::chrono::seconds(5)));
  CHECK_EQUAL(0, system(("ip addr del " + v4 + "/32 dev " + name).c_str()));
  uint64_t before = watcher.stats().unchanged;
  CHECK_TRUE(
      loop.RunUntil([&] { return watcher.stats().unchanged > before; }, std::chrono::seconds(5)));
  LONGS_EQUAL(0, sink.held.size());
  LONGS_EQUAL(0, watcher.stats().added);
  LONGS_EQUAL(0, watcher.stats().malformed);
}
