// option_registry_test.cc: the one list of who reads which key of ibacm's
// options file (common/base/option_registry.h) is what each reader binds,
// and what readers say about a key that belongs elsewhere.
#include "common/base/option_registry.h"

#include "common/base/option_set.h"
#include "core/core_options.h"
#include "providers/acmp/acmp_options.h"
#include "providers/sa/sa_options.h"
#include "providers/ssa/ssa_options.h"
#include "providers/upstream/bridge_options.h"

// Last: CppUTest redefines new for leak checking.
#include <CppUTest/TestHarness.h>

namespace reg = ssa::option_registry;

namespace {

template <typename Options>
std::vector<std::string> KeysBound() {
  Options o;
  ssa::OptionSet set;
  o.Bind(&set);
  return set.Keys();
}

std::string Joined(const std::vector<std::string>& keys) {
  std::string s;
  for (const auto& k : keys) s += k + " ";
  return s;
}

}  // namespace

TEST_GROUP(OptionRegistry){};

TEST(OptionRegistry, ListsExactlyTheKeysEachReaderBinds) {
  STRCMP_EQUAL(Joined(KeysBound<ssa::CoreOptions>()).c_str(), Joined(reg::KeysOf("core")).c_str());
  STRCMP_EQUAL(Joined(KeysBound<ssa::sa::SaOptions>()).c_str(), Joined(reg::KeysOf("sa")).c_str());
  STRCMP_EQUAL(Joined(KeysBound<ssa::acmp::AcmpOptions>()).c_str(),
               Joined(reg::KeysOf("acmp")).c_str());
  STRCMP_EQUAL(Joined(KeysBound<ssa::ssa_provider::SsaOptions>()).c_str(),
               Joined(reg::KeysOf("ssa")).c_str());
  STRCMP_EQUAL(Joined(KeysBound<ssa::upstream::BridgeOptions>()).c_str(),
               Joined(reg::KeysOf("upstream")).c_str());
  LONGS_EQUAL(5, reg::Readers().size());
  LONGS_EQUAL(0, reg::KeysOf("nobody").size());
}

TEST(OptionRegistry, NamesEverySectionAKeyIsReadIn) {
  STRCMP_EQUAL("[core] or [acmp]", reg::SectionList(reg::SectionsOf("timeout")).c_str());
  // The ssa provider's section holds the sa provider's keys too.
  STRCMP_EQUAL("[sa], [acmp] or [ssa]", reg::SectionList(reg::SectionsOf("cache_size")).c_str());
  STRCMP_EQUAL("[sa] or [ssa]", reg::SectionList(reg::SectionsOf("negative_timeout_ms")).c_str());
  STRCMP_EQUAL("[acmp] or [ssa]", reg::SectionList(reg::SectionsOf("transport")).c_str());
  LONGS_EQUAL(0, reg::SectionsOf("route_data_dir").size());  // nobody reads it
}
