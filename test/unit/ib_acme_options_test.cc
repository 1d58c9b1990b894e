// ib_acme_options_test.cc: the command line, upstream's rules and ours.
#include <string>
#include <vector>

#include "util/ib_acme/acme_options.h"

// Last: CppUTest redefines new for leak checking.
#include <CppUTest/TestHarness.h>

using ssa::acme::AcmeOptions;
using ssa::acme::AddrFormat;
using ssa::acme::ParseOutcome;
using ssa::acme::PerfMode;
using ssa::acme::VerifyMode;

namespace {

// Runs the parser over "ib_acme <args...>" (getopt permutes its argv, so
// the words live in a vector of our own).
ParseOutcome Parse(std::vector<std::string> args, AcmeOptions* out, std::string* error = nullptr) {
  args.insert(args.begin(), "ib_acme");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(&a[0]);
  argv.push_back(nullptr);
  std::string scratch;
  return ssa::acme::ParseAcmeOptions(static_cast<int>(args.size()), argv.data(), out,
                                     error ? error : &scratch, false);
}

}  // namespace

TEST_GROUP(IbAcmeOptions) { AcmeOptions o; };

TEST(IbAcmeOptions, NothingToDoIsUsage) {
  CHECK(Parse({}, &o) == ParseOutcome::kUsage);
  CHECK(Parse({"-V"}, &o) == ParseOutcome::kUsage);
  CHECK(Parse({"-h"}, &o) == ParseOutcome::kUsage);
}

TEST(IbAcmeOptions, UpstreamDefaults) {
  CHECK(Parse({"-e"}, &o) == ParseOutcome::kRun);
  STRCMP_EQUAL("/run/ibacm-unix.sock", o.svc_arg.c_str());
  STRCMP_EQUAL("/etc/rdma", o.dest_dir.c_str());
  STRCMP_EQUAL("ibacm_addr.cfg", o.addr_file.c_str());
  STRCMP_EQUAL("ibacm_opts.cfg", o.opts_file.c_str());
  CHECK(o.addr_format == AddrFormat::kUnspecified);
  LONGS_EQUAL(1, o.repetitions);
  LONGS_EQUAL(0, o.ep_index);
  CHECK_TRUE(o.enum_ep);
}

TEST(IbAcmeOptions, OptionalArgumentsAttachedOrNextWord) {
  CHECK(Parse({"-e", "2"}, &o) == ParseOutcome::kRun);
  LONGS_EQUAL(2, o.ep_index);
  CHECK(Parse({"-e3"}, &o) == ParseOutcome::kRun);
  LONGS_EQUAL(3, o.ep_index);
  // The next word starts with '-': no argument.
  CHECK(Parse({"-e", "-P"}, &o) == ParseOutcome::kRun);
  LONGS_EQUAL(0, o.ep_index);
  CHECK(o.perf == PerfMode::kRow);
  CHECK(Parse({"-A", "my.cfg", "-O"}, &o) == ParseOutcome::kRun);
  STRCMP_EQUAL("my.cfg", o.addr_file.c_str());
  STRCMP_EQUAL("ibacm_opts.cfg", o.opts_file.c_str());
  CHECK_TRUE(o.make_addr && o.make_opts);
  CHECK(Parse({"-Oo.cfg", "-D", "/tmp/x"}, &o) == ParseOutcome::kRun);
  STRCMP_EQUAL("o.cfg", o.opts_file.c_str());
  STRCMP_EQUAL("/tmp/x", o.dest_dir.c_str());
}

TEST(IbAcmeOptions, PerfArguments) {
  CHECK(Parse({"-P"}, &o) == ParseOutcome::kRun);
  CHECK(o.perf == PerfMode::kRow);
  CHECK(Parse({"-P", "col"}, &o) == ParseOutcome::kRun);
  CHECK(o.perf == PerfMode::kColumn);
  CHECK(Parse({"-PCOLUMN"}, &o) == ParseOutcome::kRun);
  CHECK(o.perf == PerfMode::kColumn);
  CHECK(Parse({"-P", "all"}, &o) == ParseOutcome::kRun);
  CHECK(o.perf == PerfMode::kAllEndpoints);
  CHECK(Parse({"-P", "2"}, &o) == ParseOutcome::kRun);
  CHECK(o.perf == PerfMode::kEndpointIndex);
  LONGS_EQUAL(2, o.ep_index);
  CHECK(Parse({"-P", "0"}, &o) == ParseOutcome::kRun);
  CHECK(o.perf == PerfMode::kRow);
  CHECK(Parse({"-P", "co"}, &o) == ParseOutcome::kRun);  // not "col": row
  CHECK(o.perf == PerfMode::kRow);
  // -P s needs -s, and -s alone needs -d or -P s.
  CHECK(Parse({"-P", "s"}, &o) == ParseOutcome::kUsage);
  CHECK(Parse({"-P", "s", "-s", "node1"}, &o) == ParseOutcome::kRun);
  CHECK(o.perf == PerfMode::kEndpointAddress);
  CHECK(Parse({"-s", "node1"}, &o) == ParseOutcome::kUsage);
  CHECK(Parse({"-s", "node1", "-P"}, &o) == ParseOutcome::kUsage);
}

TEST(IbAcmeOptions, ResolveOptions) {
  CHECK(Parse({"-f", "l", "-s", "1", "-d", "[2-3]", "-v", "-c", "-C", "0", "-S", "/x.sock"}, &o) ==
        ParseOutcome::kRun);
  CHECK(o.addr_format == AddrFormat::kLid);
  STRCMP_EQUAL("1", o.src_arg.c_str());
  STRCMP_EQUAL("[2-3]", o.dest_arg.c_str());
  CHECK_TRUE(o.verify && o.nodelay && o.has_src && o.has_dest);
  LONGS_EQUAL(1, o.repetitions);  // -C 0 means once
  STRCMP_EQUAL("/x.sock", o.svc_arg.c_str());
  CHECK(Parse({"-d", "1", "-C", "5x"}, &o) == ParseOutcome::kRun);
  LONGS_EQUAL(5, o.repetitions);
  // Only i, n, l and g: even 'u' is refused, as upstream.
  CHECK(Parse({"-f", "u", "-d", "1"}, &o) == ParseOutcome::kUsage);
  CHECK(Parse({"-f", "gid", "-d", "fe80::1"}, &o) == ParseOutcome::kRun);
  CHECK(o.addr_format == AddrFormat::kGid);
  // Stray words are ignored (getopt moves them to the end).
  CHECK(Parse({"-d", "1", "stray"}, &o) == ParseOutcome::kRun);
  STRCMP_EQUAL("1", o.dest_arg.c_str());
}

TEST(IbAcmeOptions, ProviderTesting) {
  std::string error;
  CHECK(Parse({"-T"}, &o, &error) == ParseOutcome::kUsage);
  STRCMP_CONTAINS("needs destinations", error.c_str());
  CHECK(Parse({"--lid-range", "1-6"}, &o) == ParseOutcome::kRun);
  CHECK_TRUE(o.test.enabled);
  CHECK_TRUE(o.test.has_lid_range);
  LONGS_EQUAL(1, o.test.lid_first);
  LONGS_EQUAL(6, o.test.lid_last);
  CHECK(o.test.verify == VerifyMode::kSa);
  LONGS_EQUAL(5000, o.test.timeout_ms);
  CHECK(Parse({"--lid-range", "0x10"}, &o) == ParseOutcome::kRun);
  LONGS_EQUAL(16, o.test.lid_first);
  LONGS_EQUAL(16, o.test.lid_last);
  CHECK(Parse({"--lid-range", "6-1"}, &o) == ParseOutcome::kUsage);
  CHECK(Parse({"--lid-range", "0-3"}, &o) == ParseOutcome::kUsage);
  CHECK(Parse({"--lid-range", "1-0xc000"}, &o) == ParseOutcome::kUsage);
  CHECK(Parse({"-T", "-d", "node[1-3]", "-f", "n", "--verify", "daemon", "--timeout", "100"}, &o) ==
        ParseOutcome::kRun);
  CHECK(o.test.verify == VerifyMode::kDaemon);
  LONGS_EQUAL(100, o.test.timeout_ms);
  CHECK(Parse({"--dest-file", "f", "--hosts", "h", "--verify", "none", "--sa-port", "mlx5_0:1"},
              &o) == ParseOutcome::kRun);
  STRCMP_EQUAL("f", o.test.dest_file.c_str());
  STRCMP_EQUAL("h", o.test.hosts_file.c_str());
  CHECK(o.test.verify == VerifyMode::kNone);
  STRCMP_EQUAL("mlx5_0:1", o.test.sa_port.c_str());
  CHECK(Parse({"-T", "-d", "1", "--verify", "maybe"}, &o) == ParseOutcome::kUsage);
  CHECK(Parse({"-T", "-d", "1", "--sa-port", "mlx5_0"}, &o) == ParseOutcome::kUsage);
  CHECK(Parse({"-T", "-d", "1", "--timeout", "0"}, &o) == ParseOutcome::kUsage);
  // -s without -d is fine when other destinations are given.
  CHECK(Parse({"-T", "-s", "2", "--lid-range", "1-2"}, &o) == ParseOutcome::kRun);
  CHECK(Parse({"-T", "-d", "1", "-P"}, &o) == ParseOutcome::kUsage);
  CHECK(Parse({"-T", "-d", "1", "-e"}, &o) == ParseOutcome::kUsage);
}

TEST(IbAcmeOptions, HelpAndRepeatedParsing) {
  CHECK(Parse({"--help"}, &o) == ParseOutcome::kHelp);
  // The parser resets getopt: a second run sees all of its words.
  CHECK(Parse({"-e", "4"}, &o) == ParseOutcome::kRun);
  LONGS_EQUAL(4, o.ep_index);
  CHECK(Parse({"-e", "5"}, &o) == ParseOutcome::kRun);
  LONGS_EQUAL(5, o.ep_index);
}
