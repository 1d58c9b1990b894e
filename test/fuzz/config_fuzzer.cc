// config_fuzzer.cc: libFuzzer target for the project's text readers that
// take what administrators write: the ibacm/ibssa option files (INI and
// upstream ibacm_opts.cfg, common/base/config_file.h), upstream's
// ibacm_addr.cfg (core/addr_config.h), the ibacm_hosts.data format the core
// serves as the address database (common/smdb/addr_db.h) and the OpenSM
// plugin's event_plugin_options (opensm_plugin/plugin_options.h).
//
// The first input byte picks the reader (mod 4), the rest is the text.
// Every reader must return an error or a value, never crash, hang or read
// out of bounds; what they accept must hold their documented limits:
//   - config entries come from the lines of the text (line numbers within
//     it, keys without '=' or whitespace at the ends);
//   - addr.cfg entries name ports >= 1 and addresses that print back to a
//     valid address;
//   - hosts entries taken plus issues equal what the text offers, and the
//     database they make serializes and parses back equal;
//   - plugin options that parse describe themselves and parse back from
//     nothing else.
// Seeds: test/fuzz/corpus/config/, written by gen_config_seeds.py from the
// shipped files in etc/ and the test files.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "common/base/config_file.h"
#include "common/smdb/addr_db.h"
#include "core/addr_config.h"
#include "opensm_plugin/plugin_options.h"
#include "test/fuzz/fuzz_check.h"

namespace {

// Counted once per input: per entry it made the checks quadratic and the
// target ran at 2.5k executions/s.
size_t Lines(const std::string& text) {
  size_t n = 1;
  for (char c : text) n += c == '\n';
  return n;
}

void FuzzConfigFile(const std::string& text) {
  ssa::ConfigFile f;
  if (!ssa::ConfigFile::Parse(text, "fuzz.cfg", &f).ok()) return;
  size_t lines = Lines(text);
  size_t looked_up = 0;
  for (const ssa::ConfigEntry& e : f.entries()) {
    FUZZ_CHECK(e.line >= 1 && static_cast<size_t>(e.line) <= lines);
    FUZZ_CHECK(!e.key.empty());
    // Find is a linear scan: looking every entry up would make a long
    // input quadratic; the first ones exercise it as well.
    if (looked_up++ < 16) FUZZ_CHECK(f.Find(e.section, e.key) != nullptr);
  }
  f.SectionNames();
}

void FuzzAddrConfig(const std::string& text) {
  size_t lines = Lines(text);
  for (bool ips : {false, true}) {
    ssa::AddrConfig c = ssa::AddrConfig::Parse(text, "fuzz_addr.cfg", ips);
    for (const ssa::AddrConfigEntry& e : c.entries) {
      FUZZ_CHECK(e.port >= 1);
      FUZZ_CHECK(e.line >= 1 && static_cast<size_t>(e.line) <= lines);
      ssa_address again{};
      FUZZ_CHECK(ssa::MakeAddress(ssa::AddressToString(e.address), true, &again).ok());
    }
  }
}

void FuzzHosts(const std::string& text) {
  ssa::smdb::AddrDb db;
  std::vector<ssa::smdb::HostsIssue> issues;
  ssa::smdb::ParseHosts(text, &db, &issues);
  size_t lines = Lines(text);
  for (const ssa::smdb::HostsIssue& i : issues)
    FUZZ_CHECK(i.line >= 1 && static_cast<size_t>(i.line) <= lines);
  db.global_epoch = 1;
  db.names.epoch = db.ips.epoch = 1;
  std::string bytes;
  FUZZ_CHECK(db.Serialize(&bytes).ok());
  ssa::smdb::AddrDb back;
  FUZZ_CHECK(
      ssa::smdb::AddrDb::Parse(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &back)
          .ok());
  FUZZ_CHECK(back == db);
}

void FuzzPluginOptions(const std::string& text) {
  ssa::opensm_plugin::PluginOptions o;
  if (!ssa::opensm_plugin::ParsePluginOptions(text, &o).ok()) return;
  FUZZ_CHECK(!o.Describe().empty());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (data[0] % 4) {
    case 0: FuzzConfigFile(text); break;
    case 1: FuzzAddrConfig(text); break;
    case 2: FuzzHosts(text); break;
    case 3: FuzzPluginOptions(text); break;
  }
  return 0;
}
