// netgen.cc: net file generators and reader.
#include "test/sim/netgen.h"
#include "common/base/text_util.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>

namespace ssa {
namespace test {
namespace {

// IB switches have at most 254 external ports (port 255 means "all ports"
// in some attributes), and ibsim's header takes 1-255.
constexpr int kMaxSwitchPorts = 254;
// Unicast LIDs are 1..0xBFFF.
constexpr int kMaxUnicastLids = 0xBFFF;
// ibsim's compiled-in limits (printed at start-up as MaxNetNodes & co).
constexpr int kIbsimNodes = 2048;
constexpr int kIbsimSwitches = 256;
constexpr int kIbsimPorts = 13312;
constexpr int kIbsimLinearCap = 30720;

const LinkSpeed kHcaMix[] = {
    {2, 7, 0},  // 4x QDR
    {2, 7, 1},  // 4x FDR
    {2, 7, 2},  // 4x EDR
    {1, 3, 0},  // 1x DDR
    {8, 1, 0},  // 12x SDR
    {2, 7, 4},  // 4x HDR
};
const LinkSpeed kUplinkMix[] = {
    {2, 7, 2},  // 4x EDR
    {2, 7, 4},  // 4x HDR
};

const char kFourHcaNet[] =
    "# 4hca.net: four 1-port HCAs on two 8-port switches joined by two\n"
    "# parallel links. Hca1 comes first: OpenSM runs as Hca1 by default.\n"
    "\n"
    "Hca\t1 \"Hca1\"\n"
    "[1]\t\"Switch1\"[1]\n"
    "\n"
    "Hca\t1 \"Hca2\"\n"
    "[1]\t\"Switch2\"[1]\n"
    "\n"
    "Hca\t1 \"Hca3\"\n"
    "[1]\t\"Switch1\"[2]\n"
    "\n"
    "Hca\t1 \"Hca4\"\n"
    "[1]\t\"Switch2\"[2]\n"
    "\n"
    "Switch\t8 \"Switch1\"\n"
    "[1]\t\"Hca1\"[1]\n"
    "[2]\t\"Hca3\"[1]\n"
    "[3]\t\"Switch2\"[3]\n"
    "[5]\t\"Switch2\"[5]\n"
    "\n"
    "Switch\t8 \"Switch2\"\n"
    "[1]\t\"Hca2\"[1]\n"
    "[2]\t\"Hca4\"[1]\n"
    "[3]\t\"Switch1\"[3]\n"
    "[5]\t\"Switch1\"[5]\n";

std::string PortLine(int port, const std::string& remote, int remote_port,
                     const std::string& opts) {
  return "[" + std::to_string(port) + "]\t\"" + remote + "\"[" + std::to_string(remote_port) + "]" +
         opts + "\n";
}

// The quoted string starting at or after `from`; npos-safe.
bool QuotedAt(const std::string& line, size_t from, std::string* value, size_t* after) {
  size_t open = line.find('"', from);
  if (open == std::string::npos) return false;
  size_t close = line.find('"', open + 1);
  if (close == std::string::npos) return false;
  *value = line.substr(open + 1, close - open - 1);
  *after = close + 1;
  return true;
}

}  // namespace

std::string FourHcaNet() { return kFourHcaNet; }

std::string OneSwitchNet(int hcas, const std::string& sw, bool router) {
  std::string net, sw_text = "Switch\t8 \"" + sw + "\"\n";
  for (int i = 1; i <= hcas; ++i) {
    std::string n = std::to_string(i);
    net += "Hca\t1 \"Hca" + n + "\"\n[1]\t\"" + sw + "\"[" + n + "]\n\n";
    sw_text += "[" + n + "]\t\"Hca" + n + "\"[1]\n";
  }
  if (!router) return net + sw_text;
  std::string port = std::to_string(hcas + 1);
  sw_text += "[" + port + "]\t\"R1\"[1]\n\n";
  return net + sw_text + "rtguid=0x0100000000000a00\nRt\t2 \"R1\"\n[1]\t\"" + sw + "\"[" + port +
         "]\n";
}

std::string LinkSpeed::PortOptions() const {
  std::string out = " w=" + std::to_string(width_mask) + " s=" + std::to_string(speed_mask);
  if (ext_speed_mask) out += " e=" + std::to_string(ext_speed_mask);
  return out;
}

Status FatTreeNet(const FatTreeOptions& o, GeneratedNet* out) {
  if (o.hcas < 1) return Status::Error(EINVAL, "a fat tree needs at least one HCA");
  if (o.hcas_per_leaf < 1) return Status::Error(EINVAL, "hcas_per_leaf must be at least 1");
  if (o.leaf_radix < 2 || o.leaf_radix > kMaxSwitchPorts)
    return Status::Error(EINVAL, "leaf_radix must be 2.." + std::to_string(kMaxSwitchPorts));
  const int up = o.uplinks_per_leaf ? o.uplinks_per_leaf : o.leaf_radix - o.hcas_per_leaf;
  if (up < 1) return Status::Error(EINVAL, "leaves need at least one uplink port");
  if (o.hcas_per_leaf + up > o.leaf_radix)
    return Status::Error(EINVAL, std::to_string(o.hcas_per_leaf) + " HCA ports + " +
                                     std::to_string(up) + " uplinks exceed leaf_radix " +
                                     std::to_string(o.leaf_radix));
  const int spines = o.spines ? o.spines : up;
  if (spines < 1) return Status::Error(EINVAL, "spines must be at least 1");
  const int leaves = (o.hcas + o.hcas_per_leaf - 1) / o.hcas_per_leaf;

  // Uplink (leaf l, k) -> (spine, spine port), ports numbered in (l, k) order.
  auto spine_of = [&](int l, int k) {
    return spines <= up ? k % spines : (l * (up - 1) + k) % spines;
  };
  std::vector<int> spine_load(spines, 0);
  std::vector<std::vector<int>> spine_port(leaves, std::vector<int>(up));
  for (int l = 0; l < leaves; ++l)
    for (int k = 0; k < up; ++k) spine_port[l][k] = ++spine_load[spine_of(l, k)];
  for (int s = 0; s < spines; ++s)
    if (spine_load[s] == 0)
      return Status::Error(EINVAL, "spine S" + std::to_string(s + 1) +
                                       " would have no links: use fewer spines or more uplinks");
  const int spine_radix = *std::max_element(spine_load.begin(), spine_load.end());
  if (spine_radix > kMaxSwitchPorts)
    return Status::Error(EINVAL, "spines would need " + std::to_string(spine_radix) +
                                     " ports (max " + std::to_string(kMaxSwitchPorts) +
                                     "): use more spines");

  GeneratedNet net;
  net.hcas = o.hcas;
  net.leaves = leaves;
  net.spines = spines;
  net.spine_radix = spine_radix;
  net.switches = leaves + spines;
  net.nodes = o.hcas + net.switches;
  net.ports = o.hcas + leaves * (o.leaf_radix + 1) + spines * (spine_radix + 1);
  if (net.nodes > kMaxUnicastLids)
    return Status::Error(EINVAL,
                         std::to_string(net.nodes) + " nodes need more LIDs than unicast allows");

  auto hca_opts = [&](int h) {
    return o.mixed_links ? kHcaMix[h % (sizeof(kHcaMix) / sizeof(kHcaMix[0]))].PortOptions() : "";
  };
  auto up_opts = [&](int k) {
    return o.mixed_links
               ? kUplinkMix[k % (sizeof(kUplinkMix) / sizeof(kUplinkMix[0]))].PortOptions()
               : "";
  };
  auto leaf_name = [](int l) { return "L" + std::to_string(l + 1); };
  auto spine_name = [](int s) { return "S" + std::to_string(s + 1); };

  std::string& t = net.text;
  t.reserve(static_cast<size_t>(net.nodes) * 40 + static_cast<size_t>(leaves) * up * 60);
  t += "# 2-level fat tree by ssa::test::FatTreeNet: " + std::to_string(o.hcas) + " HCAs, " +
       std::to_string(leaves) + " leaves of " + std::to_string(o.leaf_radix) + " ports, " +
       std::to_string(spines) + " spines of " + std::to_string(spine_radix) + " ports" +
       (o.mixed_links ? ", mixed link widths and speeds" : "") + "\n\n";
  for (int h = 0; h < o.hcas; ++h) {
    t += "Hca\t1 \"Hca" + std::to_string(h + 1) + "\"\n";
    t += PortLine(1, leaf_name(h / o.hcas_per_leaf), h % o.hcas_per_leaf + 1, hca_opts(h));
    t += "\n";
  }
  for (int l = 0; l < leaves; ++l) {
    t += "Switch\t" + std::to_string(o.leaf_radix) + " \"" + leaf_name(l) + "\"\n";
    for (int p = 0; p < o.hcas_per_leaf; ++p) {
      int h = l * o.hcas_per_leaf + p;
      if (h < o.hcas) t += PortLine(p + 1, "Hca" + std::to_string(h + 1), 1, hca_opts(h));
    }
    for (int k = 0; k < up; ++k)
      t += PortLine(o.hcas_per_leaf + 1 + k, spine_name(spine_of(l, k)), spine_port[l][k],
                    up_opts(k));
    t += "\n";
  }
  // Spine ports in the order they were handed out: leaf by leaf.
  std::vector<std::string> spine_text(spines);
  for (int l = 0; l < leaves; ++l)
    for (int k = 0; k < up; ++k)
      spine_text[spine_of(l, k)] +=
          PortLine(spine_port[l][k], leaf_name(l), o.hcas_per_leaf + 1 + k, up_opts(k));
  for (int s = 0; s < spines; ++s) {
    t += "Switch\t" + std::to_string(spine_radix) + " \"" + spine_name(s) + "\"\n";
    t += spine_text[s];
    t += "\n";
  }

  if (net.nodes > kIbsimNodes || net.switches > kIbsimSwitches || net.ports > kIbsimPorts ||
      net.nodes + 1 > kIbsimLinearCap) {
    net.ibsim_args = {"-N", std::to_string(std::max(net.nodes, kIbsimNodes)),
                      "-S", std::to_string(std::max(net.switches, kIbsimSwitches)),
                      "-P", std::to_string(std::max(net.ports, kIbsimPorts))};
    if (net.nodes + 1 > kIbsimLinearCap) {
      net.ibsim_args.push_back("-L");
      net.ibsim_args.push_back(std::to_string(kMaxUnicastLids + 1));
    }
  }
  *out = std::move(net);
  return Status::Ok();
}

Status TorusNet(const TorusOptions& o, GeneratedNet* out) {
  if (o.x < 1 || o.y < 1 || o.hcas_per_switch < 0 || o.x * o.y < 2)
    return Status::Error(EINVAL, "a torus needs x, y >= 1, at least 2 switches, hcas >= 0");
  const int radix = o.hcas_per_switch + 4;
  if (radix > kMaxSwitchPorts) return Status::Error(EINVAL, "too many HCAs per switch");
  auto name = [](int i, int j) { return "T" + std::to_string(i) + "_" + std::to_string(j); };
  // The neighbour of (i, j) through port direction d (0 +i, 1 -i, 2 +j,
  // 3 -j), or false when there is no link that way.
  auto neighbour = [&o](int i, int j, int d, int* ni, int* nj) {
    int n = d < 2 ? o.x : o.y;
    int c = d < 2 ? i : j;
    int step = d % 2 == 0 ? 1 : -1;
    int to = c + step;
    if (n == 1) return false;
    if (to < 0 || to >= n) {
      if (!o.wrap || n == 2) return false;  // size 2: the one link is already there
      to = (to + n) % n;
    }
    *ni = d < 2 ? to : i;
    *nj = d < 2 ? j : to;
    return true;
  };
  const int hca_ports = o.hcas_per_switch;
  GeneratedNet net;
  net.hcas = o.x * o.y * o.hcas_per_switch;
  net.switches = o.x * o.y;
  net.nodes = net.hcas + net.switches;
  net.ports = net.hcas + net.switches * (radix + 1);
  std::string& t = net.text;
  t += std::string("# 2-D ") + (o.wrap ? "torus" : "mesh") +
       " by ssa::test::TorusNet: " + std::to_string(o.x) + " x " + std::to_string(o.y) +
       " switches, " + std::to_string(o.hcas_per_switch) + " HCAs each\n\n";
  for (int h = 0; h < net.hcas; ++h) {
    int sw = h / o.hcas_per_switch;
    t += "Hca\t1 \"Hca" + std::to_string(h + 1) + "\"\n";
    t += PortLine(1, name(sw % o.x, sw / o.x), h % o.hcas_per_switch + 1, "");
    t += "\n";
  }
  for (int sw = 0; sw < net.switches; ++sw) {
    int i = sw % o.x, j = sw / o.x;
    t += "Switch\t" + std::to_string(radix) + " \"" + name(i, j) + "\"\n";
    for (int p = 0; p < hca_ports; ++p)
      t += PortLine(p + 1, "Hca" + std::to_string(sw * o.hcas_per_switch + p + 1), 1, "");
    for (int d = 0; d < 4; ++d) {
      int ni, nj;
      if (!neighbour(i, j, d, &ni, &nj)) continue;
      // The link arrives on the neighbour's port of the opposite direction.
      t += PortLine(hca_ports + 1 + d, name(ni, nj), hca_ports + 1 + (d ^ 1), "");
    }
    t += "\n";
  }
  *out = std::move(net);
  return Status::Ok();
}

Status FatTreeNetSpread(FatTreeOptions o, GeneratedNet* out) {
  Status st = FatTreeNet(o, out);
  if (st.ok() || o.spines) return st;
  const int leaves = (o.hcas + o.hcas_per_leaf - 1) / o.hcas_per_leaf;
  const int uplinks = o.uplinks_per_leaf ? o.uplinks_per_leaf : o.leaf_radix - o.hcas_per_leaf;
  for (o.spines = (leaves * uplinks + 239) / 240; !st.ok() && o.spines < 4096; ++o.spines)
    st = FatTreeNet(o, out);
  return st;
}

const NetNode* NetDescription::FindNode(const std::string& name) const {
  for (const NetNode& n : nodes)
    if (n.name == name) return &n;
  return nullptr;
}

Status ParseNet(const std::string& text, NetDescription* out) {
  NetDescription net;
  std::set<std::string> names;
  std::istringstream in(text);
  std::string line;
  int lineno = 0;
  bool in_record = false;
  while (std::getline(in, line)) {
    ++lineno;
    auto error = [&](const std::string& what) {
      return Status::Error(EINVAL,
                           "net line " + std::to_string(lineno) + ": " + what + ": " + line);
    };
    if (Trim(line).empty()) {
      in_record = false;
      continue;
    }
    if (line[0] == '#') continue;
    bool is_switch = line.rfind("Switch", 0) == 0;
    if (is_switch || line.rfind("Hca", 0) == 0 || line.rfind("Ca", 0) == 0 ||
        line.rfind("Rt", 0) == 0) {
      NetNode node;
      node.is_switch = is_switch;
      size_t digit = line.find_first_of("0123456789");
      size_t quote = line.find('"');
      if (digit == std::string::npos || (quote != std::string::npos && digit > quote))
        return error("no port count");
      node.ports = atoi(line.c_str() + digit);
      size_t after;
      if (!QuotedAt(line, 0, &node.name, &after) || node.name.empty()) return error("no node name");
      if (!names.insert(node.name).second) return error("duplicate node name");
      net.nodes.push_back(node);
      in_record = true;
      continue;
    }
    if (line[0] != '[' || !in_record) continue;
    NetLink link;
    link.node = net.nodes.back().name;
    link.port = atoi(line.c_str() + 1);
    size_t after;
    if (!QuotedAt(line, 1, &link.remote, &after)) return error("no remote node");
    link.remote_port = 1;  // ibsim's default when "[n]" is missing
    if (after < line.size() && line[after] == '[') {
      link.remote_port = atoi(line.c_str() + after + 1);
      after = line.find(']', after);
      if (after == std::string::npos) return error("unterminated remote port");
      ++after;
    }
    std::string rest = line.substr(after);
    size_t comment = rest.find('#');
    if (comment != std::string::npos) rest.erase(comment);
    link.options = Trim(rest);
    net.links.push_back(link);
  }
  if (net.nodes.empty()) return Status::Error(EINVAL, "the net file defines no nodes");
  *out = std::move(net);
  return Status::Ok();
}

}  // namespace test
}  // namespace ssa
