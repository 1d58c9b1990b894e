#include <string>

#include "common/base/config_file.h"
#include "common/base/option_set.h"

#include "test/support/check_ok.h"

#include <CppUTest/TestHarness.h>

namespace {

// The error ConfigFile::Parse gives for `text` read from `file` (the test
// fails if it gives none).
std::string ParseError(const std::string& text, const char* file) {
  ssa::ConfigFile cfg;
  ssa::Status st = ssa::ConfigFile::Parse(text, file, &cfg);
  CHECK_FALSE(st.ok());
  return st.message();
}

// `text` read from `file`, checked to parse and to be in `format`.
ssa::ConfigFile ParseAs(const std::string& text, const char* file, ssa::ConfigFile::Format format) {
  ssa::ConfigFile cfg;
  CHECK_OK(ssa::ConfigFile::Parse(text, file, &cfg));
  CHECK(cfg.format() == format);
  return cfg;
}

}  // namespace

TEST_GROUP(ConfigFile){};

TEST(ConfigFile, IniSectionsKeysAndLines) {
  const char* text =
      "# comment\n"
      "[core]\n"
      "log_level = 1\n"
      "\n"
      "[sa]\n"
      "route_timeout = 300 ; inline comment\n";
  ssa::ConfigFile cfg = ParseAs(text, "acm_opts.cfg", ssa::ConfigFile::Format::kIni);
  const ssa::ConfigEntry* e = cfg.Find("sa", "route_timeout");
  CHECK(e != nullptr);
  STRCMP_EQUAL("300", e->value.c_str());
  LONGS_EQUAL(6, e->line);
  LONGS_EQUAL(3, cfg.Find("core", "log_level")->line);
  LONGS_EQUAL(2, cfg.SectionNames().size());
  CHECK(cfg.Find("core", "route_timeout") == nullptr);
}

TEST(ConfigFile, IniSyntaxErrorNamesFileAndLine) {
  STRCMP_CONTAINS("x.cfg:3:", ParseError("[core]\nlog_level = 1\n[broken\n", "x.cfg").c_str());
}

TEST(ConfigFile, AValueWithoutANameIsASyntaxError) {
  // Found by the config fuzzer: "= value" used to become an entry with an
  // empty name.
  STRCMP_CONTAINS("x.cfg:3:", ParseError("[core]\nlog_level = 1\n= 2\n", "x.cfg").c_str());
}

TEST(ConfigFile, UpstreamFormatDetectedAndRead) {
  const char* text =
      "# ibacm_opts.cfg\n"
      "log_file /var/log/ibacm.log\n"
      "log_level 0\n"
      "provider ibacmp 0xfe80000000000000\n"
      "provider ibssa default\n";
  ssa::ConfigFile cfg = ParseAs(text, "ibacm_opts.cfg", ssa::ConfigFile::Format::kUpstream);
  STRCMP_EQUAL("/var/log/ibacm.log", cfg.Find("", "log_file")->value.c_str());
  STRCMP_EQUAL("ibssa default", cfg.Find("", "provider")->value.c_str());
  LONGS_EQUAL(5, cfg.Find("", "provider")->line);
  LONGS_EQUAL(4, cfg.Section("").size());
}

// An '=' inside a value made the whole upstream file parse as INI (and
// fail, or turn "log_file /a=b" into key "log_file /a" = "b").
TEST(ConfigFile, UpstreamValueContainingEqualsIsStillUpstream) {
  const char* text =
      "# ibacm_opts.cfg\n"
      "log_file /var/log/ibacm=old.log\n"
      "log_level 0\n"
      "provider_lib_path /opt/a=b:c\n";
  CHECK_TRUE(ssa::ConfigFile::LooksUpstream(text));
  ssa::ConfigFile cfg = ParseAs(text, "ibacm_opts.cfg", ssa::ConfigFile::Format::kUpstream);
  STRCMP_EQUAL("/var/log/ibacm=old.log", cfg.Find("", "log_file")->value.c_str());
  STRCMP_EQUAL("/opt/a=b:c", cfg.Find("", "provider_lib_path")->value.c_str());
  LONGS_EQUAL(3, cfg.Section("").size());
}

TEST(ConfigFile, IniWithoutSectionsIsStillIni) {
  for (const char* text : {"log_level = 1\n", "log_level=1\n", "log_level =1\n", "log_level: 1\n",
                           "log_file = /var/log/a b.log\nlog_level 1\n"})
    CHECK_FALSE_TEXT(ssa::ConfigFile::LooksUpstream(text), text);
  ssa::ConfigFile cfg =
      ParseAs("log_file = /var/log/a=b.log\n", "x.cfg", ssa::ConfigFile::Format::kIni);
  STRCMP_EQUAL("/var/log/a=b.log", cfg.Find("", "log_file")->value.c_str());
}

TEST(ConfigFile, UpstreamOptionWithoutValueIsAnError) {
  STRCMP_CONTAINS("o.cfg:2: option 'lonely' has no value",
                  ParseError("log_level 0\nlonely\n", "o.cfg").c_str());
}

TEST(ConfigFile, NulBytesRejected) {
  std::string text("a = b\n", 6);
  text.push_back('\0');
  ParseError(text, "bin.cfg");
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
  auto errors = opts.Read(cfg.Section("core"), cfg.name());
  LONGS_EQUAL(2000, timeout);
  LONGS_EQUAL(2, retries);   // a bad value leaves the variable alone
  LONGS_EQUAL(1, sa_depth);  // so does one out of range
  CHECK_TRUE(kernel_only);
  STRCMP_EQUAL("loop", mode.c_str());
  LONGS_EQUAL(3, errors.size());
  for (const auto& e : errors) CHECK_TRUE(e.error());
  STRCMP_CONTAINS("t.cfg:3: bad value for 'retries'", errors[0].ToString().c_str());
  STRCMP_CONTAINS("t.cfg:6: unknown option 'colour' in [core]", errors[1].ToString().c_str());
  STRCMP_CONTAINS("t.cfg:7: bad value for 'sa_depth'", errors[2].ToString().c_str());
  CHECK_TRUE(opts.Read(cfg.Section("core"), cfg.name(), ssa::OptionSet::SkipUnknown).size() == 2);
}

TEST(OptionSet, WordsFromAListMatchWithoutRegardToCase) {
  enum class Preload { kNone, kHosts };
  Preload preload = Preload::kHosts;
  std::string mode = "unix";
  bool flag = false;
  ssa::OptionSet opts;
  opts.Enum<Preload>(
      "preload", &preload,
      {{"none", Preload::kNone}, {"no", Preload::kNone}, {"acm_hosts", Preload::kHosts}});
  opts.Choice("server_mode", &mode, {"unix", "loop", "open"});
  opts.Bool("flag", &flag);
  auto notes = opts.Read(
      {{"", "preload", "NO", 1}, {"", "server_mode", "Loop", 2}, {"", "flag", "Yes", 3}}, "t.cfg");
  LONGS_EQUAL(0, notes.size());
  CHECK(preload == Preload::kNone);
  STRCMP_EQUAL("loop", mode.c_str());  // as the list spells it
  CHECK_TRUE(flag);
  // A bad word: the list of the first name of each value.
  notes = opts.Read({{"", "preload", "dns", 4}}, "t.cfg");
  LONGS_EQUAL(1, notes.size());
  STRCMP_EQUAL("t.cfg:4: bad value for 'preload': 'dns' is not one of none|acm_hosts",
               notes[0].ToString().c_str());
}

TEST(OptionSet, NotesCarryFileLineAndSeverityAndUnknownKeysGoToTheReader) {
  std::string path = "/var/lib/x";
  size_t size = 7;
  ssa::OptionSet opts;
  opts.Path("path", &path);
  opts.Int("size", &size, 1, 100);
  std::vector<std::string> keys = opts.Keys();
  LONGS_EQUAL(2, keys.size());
  STRCMP_EQUAL("path", keys[0].c_str());
  std::vector<std::string> unknown;
  auto notes = opts.Read({{"s", "path", "", 1}, {"s", "size", "50", 2}, {"s", "other", "1", 3}},
                         "f.cfg", [&](const ssa::ConfigEntry& e, const std::string& file) {
                           unknown.push_back(file + ":" + e.key);
                           ssa::OptionNote n;
                           n.severity = ssa::OptionNote::Severity::kDebug;
                           n.file = file;
                           n.line = e.line;
                           n.text = "someone else's";
                           return std::optional<ssa::OptionNote>(n);
                         });
  LONGS_EQUAL(50, size);
  STRCMP_EQUAL("/var/lib/x", path.c_str());  // empty is no path
  LONGS_EQUAL(2, notes.size());
  CHECK_TRUE(notes[0].error());
  LONGS_EQUAL(1, notes[0].line);
  STRCMP_EQUAL("f.cfg", notes[0].file.c_str());
  STRCMP_EQUAL("bad value for 'path': empty path", notes[0].text.c_str());
  CHECK_FALSE(notes[1].error());
  STRCMP_EQUAL("f.cfg:3: someone else's", notes[1].ToString().c_str());
  LONGS_EQUAL(1, unknown.size());
  STRCMP_EQUAL("f.cfg:other", unknown[0].c_str());
}

TEST(OptionSet, ParseIntAcceptsHexAndRejectsJunk) {
  int64_t v = 0;
  CHECK_OK(ssa::OptionSet::ParseInt("0xffff", 0, 65535, &v));
  LONGS_EQUAL(65535, v);
  CHECK_FALSE(ssa::OptionSet::ParseInt("12abc", 0, 100, &v).ok());
  CHECK_FALSE(ssa::OptionSet::ParseInt("", 0, 100, &v).ok());
  CHECK_FALSE(ssa::OptionSet::ParseInt("99999999999999999999999", 0, 100, &v).ok());
}
