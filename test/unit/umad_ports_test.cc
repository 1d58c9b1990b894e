#include "common/mad/umad_ports.h"

#include <CppUTest/TestHarness.h>
#include <infiniband/umad.h>

#include <cstring>

#include "common/base/big_endian.h"

TEST_GROUP(UmadPorts){};

TEST(UmadPorts, ConvertsByteOrderAndDropsEmptyPkeys) {
  umad_ca_t ca;
  memset(&ca, 0, sizeof(ca));
  umad_port_t port;
  memset(&port, 0, sizeof(port));
  uint16_t pkeys[4] = {0xffff, 0x0000, 0x8001, 0x8000};
  strcpy(ca.ca_name, "mlx5_0");
  ca.node_type = 1;
  ca.node_guid = ssa::ToBe64(0x0002c90300001230ULL);
  strcpy(port.ca_name, "mlx5_0");
  port.portnum = 1;
  port.base_lid = 17;
  port.lmc = 1;
  port.sm_lid = 1;
  port.sm_sl = 0;
  port.state = 4;
  port.rate = 100;
  port.capmask = ssa::ToBe32(0x02514868);
  port.gid_prefix = ssa::ToBe64(0xfe80000000000000ULL);
  port.port_guid = ssa::ToBe64(0x0002c90300001231ULL);
  port.pkeys = pkeys;
  port.pkeys_size = 4;
  strcpy(port.link_layer, "InfiniBand");
  ca.ports[1] = &port;

  ssa::UmadPort p = ssa::UmadPortFromCa(ca, 1);
  STRCMP_EQUAL("mlx5_0", p.ca_name.c_str());
  LONGS_EQUAL(1, p.port_num);
  CHECK(p.node_guid == 0x0002c90300001230ULL);
  CHECK(p.port_guid == 0x0002c90300001231ULL);
  CHECK(p.gid_prefix == 0xfe80000000000000ULL);
  LONGS_EQUAL(17, p.lid);
  LONGS_EQUAL(1, p.lmc);
  LONGS_EQUAL(0x02514868, p.capmask);
  CHECK_TRUE(p.IsActive());
  CHECK_TRUE(p.IsInfiniBand());
  LONGS_EQUAL(2, p.pkeys.size());
  LONGS_EQUAL(0xffff, p.pkeys[0]);
  LONGS_EQUAL(0x8001, p.pkeys[1]);
  STRCMP_CONTAINS("lid 17", p.Describe().c_str());
  STRCMP_CONTAINS("ACTIVE", p.Describe().c_str());
}

TEST(UmadPorts, StateNames) {
  STRCMP_EQUAL("DOWN", ssa::PortStateName(ssa::kPortDown));
  STRCMP_EQUAL("ACTIVE", ssa::PortStateName(4));
  STRCMP_EQUAL("UNKNOWN", ssa::PortStateName(99));
}
