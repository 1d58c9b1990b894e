// Tests of the core's option and address files.
#include <map>

#include "common/base/option_set.h"
#include "common/mad/umad_ports.h"
#include "core/addr_config.h"
#include "core/core_options.h"
#include "test/support/check_ok.h"

// Last: CppUTest redefines new for leak checking.
#include <CppUTest/TestHarness.h>

TEST_GROUP(CoreOptions){};

TEST(CoreOptions, IniCoreSectionMistakesAreErrorsWithFileLineAndTheNearestKey) {
  ssa::ConfigFile cfg;
  CHECK_OK(
      ssa::ConfigFile::Parse("[core]\n"
                             "log_level = debug\n"
                             "server_mode = open\n"
                             "server_port = 70000\n"
                             "provider = sa default\n"
                             "provider = acmp mlx5_0:1\n"
                             "bogus = 1\n"
                             "[sa]\n"
                             "route_timeout = 5\n",
                             "acm_opts.cfg", &cfg));
  ssa::CoreOptions o;
  auto errors = o.Apply(cfg);
  STRCMP_EQUAL("debug", o.log_level.c_str());
  STRCMP_EQUAL("open", o.server_mode.c_str());
  LONGS_EQUAL(2, o.provider_rules.size());
  STRCMP_EQUAL("acmp mlx5_0:1", o.provider_rules[1].value.c_str());
  STRCMP_EQUAL("acm_opts.cfg:6", o.provider_rules[1].where.c_str());
  LONGS_EQUAL(2, errors.size());
  STRCMP_EQUAL("acm_opts.cfg:4: bad value for 'server_port': '70000' is out of range [1, 65535]",
               errors[0].c_str());
  STRCMP_EQUAL("acm_opts.cfg:7: unknown option 'bogus' in [core]", errors[1].c_str());
}

TEST(CoreOptions, ATypoIsAnErrorThatNamesTheNearestKeyOrTheSectionItBelongsIn) {
  ssa::ConfigFile cfg;
  CHECK_OK(ssa::ConfigFile::Parse(
      "[core]\nprovder = sa default\nroute_timeout = 5\nlog_level = verbose\n", "a.cfg", &cfg));
  auto errors = ssa::CoreOptions().Apply(cfg);
  LONGS_EQUAL(3, errors.size());
  STRCMP_EQUAL("a.cfg:2: unknown option 'provder' in [core]; did you mean 'provider'?",
               errors[0].c_str());
  STRCMP_EQUAL("a.cfg:3: option 'route_timeout' belongs in [sa], [acmp] or [ssa], not [core]",
               errors[1].c_str());
  STRCMP_CONTAINS("a.cfg:4: bad value for 'log_level': 'verbose' is not one of 0|1|2|error|",
                  errors[2].c_str());
  // In upstream's format every reader sees every line: a key nobody reads
  // is an error, with the nearest key any reader reads.
  CHECK_OK(ssa::ConfigFile::Parse("addr_prot acm\nrout_prot sa\n", "u.cfg", &cfg));
  errors = ssa::CoreOptions().Apply(cfg);
  LONGS_EQUAL(1, errors.size());
  STRCMP_EQUAL("u.cfg:2: unknown option 'rout_prot'; did you mean 'route_prot'?",
               errors[0].c_str());
  // ... unless the upstream bridge passes such keys on to its library.
  CHECK_OK(ssa::ConfigFile::Parse("upstream_provider ibacmp\nlibrary_knob 3\n", "b.cfg", &cfg));
  LONGS_EQUAL(0, ssa::CoreOptions().Apply(cfg).size());
}

TEST(CoreOptions, EveryOptionShowsItsValueAndWhereItCameFrom) {
  ssa::ConfigFile cfg;
  CHECK_OK(
      ssa::ConfigFile::Parse("[core]\nserver_mode = open\nprovider = sa default\n", "c.cfg", &cfg));
  ssa::CoreOptions o;
  ssa::OptionSet set;
  o.Bind(&set);
  LONGS_EQUAL(0, o.Read(cfg, &set).size());
  std::map<std::string, ssa::OptionValue> values;
  for (const auto& v : set.Values()) values[v.key] = v;
  STRCMP_EQUAL("open", values["server_mode"].value.c_str());
  STRCMP_EQUAL("c.cfg:2", values["server_mode"].source.c_str());
  STRCMP_EQUAL("sa default", values["provider"].value.c_str());
  STRCMP_EQUAL("2000", values["timeout"].value.c_str());
  STRCMP_EQUAL("default", values["timeout"].source.c_str());
  STRCMP_EQUAL("no", values["acme_plus_kernel_only"].value.c_str());
}

TEST(CoreOptions, UpstreamFileReadUnchanged) {
  // Lines as upstream's ib_acme -O writes them, core and acmp options mixed.
  ssa::ConfigFile cfg;
  CHECK_OK(
      ssa::ConfigFile::Parse("log_file /var/log/ibacm.log\n"
                             "log_level 0\n"
                             "lock_file /run/ibacm.pid\n"
                             "addr_prot acm\n"
                             "route_prot sa\n"
                             "server_port 6126\n"
                             "server_mode loop\n"
                             "acme_plus_kernel_only yes\n"
                             "timeout 2500\n"
                             "retries 3\n"
                             "sa_depth 4\n"
                             "support_ips_in_addr_cfg 1\n"
                             "provider_lib_path /usr/lib/ibacm\n"
                             "provider ibacmp 0xFE80000000000000\n",
                             "ibacm_opts.cfg", &cfg));
  ssa::CoreOptions o;
  auto errors = o.Apply(cfg);
  LONGS_EQUAL(0, errors.size());  // acmp's keys are not the core's to judge
  LONGS_EQUAL(6126, o.server_port);
  STRCMP_EQUAL("loop", o.server_mode.c_str());
  CHECK_TRUE(o.acme_plus_kernel_only);
  LONGS_EQUAL(2500, o.timeout_ms);
  LONGS_EQUAL(3, o.retries);
  LONGS_EQUAL(4, o.sa_depth);
  CHECK_TRUE(o.support_ips_in_addr_cfg);
  STRCMP_EQUAL("/usr/lib/ibacm", o.provider_lib_path.c_str());
  LONGS_EQUAL(1, o.provider_rules.size());
}

TEST(CoreOptions, ClientLimits) {
  ssa::CoreOptions o;
  LONGS_EQUAL(0, o.max_clients);
  LONGS_EQUAL(5000, o.client_timeout_ms);
  LONGS_EQUAL(8, o.client_read_budget);
  LONGS_EQUAL(32, o.client_max_inflight);
  ssa::ConfigFile cfg;
  CHECK_OK(ssa::ConfigFile::Parse(
      "[core]\nmax_clients = 64\nclient_timeout_ms = 0\nclient_read_budget = 2\n"
      "client_max_inflight = 1\n",
      "acm_opts.cfg", &cfg));
  LONGS_EQUAL(0, o.Apply(cfg).size());
  LONGS_EQUAL(64, o.max_clients);
  LONGS_EQUAL(0, o.client_timeout_ms);
  LONGS_EQUAL(2, o.client_read_budget);
  LONGS_EQUAL(1, o.client_max_inflight);
  // A share of nothing would stop a client for good.
  CHECK_OK(ssa::ConfigFile::Parse("[core]\nclient_read_budget = 0\nclient_max_inflight = 0\n",
                                  "acm_opts.cfg", &cfg));
  LONGS_EQUAL(2, o.Apply(cfg).size());
  LONGS_EQUAL(2, o.client_read_budget);
  LONGS_EQUAL(1, o.client_max_inflight);
}

TEST(CoreOptions, RunDirMovesEveryRuntimeFile) {
  ssa::CoreOptions o;
  o.UseRunDir("/tmp/x");
  STRCMP_EQUAL("/tmp/x/ibacm-unix.sock", o.unix_socket_path.c_str());
  STRCMP_EQUAL("/tmp/x/ibacm.sock", o.unix_socket_link.c_str());
  STRCMP_EQUAL("/tmp/x/ibacm-tcp.port", o.port_file.c_str());
  STRCMP_EQUAL("/tmp/x/ibacm.pid", o.lock_file.c_str());
}

TEST_GROUP(AddrConfig){};

TEST(AddrConfig, ANameWithANulOrControlCharacterIsSkippedWithAWarning) {
  // Found by the config fuzzer: the NUL cut the name short when printed.
  std::string text = std::string(
                         "node\0x mlx4_0 1 default\nno\x01"
                         "de mlx4_0 1 default\n",
                         47) +
                     "node2 mlx4_0 1 default\n";
  auto cfg = ssa::AddrConfig::Parse(text, "addr.cfg", true);
  LONGS_EQUAL(1, cfg.entries.size());
  STRCMP_EQUAL("node2", cfg.entries[0].text.c_str());
  LONGS_EQUAL(2, cfg.warnings.size());
}

TEST(AddrConfig, UpstreamLinesParsed) {
  auto cfg = ssa::AddrConfig::Parse(
      "# comment\n"
      "node31      mlx4_0 1 default\n"
      "node31-1    mlx4_0 1 0x00FF\n"
      "node31-2    mlx4_0 2 8001  # trailing comment\n"
      "10.0.0.31   mlx4_0 1 default\n"
      "fe80::31    mlx4_0 1 default\n",
      "addr.cfg", true);
  LONGS_EQUAL(0, cfg.warnings.size());
  LONGS_EQUAL(5, cfg.entries.size());
  LONGS_EQUAL(SSA_ADDR_NAME, cfg.entries[0].address.type);
  CHECK_TRUE(cfg.entries[0].default_pkey);
  LONGS_EQUAL(0x00ff, cfg.entries[1].pkey);
  LONGS_EQUAL(0x8001, cfg.entries[2].pkey);
  LONGS_EQUAL(2, cfg.entries[2].port);
  LONGS_EQUAL(SSA_ADDR_IP, cfg.entries[3].address.type);
  LONGS_EQUAL(10, cfg.entries[3].address.data[0]);
  LONGS_EQUAL(SSA_ADDR_IP6, cfg.entries[4].address.type);
  STRCMP_EQUAL("fe80::31", ssa::AddressToString(cfg.entries[4].address).c_str());
  STRCMP_EQUAL("node31-1", ssa::AddressToString(cfg.entries[1].address).c_str());
}

TEST(AddrConfig, BadLinesSkippedWithFileAndLine) {
  auto cfg = ssa::AddrConfig::Parse(
      "good mlx5_0 1 default\n"
      "short mlx5_0 1\n"
      "badport mlx5_0 x default\n"
      "badpkey mlx5_0 1 zzzz\n"
      "10.1.1.1 mlx5_0 1 default\n"
      "extra mlx5_0 1 default more\n"
      "averyveryveryveryveryveryveryveryveryveryveryveryveryveryverylongname mlx5_0 1 default\n",
      "a.cfg", false);
  LONGS_EQUAL(1, cfg.entries.size());
  LONGS_EQUAL(6, cfg.warnings.size());
  STRCMP_CONTAINS("a.cfg:2: expected 'address device port pkey'", cfg.warnings[0].c_str());
  STRCMP_CONTAINS("a.cfg:3: port", cfg.warnings[1].c_str());
  STRCMP_CONTAINS("a.cfg:4: pkey", cfg.warnings[2].c_str());
  STRCMP_CONTAINS("a.cfg:5: IP address '10.1.1.1' needs support_ips_in_addr_cfg",
                  cfg.warnings[3].c_str());
  STRCMP_CONTAINS("a.cfg:6: unexpected 'more'", cfg.warnings[4].c_str());
  STRCMP_CONTAINS("a.cfg:7: name", cfg.warnings[5].c_str());
}

TEST(AddrConfig, DuplicateAddressesWarnedWithFileAndLine) {
  auto cfg = ssa::AddrConfig::Parse(
      "node1 mlx5_0 1 default\n"
      "node2 mlx5_0 1 0x8001\n"
      "node1 mlx5_0 2 default\n"
      "10.0.0.1 mlx5_0 1 default\n"
      "10.0.0.1 mlx5_0 1 0x8001\n",
      "a.cfg", true);
  LONGS_EQUAL(3, cfg.entries.size());
  LONGS_EQUAL(2, cfg.warnings.size());
  STRCMP_CONTAINS("a.cfg:3: duplicate address 'node1' (first on line 1)", cfg.warnings[0].c_str());
  STRCMP_CONTAINS("a.cfg:5: duplicate address '10.0.0.1' (first on line 4)",
                  cfg.warnings[1].c_str());
  LONGS_EQUAL(1, cfg.entries[0].port);  // the first one wins
}

TEST(AddrConfig, UnknownDevicePortAndPkeyWarnedWithFileAndLine) {
  auto cfg = ssa::AddrConfig::Parse(
      "good mlx5_0 1 default\n"
      "limited mlx5_0 1 0x0001\n"
      "nodev mlx5_9 1 default\n"
      "noport mlx5_0 2 default\n"
      "nopkey mlx5_0 1 0x8005\n",
      "a.cfg", false);
  ssa::UmadPort p;
  p.ca_name = "mlx5_0";
  p.port_num = 1;
  p.pkeys = {0xffff, 0x8001};
  auto warnings = cfg.CheckAgainstPorts({p});
  LONGS_EQUAL(3, warnings.size());
  STRCMP_CONTAINS("a.cfg:3: address 'nodev': no device 'mlx5_9'", warnings[0].c_str());
  STRCMP_CONTAINS("a.cfg:4: address 'noport': device mlx5_0 has no port 2", warnings[1].c_str());
  STRCMP_CONTAINS("a.cfg:5: address 'nopkey': port mlx5_0/1 has no pkey 0x8005",
                  warnings[2].c_str());
}

#include "core/addr_watch/ipoib_addresses.h"

TEST_GROUP(IpoibAddresses){};

TEST(IpoibAddresses, HardwareAddressCarriesThePortGid) {
  // flags+QPN, then GID fe80::2:c903:0:1231
  const uint8_t hw[20] = {0x80, 0x00, 0x04, 0x04, 0xfe, 0x80, 0,    0,    0,    0,
                          0,    0,    0x00, 0x02, 0xc9, 0x03, 0x00, 0x00, 0x12, 0x31};
  uint64_t prefix = 0, guid = 0;
  CHECK_TRUE(ssa::ParseIpoibHwAddr(hw, sizeof(hw), &prefix, &guid));
  CHECK(prefix == 0xfe80000000000000ULL);
  CHECK(guid == 0x0002c90300001231ULL);
  CHECK_FALSE(ssa::ParseIpoibHwAddr(hw, 6, &prefix, &guid));  // Ethernet-sized
}

TEST(IpoibAddresses, ListingWorksWithoutIpoibInterfaces) {
  std::vector<ssa::IpoibAddress> list;
  CHECK_OK(ssa::ListIpoibAddresses(&list));
  for (const auto& a : list) CHECK(a.address.type == SSA_ADDR_IP || a.address.type == SSA_ADDR_IP6);
}
