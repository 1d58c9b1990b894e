#include "common/base/config_file.h"
#include "common/base/option_set.h"

#include "test/support/check_ok.h"

#include <CppUTest/TestHarness.h>

TEST_GROUP(ConfigFile){};

TEST(ConfigFile, IniSectionsKeysAndLines) {
  ssa::ConfigFile cfg;
  const char* text =
      "# comment\n"
      "[core]\n"
      "log_level = 1\n"
      "\n"
      "[sa]\n"
      "route_timeout = 300 ; inline comment\n";
  CHECK_OK(ssa::ConfigFile::Parse(text, "acm_opts.cfg", &cfg));
  CHECK(cfg.format() == ssa::ConfigFile::Format::kIni);
  const ssa::ConfigEntry* e = cfg.Find("sa", "route_timeout");
  CHECK(e != nullptr);
  STRCMP_EQUAL("300", e->value.c_str());
  LONGS_EQUAL(6, e->line);
  LONGS_EQUAL(3, cfg.Find("core", "log_level")->line);
  LONGS_EQUAL(2, cfg.SectionNames().size());
  CHECK(cfg.Find("core", "route_timeout") == nullptr);
}

TEST(ConfigFile, IniSyntaxErrorNamesFileAndLine) {
  ssa::ConfigFile cfg;
  ssa::Status st = ssa::ConfigFile::Parse("[core]\nlog_level = 1\n[broken\n", "x.cfg", &cfg);
  CHECK_FALSE(st.ok());
  STRCMP_CONTAINS("x.cfg:3:", st.message().c_str());
}

TEST(ConfigFile, AValueWithoutANameIsASyntaxError) {
  // Found by the config fuzzer: "= value" used to become an entry with an
  // empty name.
  ssa::ConfigFile cfg;
  ssa::Status st = ssa::ConfigFile::Parse("[core]\nlog_level = 1\n= 2\n", "x.cfg", &cfg);
  CHECK_FALSE(st.ok());
  STRCMP_CONTAINS("x.cfg:3:", st.message().c_str());
}

TEST(ConfigFile, UpstreamFormatDetectedAndRead) {
  ssa::ConfigFile cfg;
  const char* text =
      "# ibacm_opts.cfg\n"
      "log_file /var/log/ibacm.log\n"
      "log_level 0\n"
      "provider ibacmp 0xfe80000000000000\n"
      "provider ibssa default\n";
  CHECK_OK(ssa::ConfigFile::Parse(text, "ibacm_opts.cfg", &cfg));
  CHECK(cfg.format() == ssa::ConfigFile::Format::kUpstream);
  STRCMP_EQUAL("/var/log/ibacm.log", cfg.Find("", "log_file")->value.c_str());
  STRCMP_EQUAL("ibssa default", cfg.Find("", "provider")->value.c_str());
  LONGS_EQUAL(5, cfg.Find("", "provider")->line);
  LONGS_EQUAL(4, cfg.Section("").size());
}

// An '=' inside a value made the whole upstream file parse as INI (and
// fail, or turn "log_file /a=b" into key "log_file /a" = "b").
TEST(ConfigFile, UpstreamValueContainingEqualsIsStillUpstream) {
  ssa::ConfigFile cfg;
  const char* text =
      "# ibacm_opts.cfg\n"
      "log_file /var/log/ibacm=old.log\n"
      "log_level 0\n"
      "provider_lib_path /opt/a=b:c\n";
  CHECK_TRUE(ssa::ConfigFile::LooksUpstream(text));
  CHECK_OK(ssa::ConfigFile::Parse(text, "ibacm_opts.cfg", &cfg));
  CHECK(cfg.format() == ssa::ConfigFile::Format::kUpstream);
  STRCMP_EQUAL("/var/log/ibacm=old.log", cfg.Find("", "log_file")->value.c_str());
  STRCMP_EQUAL("/opt/a=b:c", cfg.Find("", "provider_lib_path")->value.c_str());
  LONGS_EQUAL(3, cfg.Section("").size());
}

TEST(ConfigFile, IniWithoutSectionsIsStillIni) {
  for (const char* text : {"log_level = 1\n", "log_level=1\n", "log_level =1\n", "log_level: 1\n",
                           "log_file = /var/log/a b.log\nlog_level 1\n"})
    CHECK_FALSE_TEXT(ssa::ConfigFile::LooksUpstream(text), text);
  ssa::ConfigFile cfg;
  CHECK_OK(ssa::ConfigFile::Parse("log_file = /var/log/a=b.log\n", "x.cfg", &cfg));
  CHECK(cfg.format() == ssa::ConfigFile::Format::kIni);
  STRCMP_EQUAL("/var/log/a=b.log", cfg.Find("", "log_file")->value.c_str());
}

TEST(ConfigFile, UpstreamOptionWithoutValueIsAnError) {
  ssa::ConfigFile cfg;
  ssa::Status st = ssa::ConfigFile::Parse("log_level 0\nlonely\n", "o.cfg", &cfg);
  CHECK_FALSE(st.ok());
  STRCMP_CONTAINS("o.cfg:2: option 'lonely' has no value", st.message().c_str());
}

TEST(ConfigFile, NulBytesRejected) {
  ssa::ConfigFile cfg;
  std::string text("a = b\n", 6);
  text.push_back('\0');
  CHECK_FALSE(ssa::ConfigFile::Parse(text, "bin.cfg", &cfg).ok());
}

TEST(ConfigFile, MissingFileNamesPath) {
  ssa::ConfigFile cfg;
  ssa::Status st = ssa::ConfigFile::Load("/nonexistent/acm_opts.cfg", &cfg);
  CHECK_FALSE(st.ok());
  STRCMP_CONTAINS("/nonexistent/acm_opts.cfg", st.message().c_str());
}

TEST_GROUP(OptionSet){};

TEST(OptionSet, TypedValuesAndWarnings) {
  ssa::ConfigFile cfg;
  CHECK_OK(
      ssa::ConfigFile::Parse("[core]\n"
                             "timeout = 2000\n"
                             "retries = many\n"
                             "server_mode = loop\n"
                             "kernel_only = yes\n"
                             "colour = blue\n"
                             "sa_depth = 0\n",
                             "t.cfg", &cfg));
  int timeout = 0, retries = 2, sa_depth = 1;
  bool kernel_only = false;
  std::string mode = "unix";
  ssa::OptionSet opts;
  opts.Int("timeout", &timeout, 1, 1000000);
  opts.Int("retries", &retries, 0, 100);
  opts.Int("sa_depth", &sa_depth, 1, 1000);
  opts.Bool("kernel_only", &kernel_only);
  opts.Choice("server_mode", &mode, {"unix", "loop", "open"});
  auto warnings = opts.Apply(cfg.Section("core"), cfg.name());
  LONGS_EQUAL(2000, timeout);
  LONGS_EQUAL(2, retries);   // bad value keeps the default
  LONGS_EQUAL(1, sa_depth);  // out of range keeps the default
  CHECK_TRUE(kernel_only);
  STRCMP_EQUAL("loop", mode.c_str());
  LONGS_EQUAL(3, warnings.size());
  STRCMP_CONTAINS("t.cfg:3: bad value for 'retries'", warnings[0].c_str());
  STRCMP_CONTAINS("t.cfg:6: unknown option 'colour' in [core]", warnings[1].c_str());
  STRCMP_CONTAINS("t.cfg:7: bad value for 'sa_depth'", warnings[2].c_str());
  CHECK_TRUE(opts.ApplyKnown(cfg.Section("core"), cfg.name()).size() == 2);
}

TEST(OptionSet, ParseIntAcceptsHexAndRejectsJunk) {
  int64_t v = 0;
  CHECK_OK(ssa::OptionSet::ParseInt("0xffff", 0, 65535, &v));
  LONGS_EQUAL(65535, v);
  CHECK_FALSE(ssa::OptionSet::ParseInt("12abc", 0, 100, &v).ok());
  CHECK_FALSE(ssa::OptionSet::ParseInt("", 0, 100, &v).ok());
  CHECK_FALSE(ssa::OptionSet::ParseInt("99999999999999999999999", 0, 100, &v).ok());
}
