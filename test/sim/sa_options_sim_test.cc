// sa_options_sim_test.cc: OpenSM options that change the SA's PathRecord
// answers (issue 25), each on a fabric where it makes a difference, the
// replica compared with the SA over every pair and through ibacm:
//   - use_original_extended_sa_rates_only: links of 1x HDR run 50 Gb/s, a
//     rate the SA then answers as 40 (the plugin carries the option);
//   - allow_both_pkeys: P_Key tables holding a P_Key's full and limited
//     entries apart, which the SA matches in three walks (the requester's
//     check too).
// Both were found by scripts/fidelity-random.sh: the replica answered the
// 50 Gb/s rate as exact, and missed the paths the extra walks find.
#include <signal.h>

#include <fstream>
#include <string>

#include "common/base/text_util.h"
#include "test/sim/fidelity_fixture.h"
#include "test/support/check_ok.h"

using namespace fidelity;

namespace {

// Two switches of four HCAs each, every link 1x HDR (ibsim: width 1,
// speeds SDR to QDR, extended speed HDR): 50 Gb/s.
std::string HdrNet() {
  const std::string link = " w=1 s=7 e=4\n";
  std::string net;
  for (int sw = 1; sw <= 2; ++sw) {
    net += "Switch\t8 \"S" + std::to_string(sw) + "\"\n";
    for (int p = 1; p <= 4; ++p)
      net +=
          "[" + std::to_string(p) + "]\t\"Hca" + std::to_string(4 * (sw - 1) + p) + "\"[1]" + link;
    net += "[5]\t\"S" + std::to_string(3 - sw) + "\"[5]" + link + "\n";
  }
  for (int h = 1; h <= 8; ++h) {
    int sw = h <= 4 ? 1 : 2;
    net += "Hca\t1 \"Hca" + std::to_string(h) + "\"\n[1]\t\"S" + std::to_string(sw) + "\"[" +
           std::to_string(h - 4 * (sw - 1)) + "]" + link + "\n";
  }
  return net;
}

}  // namespace

TEST_GROUP_BASE(SaOptionsSim, fidelity::FidelityFixture){};

TEST(SaOptionsSim, WithOriginalSaRatesOnlyHdrRatesAreLoweredAsTheSaDoes) {
  TreeHarness::Options o;
  o.net_text = HdrNet();
  o.hcas = 8;
  o.osm_config = "use_original_extended_sa_rates_only TRUE\n";
  StartTree(o);
  CHECK(tree->smdb().subnet.records[0].flags & ssa::smdb::kSubnetOriginalSaRates);
  CHECK(CompareAllEqual({}) > 0);
  CHECK(CompareAllEqual({"--pkey-from-path"}) > 0);
  // The links run 50 Gb/s (rate 20); the SA, and so the replica, answer 40.
  int rc = -1;
  std::string out = Run(
      {kSmdbTool, "paths", smdb_file, "--from", Lid(), "--to", std::to_string(tree->Lid("Hca1"))},
      &rc);
  STRCMP_CONTAINS_TEXT(" rate=7 ", out.c_str(), out.c_str());
  StartIbacm("none");
  DaemonAnswersEqualTheSa();
}

// kNode (the requester of every comparison) is a full member of 0x0003
// and a limited one of 0x0103; Hca7 a limited member of 0x0003; every CA
// a limited member of the default partition: the SA finds kNode and Hca7
// sharing 0x0003 only in its second and third walks, and answers paths to
// Hca7 only because of them.
TEST(SaOptionsSim, WithAllowBothPkeysFullAndLimitedEntriesMatchAsTheSaDoes) {
  std::string partitions = dir.path() + "/partitions.conf";
  std::ofstream(partitions) << "Default=0x7fff : ALL=full ;\n";
  TreeHarness::Options o;
  CHECK_OK(TreeHarness::FatTree(12, 0, &o));
  o.osm_config = "allow_both_pkeys TRUE\n";
  o.opensm_args = {"-P", partitions};
  StartTree(o);
  // The GUIDs are known now: the partitions change, and OpenSM re-reads
  // them on the resweep SIGHUP asks for.
  std::ofstream(partitions) << "Default=0x7fff : ALL_CAS=limited, ALL_SWITCHES=full, SELF=full ;\n"
                               "pa=0x0103 : " +
                                   ssa::GuidText(tree->PortGuid(kNode)) +
                                   "=limited ;\n"
                                   "pb=0x0003 : " +
                                   ssa::GuidText(tree->PortGuid(kNode)) + "=full, " +
                                   ssa::GuidText(tree->PortGuid("Hca7")) + "=limited ;\n";
  ssa::smdb::Smdb next = tree->smdb();
  CHECK_EQUAL(0, kill(tree->fabric()->opensm_pid(), SIGHUP));
  bool seen = false;
  for (int i = 0; i < 5 && !seen; ++i) {
    uint64_t before = next.global_epoch;
    CHECK_OK(tree->WaitSmdbAfter(before, 60s, &next));
    for (const auto& p : next.partitions.records) seen |= (p.pkey & 0x7fff) == 0x0103;
  }
  CHECK_TEXT(seen, "no SMDB with the new partitions");
  CHECK(next.subnet.records[0].flags & ssa::smdb::kSubnetAllowBothPkeys);
  CHECK_OK(next.WriteFile(smdb_file));
  CHECK(CompareAllEqual({}) > 0);
  CHECK(CompareAllEqual({"--pkey-from-path"}) > 0);
  CHECK(CompareAllEqual({"--pkey", "0x0003"}) > 0);
  // kNode -> Hca7: the SA's record carries kNode's full 0x0003 entry.
  int rc = -1;
  std::string out = Run(
      {kSmdbTool, "paths", smdb_file, "--from", Lid(), "--to", std::to_string(tree->Lid("Hca7"))},
      &rc);
  STRCMP_CONTAINS_TEXT(" pkey=0x8003 ", out.c_str(), out.c_str());
}
