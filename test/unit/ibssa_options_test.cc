// ibssa_options_test.cc: ibssa_opts.cfg (distrib/ibssa_options.h): a
// mistake is an error naming the file and line, the allowed values and the
// nearest known name, never another behaviour; every option shows its
// value and where it came from.
#include "distrib/ibssa_options.h"

#include <map>

#include "common/base/option_set.h"
#include "test/support/check_ok.h"

// Last: CppUTest redefines new for leak checking.
#include <CppUTest/TestHarness.h>

namespace {

std::vector<std::string> Errors(const std::string& text, ssa::distrib::IbssaOptions* o) {
  ssa::ConfigFile cfg;
  ssa::Status st = ssa::ConfigFile::Parse(text, "ibssa_opts.cfg", &cfg);
  CHECK_OK(st);
  return o->Apply(cfg);
}

}  // namespace

TEST_GROUP(IbssaOptions){};

TEST(IbssaOptions, AnUnknownRoleIsAnErrorNotAnotherRole) {
  ssa::distrib::IbssaOptions o;
  std::vector<std::string> errors = Errors("log_level = debug\nrole = distrib\n", &o);
  LONGS_EQUAL(1, errors.size());
  STRCMP_EQUAL(
      "ibssa_opts.cfg:2: bad value for 'role': 'distrib' is not distribution, access or "
      "distribution,access; did you mean 'distribution'?",
      errors[0].c_str());
  errors = Errors("role = distribution,acess\n", &o);
  LONGS_EQUAL(1, errors.size());
  STRCMP_CONTAINS("did you mean 'access'?", errors[0].c_str());
  LONGS_EQUAL(0, Errors("role = access,distribution\n", &o).size());
  LONGS_EQUAL(ssa::distrib::kRoleAccess | ssa::distrib::kRoleDistribution, o.roles);
}

TEST(IbssaOptions, UnknownKeysSectionsAndBadValuesAreErrors) {
  ssa::distrib::IbssaOptions o;
  std::vector<std::string> errors =
      Errors("max_chidren = 5\nprdb_threads = 0\n[ibsa]\nport = mlx5_0:1\n", &o);
  LONGS_EQUAL(3, errors.size());
  STRCMP_EQUAL("ibssa_opts.cfg:1: unknown option 'max_chidren'; did you mean 'max_children'?",
               errors[0].c_str());
  STRCMP_EQUAL("ibssa_opts.cfg:2: bad value for 'prdb_threads': '0' is out of range [1, 256]",
               errors[1].c_str());
  STRCMP_CONTAINS("ibssa_opts.cfg:4: unknown section [ibsa]", errors[2].c_str());
  STRCMP_CONTAINS("did you mean 'ibssa'?", errors[2].c_str());
}

TEST(IbssaOptions, EveryOptionShowsItsValueAndSource) {
  ssa::ConfigFile cfg;
  CHECK_OK(ssa::ConfigFile::Parse("[ibssa]\nrole = distribution\n", "o.cfg", &cfg));
  ssa::distrib::IbssaOptions o;
  ssa::OptionSet set;
  o.Bind(&set);
  LONGS_EQUAL(0, o.Read(cfg, &set).size());
  std::map<std::string, ssa::OptionValue> values;
  for (const auto& v : set.Values()) values[v.key] = v;
  STRCMP_EQUAL("distribution", values["role"].value.c_str());
  STRCMP_EQUAL("o.cfg:2", values["role"].source.c_str());
  STRCMP_EQUAL("info", values["log_level"].value.c_str());
  STRCMP_EQUAL("default", values["log_level"].source.c_str());
}
