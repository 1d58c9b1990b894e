// smdb_tool_test.cc: the built ssa-smdb program (util/smdb_tool), run
// end to end on the path-engine test fabric (path_engine_fabric.h) written
// to a file: `dump` lists every table with the fabric's record counts,
// `paths --from all --to all` prints one line per (source, LID) with the
// records derived by hand in path_engine_test.cc, both stable from run to
// run; a truncated file fails naming the table; a wrong command line exits
// 2 with the usage text (man/ssa-smdb.1, EXIT STATUS).
//
// Runs the program with popen; single thread.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/smdb/smdb.h"
#include "test/support/check_ok.h"
#include "test/support/temp_dir.h"
#include "test/unit/path_engine_fabric.h"
#include "test/unit/smdb_test_util.h"

// Last: CppUTest redefines operator new for what follows it.
#include <CppUTest/TestHarness.h>

namespace {

const std::string kTool = std::string(ABS_TOP_BUILDDIR) + "/util/smdb_tool/ssa-smdb";

std::string Quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string ReadText(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

// The value of `key=` in a line of space-separated key=value words.
std::string Field(const std::string& line, const std::string& key) {
  size_t at = line.find(" " + key + "=");
  if (at == std::string::npos) return "";
  at += key.size() + 2;
  return line.substr(at, line.find(' ', at) - at);
}

}  // namespace

TEST_GROUP(SmdbTool) {
  ssa::test::TempDir tmp{"smdb_tool_test."};
  const std::string& dir = tmp.path();
  std::string file, err_file;

  void setup() override {
    CHECK_OK(tmp.status());
    file = dir + "/fabric.smdb";
    err_file = dir + "/stderr";
    ssa::smdb::Smdb db = path_engine_test::TwoSwitchFabric();
    db.global_epoch = 7;
    ssa::Status st = db.WriteFile(file);
    CHECK_OK(st);
  }
  // Runs ssa-smdb with `args`; returns its exit status (-1 if it did not
  // exit normally), its stdout in *out and its stderr in *err.
  int Run(const std::vector<std::string>& args, std::string* out, std::string* err) {
    std::string cmd = Quoted(kTool);
    for (const std::string& a : args) cmd += " " + Quoted(a);
    cmd += " 2>" + Quoted(err_file);
    FILE* p = popen(cmd.c_str(), "r");
    CHECK_TEXT(p != nullptr, cmd.c_str());
    out->clear();
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out->append(buf, n);
    int status = pclose(p);
    *err = ReadText(err_file);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
};

TEST(SmdbTool, DumpListsEveryTableWithTheFabricsRecords) {
  std::string out, err;
  CHECK_EQUAL_TEXT(0, Run({"dump", file}, &out, &err), err.c_str());
  STRCMP_EQUAL("", err.c_str());
  std::vector<std::string> lines = Lines(out);
  CHECK(!lines.empty());
  STRCMP_EQUAL("smdb global_epoch=7 tables=19", lines[0].c_str());

  // Counted from the drawing in path_engine_fabric.h: 10 CAs and 2
  // switches; their ports (CA port 1, switch port 0, S1's 6 and S2's 8
  // external ports); 11 cables, both directions; one LFT block (LIDs
  // below 64) per switch; 4 P_Key tables, 2 partitions.
  const std::map<std::string, size_t> want = {{"subnet", 1},          {"guid_lids", 12},
                                              {"nodes", 12},          {"ports", 10 + 2 + 6 + 8},
                                              {"links", 2 * 11},      {"switches", 2},
                                              {"lft_blocks", 2},      {"pkey_blocks", 4},
                                              {"partitions", 2},      {"prefix_routes", 0},
                                              {"qos_levels", 0},      {"qos_groups", 0},
                                              {"qos_group_ports", 0}, {"qos_rules", 0},
                                              {"qos_rule_groups", 0}, {"qos_ranges", 0},
                                              {"route_sls", 0},       {"route_sl_hints", 0},
                                              {"sl2vl_drops", 0}};
  // Record names as the format spec (smdb_records.h) gives them.
  const std::map<std::string, std::string> record = {{"subnet", "subnet"},
                                                     {"guid_lids", "guid_lid"},
                                                     {"nodes", "node"},
                                                     {"ports", "port"},
                                                     {"links", "link"},
                                                     {"switches", "switch"},
                                                     {"lft_blocks", "lft_block"},
                                                     {"pkey_blocks", "pkey_block"},
                                                     {"partitions", "partition"},
                                                     {"prefix_routes", "prefix_route"},
                                                     {"qos_levels", "qos_level"},
                                                     {"qos_groups", "qos_group"},
                                                     {"qos_group_ports", "qos_group_port"},
                                                     {"qos_rules", "qos_rule"},
                                                     {"qos_rule_groups", "qos_rule_group"},
                                                     {"qos_ranges", "qos_range"},
                                                     {"route_sls", "route_sl"},
                                                     {"route_sl_hints", "route_sl_hint"},
                                                     {"sl2vl_drops", "sl2vl_drop"}};
  std::map<std::string, size_t> header_count, line_count;
  std::string table;
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    if (l.compare(0, 6, "table ") == 0) {
      table = l.substr(6, l.find(' ', 6) - 6);
      CHECK_TEXT(!header_count.count(table), l.c_str());
      header_count[table] = strtoul(Field(l, "records").c_str(), nullptr, 10);
      line_count[table] = 0;
    } else {
      CHECK_TEXT(!table.empty(), l.c_str());
      STRCMP_EQUAL_TEXT(record.at(table).c_str(), l.substr(0, l.find(' ')).c_str(), l.c_str());
      ++line_count[table];
    }
  }
  CHECK_EQUAL(want.size(), header_count.size());
  for (const auto& kv : want) {
    CHECK_EQUAL_TEXT(kv.second, header_count[kv.first], kv.first.c_str());
    CHECK_EQUAL_TEXT(kv.second, line_count[kv.first], kv.first.c_str());
  }
  // Values as the builder set them.
  CHECK_TEXT(out.find("\nswitch node_guid=0x0000000000001000 ") != std::string::npos, out.c_str());
  CHECK_TEXT(out.find(" lin_fdb_top=63 ") != std::string::npos, out.c_str());
  CHECK_TEXT(out.find("\nlink node_guid=0x0000000000001000 port_num=5 "
                      "peer_node_guid=0x0000000000002000 peer_port_num=5\n") != std::string::npos,
             out.c_str());
  CHECK_TEXT(out.find("\npartition pkey=0x0002 sl=5 ") != std::string::npos, out.c_str());

  std::string again;
  CHECK_EQUAL(0, Run({"dump", file}, &again, &err));
  CHECK_TRUE(out == again);
}

TEST(SmdbTool, PathsFromAllToAllPrintsEveryPairWithTheSaRecords) {
  std::string out, err;
  CHECK_EQUAL_TEXT(0, Run({"paths", file, "--from", "all", "--to", "all", "--stats"}, &out, &err),
                   err.c_str());
  // From each of the 12 ports' base LIDs to all 14 LIDs (A and C have 2).
  const std::set<std::string> sources = {"1",  "2",  "10", "12", "13", "14",
                                         "16", "18", "20", "22", "30", "40"};
  std::vector<std::string> lines = Lines(out);
  CHECK_EQUAL(12u * 14u, lines.size());
  std::map<std::string, std::set<std::string>> dlids;
  for (const std::string& l : lines) {
    STRCMP_EQUAL_TEXT("path", l.substr(0, 4).c_str(), l.c_str());
    dlids[Field(l, "slid")].insert(Field(l, "dlid"));
  }
  CHECK_EQUAL(sources.size(), dlids.size());
  for (const auto& kv : dlids) {
    CHECK_TEXT(sources.count(kv.first), kv.first.c_str());
    CHECK_EQUAL_TEXT(14u, kv.second.size(), kv.first.c_str());
  }
  // A -> C's first LID over the fast p5 link, and A -> F, which S1 does
  // not route (path_engine_test.cc derives both by hand).
  const std::string a_to_c =
      "path slid=10 dlid=16 status=ok sgid=fe80::a1 dgid=fe80::c1 pkey=0x8002 sl=5 mtu=4 rate=4 "
      "packet_life=18 hop_limit=0 tclass=0 flow_label=0x00000 reversible=1 preference=0\n";
  CHECK_TEXT(out.find(a_to_c) != std::string::npos, out.c_str());
  CHECK_TEXT(out.find("\npath slid=10 dlid=20 status=no-route\n") != std::string::npos,
             out.c_str());
  CHECK_TEXT(err.find("paths: total=168 ") != std::string::npos, err.c_str());

  std::string again;
  CHECK_EQUAL(0, Run({"paths", file, "--from", "all", "--to", "all"}, &again, &err));
  STRCMP_EQUAL("", err.c_str());
  CHECK_TRUE(out == again);
}

// --dgid: each source asks by its GID and the DGID; a DGID of another
// subnet goes through the router port the prefix routes name, HopLimit
// 255, and fails naming the DGID when no route leads to a router.
TEST(SmdbTool, PathsToDgidsOfAnotherSubnetGoThroughTheRouter) {
  std::string out, err;
  CHECK_EQUAL_TEXT(
      0, Run({"paths", file, "--from", "10", "--dgid", "2001:db8::1,fe80::c1"}, &out, &err),
      err.c_str());
  STRCMP_EQUAL(
      "path slid=10 dlid=0 status=no-router dgid=2001:db8::1\n"
      "path slid=10 dlid=16 status=ok sgid=fe80::a1 dgid=fe80::c1 pkey=0x8002 sl=5 mtu=4 rate=4 "
      "packet_life=18 hop_limit=0 tclass=0 flow_label=0x00000 reversible=1 preference=0\n",
      out.c_str());

  // A router (port GUID 0x..a01, LID 50) on S1's port 4, every prefix to it.
  path_engine_test::FabricBuilder f;
  f.db() = path_engine_test::TwoSwitchFabric();
  f.Router(0x0100000000000a00, 50, 5, path_engine_test::k4x, path_engine_test::kQdr, 1);
  f.SwitchPort(path_engine_test::S1, 4, 5, path_engine_test::k4x, path_engine_test::kQdr, 0);
  f.Link(0x0100000000000a00, 1, path_engine_test::S1, 4);
  f.Route(path_engine_test::S1, 50, 4);
  f.PrefixRoute(0, 0);
  f.db().SortRecords();
  std::string routed = dir + "/routed.smdb";
  CHECK_OK(f.db().WriteFile(routed));
  CHECK_EQUAL_TEXT(0, Run({"paths", routed, "--from", "10", "--dgid", "2001:db8::1"}, &out, &err),
                   err.c_str());
  STRCMP_EQUAL(
      "path slid=10 dlid=50 status=ok sgid=fe80::a1 dgid=2001:db8::1 pkey=0x8002 sl=5 mtu=5 "
      "rate=7 packet_life=18 hop_limit=255 tclass=0 flow_label=0x00000 reversible=1 "
      "preference=0\n",
      out.c_str());
}

TEST(SmdbTool, TruncatedFileFailsNamingTheTable) {
  std::string bytes = ReadText(file);
  const smdb_test::Section* nodes = nullptr;
  std::vector<smdb_test::Section> sections = smdb_test::Sections(bytes);
  for (const auto& s : sections)
    if (s.id == ssa::smdb::SmdbNode::kTableId) nodes = &s;
  CHECK(nodes != nullptr);
  std::string cut = dir + "/truncated.smdb";
  std::ofstream(cut, std::ios::binary) << bytes.substr(0, nodes->payload + nodes->record_size + 5);
  const std::vector<std::vector<std::string>> commands = {{"dump", cut},
                                                          {"paths", cut, "--from", "all"}};
  for (const auto& args : commands) {
    const char* command = args[0].c_str();
    std::string out, err;
    CHECK_EQUAL_TEXT(2, Run(args, &out, &err), err.c_str());
    STRCMP_EQUAL_TEXT("", out.c_str(), command);
    CHECK_TEXT(err.find("table 'nodes'") != std::string::npos, err.c_str());
    CHECK_TEXT(err.find("truncated") != std::string::npos, err.c_str());
    CHECK_TEXT(err.find(cut) != std::string::npos, err.c_str());
  }
}

TEST(SmdbTool, WrongUsageExits2WithTheUsage) {
  const std::string usage = "usage: ssa-smdb dump FILE\n";
  struct Case {
    std::vector<std::string> args;
    std::string message;  // before the usage text
  };
  const Case cases[] = {
      {{}, ""},
      {{"dump"}, ""},
      {{"paths", file}, "ssa-smdb: paths needs --from\n"},
      {{"paths", file, "--from", "all", "--bogus"}, "ssa-smdb: unknown option '--bogus'\n"},
      {{"paths", file, "--from"}, "ssa-smdb: --from needs a value\n"},
      {{"paths", file, "--from", "all", "--requester", "0xc000"},
       "ssa-smdb: --requester needs a number in 1..49151\n"},
      {{"paths", file, "--from", "all", "--dgid", "10.0.0.1"},
       "ssa-smdb: --dgid: '10.0.0.1' is not a GID\n"},
      {{"paths", file, "--from", "all", "--dgid"}, "ssa-smdb: --dgid needs a value\n"},
      {{"frob", file}, "ssa-smdb: unknown command 'frob'\n"},
  };
  for (const Case& c : cases) {
    std::string out, err, what;
    for (const std::string& a : c.args) what += a + " ";
    CHECK_EQUAL_TEXT(2, Run(c.args, &out, &err), what.c_str());
    STRCMP_EQUAL_TEXT("", out.c_str(), what.c_str());
    STRCMP_EQUAL_TEXT(c.message.c_str(), err.substr(0, c.message.size()).c_str(), what.c_str());
    CHECK_TEXT(err.compare(c.message.size(), usage.size(), usage) == 0, (what + err).c_str());
  }
  // Asked for, the usage goes to stdout with status 0.
  std::string out, err;
  CHECK_EQUAL(0, Run({"--help"}, &out, &err));
  CHECK_TEXT(out.compare(0, usage.size(), usage) == 0, out.c_str());
  STRCMP_EQUAL("", err.c_str());
}

// Off the fabric compare cannot ask the SA: it says so in words and what
// works without a port, never libibumad's default device name.
TEST(SmdbTool, CompareOffTheFabricSaysThereIsNoPortAndWhatWorksWithout) {
  if (access("/sys/class/infiniband_mad", F_OK) == 0) {
    printf("\nskipped: this host has InfiniBand devices\n");
    return;
  }
  std::string out, err;
  CHECK_TEXT(Run({"compare", file, "--from", "all"}, &out, &err) != 0, err.c_str());
  CHECK_TEXT(err.find("no InfiniBand device on this host") != std::string::npos, err.c_str());
  CHECK_TEXT(err.find("ssa-smdb dump and paths read saved files") != std::string::npos,
             err.c_str());
  CHECK_TEXT(err.find("mthca0") == std::string::npos, err.c_str());
}
