// provider_selector_test.cc: "provider" rules: syntax, precedence, errors.
#include "core/provider_selector.h"

#include <CppUTest/TestHarness.h>

#include <string>

#include "test/support/check_ok.h"

namespace {

constexpr uint64_t kLinkLocal = 0xfe80000000000000ULL;
constexpr uint64_t kOther = 0xfec0000000000001ULL;

}  // namespace

TEST_GROUP(ProviderSelector) {
  ssa::ProviderSelector sel;

  void Add(const std::string& rule) {
    ssa::Status st = sel.AddRule(rule);
    CHECK_OK(st);
  }
  // The rule is refused with a message naming it and saying `what`.
  void Refused(const std::string& rule, const std::string& what) {
    ssa::Status st = sel.AddRule(rule);
    CHECK_FALSE_TEXT(st.ok(), rule.c_str());
    LONGS_EQUAL(-EINVAL, st.code());
    STRCMP_CONTAINS(("provider rule '" + rule + "'").c_str(), st.message().c_str());
    STRCMP_CONTAINS(what.c_str(), st.message().c_str());
  }
};

TEST(ProviderSelector, NothingMatchesWithoutRulesOrDefault) {
  STRCMP_EQUAL("", sel.Select("mlx5_0", 1, kLinkLocal).c_str());
  STRCMP_EQUAL("", sel.default_provider().c_str());
}

TEST(ProviderSelector, UpstreamDefaultAndPrefixSyntax) {
  Add("acmp default");
  Add("sa 0xFE80000000000000");
  STRCMP_EQUAL("acmp", sel.default_provider().c_str());
  STRCMP_EQUAL("sa", sel.Select("mlx4_0", 1, kLinkLocal).c_str());
  STRCMP_EQUAL("acmp", sel.Select("mlx4_0", 1, kOther).c_str());
}

TEST(ProviderSelector, PrefixInDecimalAndDefaultInAnyCase) {
  Add("sa 18356672081162141697");  // 0xfec0000000000001
  Add("acmp DEFAULT");
  STRCMP_EQUAL("sa", sel.Select("ibsim0", 1, kOther).c_str());
  STRCMP_EQUAL("acmp", sel.Select("ibsim0", 1, kLinkLocal).c_str());
}

TEST(ProviderSelector, DevicePortBeatsDeviceBeatsPrefixBeatsDefault) {
  // Added least specific first: the order of the lines must not matter.
  Add("dflt default");
  Add("bypfx 0xfe80000000000000");
  Add("bydev mlx5_0");
  Add("byport mlx5_0:2");
  STRCMP_EQUAL("byport", sel.Select("mlx5_0", 2, kLinkLocal).c_str());
  STRCMP_EQUAL("bydev", sel.Select("mlx5_0", 1, kLinkLocal).c_str());
  STRCMP_EQUAL("bypfx", sel.Select("mlx5_1", 1, kLinkLocal).c_str());
  STRCMP_EQUAL("dflt", sel.Select("mlx5_1", 1, kOther).c_str());
}

TEST(ProviderSelector, DevicePortRuleDoesNotMatchOtherPortsOrDevices) {
  Add("ssa ibsim0:1");
  sel.SetDefault("sa");
  STRCMP_EQUAL("ssa", sel.Select("ibsim0", 1, kLinkLocal).c_str());
  STRCMP_EQUAL("sa", sel.Select("ibsim0", 2, kLinkLocal).c_str());
  STRCMP_EQUAL("sa", sel.Select("ibsim1", 1, kLinkLocal).c_str());
  STRCMP_EQUAL("sa", sel.Select("ibsim", 1, kLinkLocal).c_str());
}

TEST(ProviderSelector, DefaultRuleWinsOverCallersDefault) {
  sel.SetDefault("first_loaded");
  STRCMP_EQUAL("first_loaded", sel.Select("mlx5_0", 1, kLinkLocal).c_str());
  Add("sa default");
  STRCMP_EQUAL("sa", sel.default_provider().c_str());
  STRCMP_EQUAL("sa", sel.Select("mlx5_0", 1, kLinkLocal).c_str());
}

TEST(ProviderSelector, ToleratesExtraWhitespaceAndRepeats) {
  Add("  sa\t 0xfe80000000000000  ");
  Add("sa 0xfe80000000000000");  // the same rule again: harmless
  LONGS_EQUAL(1, sel.rules().size());
  STRCMP_EQUAL("sa", sel.Select("x", 1, kLinkLocal).c_str());
}

TEST(ProviderSelector, ConflictingRuleIsRefusedAndTheFirstStays) {
  Add("sa mlx5_0:1");
  Refused("acmp mlx5_0:1", "mlx5_0:1 is already served by 'sa'");
  Add("sa default");
  Refused("acmp default", "default is already served by 'sa'");
  Add("sa 0xfe80000000000000");
  Refused("acmp 0xFE80000000000000", "0xfe80000000000000 is already served by 'sa'");
  STRCMP_EQUAL("sa", sel.Select("mlx5_0", 1, 0).c_str());
  STRCMP_EQUAL("sa", sel.default_provider().c_str());
  LONGS_EQUAL(3, sel.rules().size());
}

TEST(ProviderSelector, BadSyntaxIsRefusedNamingTheValue) {
  Refused("", "expected 'NAME default'");
  Refused("sa", "expected 'NAME default'");
  Refused("sa mlx5_0:1 extra", "expected 'NAME default'");
  Refused("sa 0xfe8g", "subnet prefix '0xfe8g' is not a number");
  Refused("sa 0x1fe80000000000000", "subnet prefix '0x1fe80000000000000' is over 64 bits");
  Refused("sa mlx5_0:", "port '' is not a number from 1 to 254");
  Refused("sa mlx5_0:0", "port '0' is not a number from 1 to 254");
  Refused("sa mlx5_0:255", "port '255' is not a number from 1 to 254");
  Refused("sa mlx5_0:1x", "port '1x' is not a number from 1 to 254");
  Refused("sa mlx5_0:-1", "port '-1' is not a number from 1 to 254");
  Refused("sa mlx/5:1", "device 'mlx/5' may only hold");
  Refused("sa :1", "target ':1' is neither");
  Refused("s/a default", "provider name 's/a' is not 1 to 31");
  Refused(std::string(32, 'p') + " default", "is not 1 to 31");
  LONGS_EQUAL(0, sel.rules().size());
  STRCMP_EQUAL("", sel.default_provider().c_str());
}

TEST(ProviderSelector, DescribeListsRulesInMatchOrder) {
  Add("dflt default");
  Add("bypfx 0xfe80000000000000");
  Add("bydev mlx5_0");
  Add("byport mlx5_0:2");
  const auto lines = sel.Describe();
  LONGS_EQUAL(4, lines.size());
  STRCMP_EQUAL("mlx5_0:2 -> byport", lines[0].c_str());
  STRCMP_EQUAL("mlx5_0 -> bydev", lines[1].c_str());
  STRCMP_EQUAL("0xfe80000000000000 -> bypfx", lines[2].c_str());
  STRCMP_EQUAL("default -> dflt", lines[3].c_str());
  // rules() keeps the order they were added in.
  CHECK(sel.rules()[0].kind == ssa::ProviderSelector::Rule::Kind::kDefault);
  CHECK(sel.rules()[3].kind == ssa::ProviderSelector::Rule::Kind::kDevicePort);
  LONGS_EQUAL(2, sel.rules()[3].port);
}

TEST(ProviderSelector, UpstreamNamesNameOurProviders) {
  // rdma-core's libibacmp is "ibacmp" in an upstream ibacm_opts.cfg.
  Add("ibacmp default");
  Add("IBACMP 0xFE80000000000000");
  STRCMP_EQUAL("acmp", sel.default_provider().c_str());
  STRCMP_EQUAL("acmp", sel.Select("mlx4_0", 1, kLinkLocal).c_str());
  STRCMP_EQUAL("ibacmp", sel.rules()[0].upstream_name.c_str());
  STRCMP_EQUAL("sa", ssa::ProviderSelector::OurName("sa").c_str());  // ours stay ours
}
