// The shipped options template (etc/acm_opts.cfg, also what `ib_acme -O`
// writes) is read by the daemon and by the shipped providers without a
// single warning: every key in it is one somebody reads, every value valid.
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "core/daemon.h"
#include "test/support/check_ok.h"
#include "test/support/temp_dir.h"

// Last: CppUTest redefines new for leak checking.
#include <CppUTest/TestHarness.h>

TEST_GROUP(ShippedConfig) {
  ssa::test::TempDir tmp{"ssa-shipped-"};
  const std::string& dir = tmp.path();
  void setup() override { CHECK_OK(tmp.status()); }
  void teardown() override { CHECK_OK(tmp.Remove()); }
};

TEST(ShippedConfig, TheTemplateIsReadByTheCoreAndEveryProviderWithoutWarnings) {
  // The providers in one directory, as installed.
  const std::string prov_dir = dir + "/providers";
  CHECK_EQUAL(0, mkdir(prov_dir.c_str(), 0755));
  for (const char* p : {"sa/.libs/sa.so", "acmp/.libs/acmp.so", "ssa/.libs/ssa.so"}) {
    std::string target = std::string(TEST_PROVIDER_DIR "/../../providers/") + p;
    std::string link = prov_dir + "/" + target.substr(target.rfind('/') + 1);
    CHECK_EQUAL(0, symlink(target.c_str(), link.c_str()));
  }
  ssa::Daemon::Settings s;
  s.opts_file = ABS_TOP_SRCDIR "/etc/acm_opts.cfg";
  s.opts_file_given = true;
  s.run_dir = dir;
  s.provider_dir = prov_dir;
  s.log_target = dir + "/ibacm.log";
  s.discover = [](std::vector<ssa::UmadPort>* out) {
    out->clear();  // no ports: only configuration is exercised
    return ssa::Status::Ok();
  };
  {
    ssa::Daemon daemon(s);
    ssa::Status st = daemon.Start();
    CHECK_OK(st);
    daemon.Shutdown();
  }
  std::ifstream in(dir + "/ibacm.log");
  std::stringstream log;
  log << in.rdbuf();
  const std::string text = log.str();
  STRCMP_CONTAINS("acm_opts.cfg", text.c_str());     // it logged what it read
  STRCMP_CONTAINS("provider 'acmp'", text.c_str());  // every provider loaded
  STRCMP_CONTAINS("provider 'ssa'", text.c_str());
  CHECK_TEXT(text.find("unknown option") == std::string::npos, text.c_str());
  CHECK_TEXT(text.find("bad value") == std::string::npos, text.c_str());
  // Config warnings name the file and line ("acm_opts.cfg:12: ...").
  CHECK_TEXT(!std::regex_search(text, std::regex("acm_opts\\.cfg:[0-9]")), text.c_str());
  CHECK_TEXT(text.find(" error: ") == std::string::npos, text.c_str());
}
