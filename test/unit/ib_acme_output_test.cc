// ib_acme_output_test.cc: upstream ib_acme's output formats, and the -A
// address lines.
#include <arpa/inet.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "common/base/big_endian.h"
#include "common/mad/umad_ports.h"
#include "util/ib_acme/acme_output.h"
#include "util/ib_acme/acme_usage.h"
#include "util/ib_acme/address_file.h"

// Last: CppUTest redefines new for leak checking.
#include <CppUTest/TestHarness.h>

using namespace ssa::acme;

namespace {

ibv_path_record SamplePath() {
  ibv_path_record p;
  memset(&p, 0, sizeof(p));
  inet_pton(AF_INET6, "fe80::20:1", p.dgid.raw);
  inet_pton(AF_INET6, "fe80::10:3", p.sgid.raw);
  p.dlid = ssa::ToBe16(3);
  p.slid = ssa::ToBe16(4);
  p.flowlabel_hoplimit = ssa::ToBe32((0x12345u << 8) | 64);
  p.tclass = 7;
  p.reversible_numpath = 0x81;
  p.pkey = ssa::ToBe16(0xffff);
  p.qosclass_sl = ssa::ToBe16(0x0035);  // QoS class 3, SL 5
  p.mtu = 0x84;                         // selector 2, 2048
  p.rate = 0x87;
  p.packetlifetime = 0x92;
  return p;
}

ssa::UmadPort Port(const char* ca, int num, bool active, std::vector<uint16_t> pkeys = {0xffff}) {
  ssa::UmadPort p;
  p.ca_name = ca;
  p.port_num = num;
  p.state = active ? ssa::kPortActive : ssa::kPortDown;
  p.pkeys = pkeys;
  return p;
}

}  // namespace

TEST_GROUP(IbAcmeOutput){};

TEST(IbAcmeOutput, PathInformationBlock) {
  STRCMP_EQUAL(
      "Path information\n"
      "  dgid: fe80::20:1\n"
      "  sgid: fe80::10:3\n"
      "  dlid: 3\n"
      "  slid: 4\n"
      "  flow label: 0x12345\n"
      "  hop limit: 64\n"
      "  tclass: 7\n"
      "  reversible: 1\n"
      "  pkey: 0xffff\n"
      "  sl: 5\n"
      "  mtu: 4\n"
      "  rate: 7\n"
      "  packet lifetime: 18\n",
      FormatPathInformation(SamplePath()).c_str());
}

TEST(IbAcmeOutput, PerfRowsAndColumns) {
  STRCMP_EQUAL(
      "svc,Error Count,Resolve Count,No Data,Addr Query Count,Addr Cache Count,"
      "Route Query Count,Route Cache Count\n",
      FormatPerfHeader(7).c_str());
  std::vector<uint64_t> c = {0, 12, 1, 0, 0, 3, 9};
  STRCMP_EQUAL("/run/x.sock,0,12,1,0,0,3,9\n", FormatPerfRow("/run/x.sock", c).c_str());
  STRCMP_EQUAL(
      "svc\nError Count : 0\nResolve Count : 12\nNo Data : 1\nAddr Query Count : 0\n"
      "Addr Cache Count : 0\nRoute Query Count : 3\nRoute Cache Count : 9\n",
      FormatPerfColumns("svc", c).c_str());
  // More counters than upstream names: "Unknown", as libibacm says.
  STRCMP_CONTAINS(",Unknown\n", FormatPerfHeader(9).c_str());
}

TEST(IbAcmeOutput, EndpointRows) {
  STRCMP_EQUAL("svc,guid,port,pkey,ep_index,prov,addr_0,addresses\n",
               FormatEndpointHeader().c_str());
  ssa::acm::EpConfig ep;
  ep.dev_guid = 0x100002;
  ep.port_num = 1;
  ep.pkey = 0x8001;
  ep.prov_name = "testprov";
  ep.addrs = {"node2", "10.0.0.2"};
  STRCMP_EQUAL("/s,0x0000000000100002,1,0x8001,3,testprov,node2,10.0.0.2\n",
               FormatEndpointRow("/s", 3, ep).c_str());
  ep.addrs.clear();
  STRCMP_EQUAL("/s,0x0000000000100002,1,0x8001,3,testprov\n",
               FormatEndpointRow("/s", 3, ep).c_str());
}

TEST(IbAcmeOutput, StatusesAndErrnoAsLibibacm) {
  LONGS_EQUAL(0, AcmStatusToErrno(ssa::acm::kStatusSuccess));
  LONGS_EQUAL(EADDRNOTAVAIL, AcmStatusToErrno(ssa::acm::kStatusEDestAddr));
  LONGS_EQUAL(EADDRNOTAVAIL, AcmStatusToErrno(ssa::acm::kStatusESrcAddr));
  LONGS_EQUAL(ENODATA, AcmStatusToErrno(ssa::acm::kStatusENoData));
  LONGS_EQUAL(ETIMEDOUT, AcmStatusToErrno(ssa::acm::kStatusETimedOut));
  LONGS_EQUAL(EINVAL, AcmStatusToErrno(ssa::acm::kStatusEDestType));
  LONGS_EQUAL(EINVAL, AcmStatusToErrno(200));
  STRCMP_EQUAL("return status 0x0\n", FormatReturnStatus(0).c_str());
  STRCMP_EQUAL("return status 0xffffffff\n", FormatReturnStatus(-1).c_str());
  STRCMP_EQUAL("return status 0x2\n", FormatReturnStatus(2).c_str());
}

TEST(IbAcmeOutput, SelectedSourceText) {
  ssa::acm::EpAddr a;
  a.SetName("node2");
  STRCMP_EQUAL("node2", SourceAddressText(a).c_str());
  in_addr v4;
  inet_pton(AF_INET, "10.0.0.2", &v4);
  a.SetIpv4(v4);
  STRCMP_EQUAL("10.0.0.2", SourceAddressText(a).c_str());
}

TEST(IbAcmeOutput, UsageIsUpstreamsWithOurProgramName) {
  std::string u = UpstreamUsage("/usr/bin/ib_acme");
  STRCMP_CONTAINS("usage 1: /usr/bin/ib_acme\nQuery specified ibacm service for data\n", u.c_str());
  STRCMP_CONTAINS("usage 2: /usr/bin/ib_acme\n", u.c_str());
  STRCMP_CONTAINS(
      "                      (default is /etc/rdma)\n   -V               - enable verbose output\n",
      u.c_str());
  STRCMP_CONTAINS("--lid-range", ProviderTestUsage("x").c_str());
}

TEST(IbAcmeOutput, AddressLinesAsUpstreamWrites) {
  STRCMP_EQUAL("node7", ShortHostName("node7.cluster.example").c_str());
  STRCMP_EQUAL("node7", ShortHostName("node7").c_str());
  // The first active port also gets the plain host name.
  std::vector<ssa::UmadPort> ports = {Port("mlx5_0", 1, false), Port("mlx5_0", 2, true),
                                      Port("mlx5_1", 1, true)};
  std::vector<std::string> lines = AddressLines("node7", ports);
  LONGS_EQUAL(4, lines.size());
  STRCMP_EQUAL("node7-1 mlx5_0 1 default", lines[0].c_str());
  STRCMP_EQUAL("node7 mlx5_0 2 default", lines[1].c_str());
  STRCMP_EQUAL("node7-2 mlx5_0 2 default", lines[2].c_str());
  STRCMP_EQUAL("node7-3 mlx5_1 1 default", lines[3].c_str());
  // Switch port 0 is no endpoint; no active port: no plain name.
  lines = AddressLines("h", {Port("sw", 0, true), Port("ib0", 1, false)});
  LONGS_EQUAL(1, lines.size());
  STRCMP_EQUAL("h-1 ib0 1 default", lines[0].c_str());
}

TEST(IbAcmeOutput, AddressFileListsExtraPkeysAsComments) {
  std::string text = AddressFileText("h", {Port("ibsim0", 1, true, {0xffff, 0x8001})});
  STRCMP_CONTAINS("\nh ibsim0 1 default\nh-1 ibsim0 1 default\n# h-1-8001 ibsim0 1 0x8001\n",
                  text.c_str());
  // Every non-comment line is "address device port pkey".
  size_t entries = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    if (line.empty() || line[0] == '#') continue;
    ++entries;
    int words = 0;
    for (size_t i = 0; i < line.size(); ++i)
      if (line[i] != ' ' && (i == 0 || line[i - 1] == ' ')) ++words;
    LONGS_EQUAL(4, words);
  }
  LONGS_EQUAL(2, entries);
}
