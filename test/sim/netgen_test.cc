// netgen_test.cc: unit tests of the net file generators (no simulator needed).
#include "test/sim/netgen.h"

#include <map>
#include <queue>
#include <set>
#include <string>
#include <utility>

#include "test/sim/sim_test_util.h"
#include "test/sim/sim_util.h"
#include "test/support/check_ok.h"

#include <CppUTest/TestHarness.h>

using ssa::test::FatTreeNet;
using ssa::test::FatTreeOptions;
using ssa::test::GeneratedNet;
using ssa::test::NetDescription;
using ssa::test::NetLink;
using ssa::test::ParseNet;

namespace {

using PortKey = std::pair<std::string, int>;

// Every link line must have the mirror line on the other end, with the same
// options (ibsim panics on ends that share no width or speed).
void CheckLinksSymmetric(const NetDescription& net) {
  std::map<PortKey, const NetLink*> by_port;
  for (const NetLink& l : net.links) {
    CHECK_TEXT(by_port.emplace(PortKey(l.node, l.port), &l).second,
               ("port used twice: " + l.node + "[" + std::to_string(l.port) + "]").c_str());
  }
  for (const NetLink& l : net.links) {
    auto it = by_port.find(PortKey(l.remote, l.remote_port));
    CHECK_TEXT(it != by_port.end(),
               ("no mirror for " + l.node + "[" + std::to_string(l.port) + "]").c_str());
    STRCMP_EQUAL(l.node.c_str(), it->second->remote.c_str());
    CHECK_EQUAL(l.port, it->second->remote_port);
    STRCMP_EQUAL(l.options.c_str(), it->second->options.c_str());
  }
}

// Number of nodes reachable from the first one.
size_t Reachable(const NetDescription& net) {
  std::multimap<std::string, std::string> adj;
  for (const NetLink& l : net.links) adj.emplace(l.node, l.remote);
  std::set<std::string> seen{net.nodes.front().name};
  std::queue<std::string> todo;
  todo.push(net.nodes.front().name);
  while (!todo.empty()) {
    auto range = adj.equal_range(todo.front());
    todo.pop();
    for (auto it = range.first; it != range.second; ++it)
      if (seen.insert(it->second).second) todo.push(it->second);
  }
  return seen.size();
}

NetDescription Parse(const std::string& text) {
  NetDescription net;
  CHECK_OK(ParseNet(text, &net));
  return net;
}

}  // namespace

TEST_GROUP(NetGen){};

TEST(NetGen, FourHcaNetMatchesDataFile) {
  std::string file;
  CHECK_OK(ssa::test::ReadFileToString(std::string(SIM_NETS_DIR) + "/4hca.net", &file));
  STRCMP_EQUAL(ssa::test::FourHcaNet().c_str(), file.c_str());
}

TEST(NetGen, FourHcaShape) {
  NetDescription net = Parse(ssa::test::FourHcaNet());
  CHECK_EQUAL(6u, net.nodes.size());
  STRCMP_EQUAL("Hca1", net.nodes.front().name.c_str());
  int hcas = 0, isl = 0;
  for (const auto& n : net.nodes)
    if (!n.is_switch) {
      ++hcas;
      CHECK_EQUAL(1, n.ports);
    }
  for (const NetLink& l : net.links)
    if (l.node == "Switch1" && l.remote == "Switch2") ++isl;
  CHECK_EQUAL(4, hcas);
  CHECK_EQUAL(2, isl);
  CheckLinksSymmetric(net);
  CHECK_EQUAL(6u, Reachable(net));
}

TEST(NetGen, FatTreeCountsAndNames) {
  FatTreeOptions o;
  o.hcas = 40;
  GeneratedNet g;
  CHECK_OK(FatTreeNet(o, &g));
  CHECK_EQUAL(3, g.leaves);   // ceil(40 / 18)
  CHECK_EQUAL(18, g.spines);  // one per uplink
  CHECK_EQUAL(3, g.spine_radix);
  CHECK_EQUAL(40 + 3 + 18, g.nodes);
  CHECK_EQUAL(40 + 3 * 37 + 18 * 4, g.ports);
  CHECK_TRUE(g.ibsim_args.empty());

  NetDescription net = Parse(g.text);
  CHECK_EQUAL(static_cast<size_t>(g.nodes), net.nodes.size());
  STRCMP_EQUAL("Hca1", net.nodes.front().name.c_str());
  for (int i = 1; i <= 40; ++i) {
    const auto* n = net.FindNode("Hca" + std::to_string(i));
    CHECK_TEXT(n != nullptr, ("missing Hca" + std::to_string(i)).c_str());
    CHECK_FALSE(n->is_switch);
    CHECK_EQUAL(1, n->ports);
  }
  CHECK_TRUE(net.FindNode("Hca41") == nullptr);
  CHECK_TRUE(net.FindNode("L3") != nullptr && net.FindNode("L3")->is_switch);
  CHECK_TRUE(net.FindNode("S18") != nullptr);
  // 40 HCA links + 3 leaves * 18 uplinks, each written on both ends.
  CHECK_EQUAL(static_cast<size_t>(2 * (40 + 3 * 18)), net.links.size());
  CheckLinksSymmetric(net);
  CHECK_EQUAL(net.nodes.size(), Reachable(net));
}

TEST(NetGen, SmallTreeWithMoreSpinesThanUplinksStaysConnected) {
  FatTreeOptions o;
  o.hcas = 12;
  o.hcas_per_leaf = 3;
  o.uplinks_per_leaf = 2;
  o.spines = 3;
  o.leaf_radix = 8;
  GeneratedNet g;
  CHECK_OK(FatTreeNet(o, &g));
  CHECK_EQUAL(4, g.leaves);
  NetDescription net = Parse(g.text);
  CheckLinksSymmetric(net);
  CHECK_EQUAL(net.nodes.size(), Reachable(net));
}

TEST(NetGen, LargeTreeGetsIbsimLimits) {
  FatTreeOptions o;
  o.hcas = 10000;
  GeneratedNet g;
  // 556 leaves on 18 spines would need 556 ports per spine.
  CHECK_FALSE(FatTreeNet(o, &g).ok());
  o.spines = 54;
  CHECK_OK(FatTreeNet(o, &g));
  CHECK_EQUAL(556, g.leaves);
  CHECK_TRUE(g.spine_radix <= 254);
  std::map<std::string, int> args;
  for (size_t i = 0; i + 1 < g.ibsim_args.size(); i += 2)
    args[g.ibsim_args[i]] = std::stoi(g.ibsim_args[i + 1]);
  CHECK_TRUE(args["-N"] >= g.nodes);
  CHECK_TRUE(args["-S"] >= g.switches);
  CHECK_TRUE(args["-P"] >= g.ports);
  CHECK_EQUAL(static_cast<size_t>(g.nodes), Parse(g.text).nodes.size());
}

TEST(NetGen, RejectsWhatIbsimCannotBuild) {
  GeneratedNet g;
  FatTreeOptions o;
  CHECK_FALSE(FatTreeNet(o, &g).ok());  // no HCAs
  o.hcas = 10;
  o.hcas_per_leaf = 30;
  o.uplinks_per_leaf = 10;
  CHECK_FALSE(FatTreeNet(o, &g).ok());  // 40 ports on a 36-port leaf
  o.hcas_per_leaf = 2;
  o.uplinks_per_leaf = 1;
  o.spines = 3;
  CHECK_FALSE(FatTreeNet(o, &g).ok());  // spines without links
  o.spines = 0;
  o.hcas = 1000;
  o.hcas_per_leaf = 1;
  CHECK_FALSE(FatTreeNet(o, &g).ok());  // 1000 ports on the one spine
}

TEST(NetGen, MixedTreeWritesMatchingOptionsOnBothEnds) {
  FatTreeOptions o;
  o.hcas = 12;
  o.hcas_per_leaf = 6;
  o.uplinks_per_leaf = 2;
  o.mixed_links = true;
  GeneratedNet g;
  CHECK_OK(FatTreeNet(o, &g));
  NetDescription net = Parse(g.text);
  CheckLinksSymmetric(net);
  std::set<std::string> kinds;
  for (const NetLink& l : net.links) {
    CHECK_TEXT(!l.options.empty(), ("no options on " + l.node).c_str());
    kinds.insert(l.options);
  }
  CHECK_TRUE(kinds.count("w=1 s=3") == 1);      // 1x DDR
  CHECK_TRUE(kinds.count("w=2 s=7 e=1") == 1);  // 4x FDR
  CHECK_TRUE(kinds.count("w=8 s=1") == 1);      // 12x SDR
  CHECK_TRUE(kinds.size() >= 6);

  // Without --mixed no options at all: ibsim's 4x SDR.
  o.mixed_links = false;
  CHECK_OK(FatTreeNet(o, &g));
  for (const NetLink& l : Parse(g.text).links) STRCMP_EQUAL("", l.options.c_str());
}

TEST(NetGen, ParseNetReadsOptionsAndRejectsDuplicates) {
  NetDescription net;
  CHECK_OK(ParseNet(
      "Hca 1 \"A\"\n[1]\t\"B\"[2] w=2 s=7 # comment\n\nSwitch 4 \"B\"\n[2] \"A\"[1] w=2 s=7\n",
      &net));
  CHECK_EQUAL(2u, net.nodes.size());
  CHECK_TRUE(net.nodes[1].is_switch);
  CHECK_EQUAL(4, net.nodes[1].ports);
  STRCMP_EQUAL("w=2 s=7", net.links[0].options.c_str());
  CHECK_EQUAL(2, net.links[0].remote_port);
  CHECK_FALSE(ParseNet("Hca 1 \"A\"\n\nHca 1 \"A\"\n", &net).ok());
  CHECK_FALSE(ParseNet("# nothing\n", &net).ok());
}

// Tori and meshes: every link mirrored, everything connected, each switch
// with its HCAs and one link per neighbour (a ring of 2 has one link, a
// ring of 1 none; a mesh has no wrap-around links).
TEST(NetGen, TorusAndMeshLinksEveryNeighbourOnce) {
  struct Case {
    int x, y;
    bool wrap;
    size_t switch_links;  // switch-to-switch link lines (two per link)
  } cases[] = {
      {3, 3, true, 2 * 18}, {3, 3, false, 2 * 12}, {4, 2, true, 2 * 12}, {5, 1, true, 2 * 5}};
  for (const Case& c : cases) {
    ssa::test::TorusOptions o;
    o.x = c.x;
    o.y = c.y;
    o.wrap = c.wrap;
    GeneratedNet net;
    CHECK_OK(ssa::test::TorusNet(o, &net));
    NetDescription d = Parse(net.text);
    CheckLinksSymmetric(d);
    CHECK_EQUAL(static_cast<size_t>(net.nodes), d.nodes.size());
    CHECK_EQUAL(d.nodes.size(), Reachable(d));
    CHECK_EQUAL(c.x * c.y * 2, net.hcas);
    size_t sw_links = 0;
    for (const NetLink& l : d.links) sw_links += l.node[0] == 'T' && l.remote[0] == 'T';
    CHECK_EQUAL(c.switch_links, sw_links);
  }
  GeneratedNet net;
  ssa::test::TorusOptions one;
  one.x = one.y = 1;
  CHECK(!ssa::test::TorusNet(one, &net).ok());
}
