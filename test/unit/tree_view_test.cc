// ssa-tree's Prometheus form (util/ssa_tree/tree_view.h): the core's view
// of each member as gauges and counters labelled by role, LID and GUID,
// lag behind the core's epoch, which members lack a backup, and text that
// promtool accepts.
#include "util/ssa_tree/tree_view.h"

#include <fstream>

#include "test/support/check_ok.h"
#include "test/support/prom_check.h"
#include "test/support/temp_dir.h"

// Last: its memory-leak macros redefine new.
#include <CppUTest/TestHarness.h>

using namespace ssa::tree_view;

TEST_GROUP(TreeView){};

TEST(TreeView, PrometheusFormHasEveryMemberAndTheLag) {
  const char* json =
      "[{\"role\": \"core\", \"guid\": \"0x10\", \"lid\": 1, \"epoch\": 9, \"full_transfers\": 0, "
      "\"delta_transfers\": 0, \"bytes_sent\": 0, \"refused\": 0, \"children\": 1, "
      "\"reconnects\": 0},\n"
      " {\"role\": \"access\", \"guid\": \"0x20\", \"lid\": 4, \"parent_lid\": 1, "
      "\"backup_lid\": 0, \"epoch\": 9, \"full_transfers\": 1, \"delta_transfers\": 3, "
      "\"bytes_sent\": 5000, \"refused\": 0, \"children\": 1, \"reconnects\": 0},\n"
      " {\"role\": \"consumer\", \"guid\": \"0x30\", \"lid\": 7, \"parent_lid\": 4, "
      "\"backup_lid\": 5, \"epoch\": 7, \"full_transfers\": 1, \"delta_transfers\": 1, "
      "\"bytes_sent\": 900, \"refused\": 2, \"children\": 0, \"reconnects\": 3}]";
  std::vector<Member> members;
  CHECK(ParseMembers(json, &members).ok());
  std::string error;
  std::string text = RenderPrometheus(members, &error);
  STRCMP_EQUAL("", error.c_str());
  for (const char* line :
       {"ibssa_core_members{role=\"consumer\"} 1\n", "ibssa_core_epoch 9\n",
        "ibssa_core_member_lag_epochs{role=\"consumer\",lid=\"7\",guid=\"0x30\"} 2\n",
        "ibssa_core_member_lag_epochs{role=\"access\",lid=\"4\",guid=\"0x20\"} 0\n",
        "ibssa_core_member_has_backup{role=\"access\",lid=\"4\",guid=\"0x20\"} 0\n",
        "ibssa_core_member_has_backup{role=\"consumer\",lid=\"7\",guid=\"0x30\"} 1\n",
        "ibssa_core_member_reparents_total{role=\"consumer\",lid=\"7\",guid=\"0x30\"} 3\n",
        "ibssa_core_member_sent_bytes_total{role=\"access\",lid=\"4\",guid=\"0x20\"} 5000\n",
        "# TYPE ibssa_core_member_delta_transfers_total counter\n"})
    STRCMP_CONTAINS(line, text.c_str());
  // The core has no parent, so no backup line.
  CHECK(text.find("has_backup{role=\"core\"") == std::string::npos);
  ssa::test::TempDir dir("ssa-tree-prom-");
  CHECK_OK(dir.status());
  std::ofstream(dir.path() + "/tree.prom") << text;
  CHECK_OK(ssa::test::CheckPromFile(dir.path() + "/tree.prom",
                                    {"ibssa_core_members", "ibssa_core_member_lag_epochs"},
                                    dir.path()));
}
