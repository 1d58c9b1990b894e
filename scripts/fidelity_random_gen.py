#!/usr/bin/env python3
# fidelity_random_gen.py SEED INDEX DIR SIMFAB: one random configuration of
# scripts/fidelity-random.sh (its header says what is drawn). Writes
# DIR/net, DIR/opensm.conf.extra (options), DIR/args (OpenSM arguments, one
# a line, files named relative to DIR), DIR/queries (one compare query a
# line), DIR/label, and the policy, partitions and torus files it names.
# Configuration INDEX of SEED is always the same one. FR_WITHOUT (comma
# separated OpenSM option names) leaves those options out of the draw.
import os, random, socket, struct, subprocess, sys

seed, index, out, simfab = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
rng = random.Random(seed * 1000003 + index)
R = rng.random
without = set(filter(None, os.environ.get("FR_WITHOUT", "").split(",")))
label = []

# Link kinds: (w, s, e) as ibsim's enabled masks; None is ibsim's 4x SDR.
LINKS = [None, (2, 7, 0), (2, 7, 1), (2, 7, 2), (2, 7, 4), (1, 7, 4), (16, 7, 1),
         (16, 7, 2), (16, 7, 4), (8, 7, 4), (4, 7, 4), (1, 2, 0), (8, 1, 0), (4, 4, 0),
         (1, 1, 0), (16, 4, 0), (8, 7, 2)]
mixed_links = R() < 0.6
def link_kind():
    return rng.choice(LINKS) if mixed_links else None
def opt(k):
    if k is None:
        return ""
    w, s, e = k
    return " w=%d s=%d" % (w, s) + (" e=%d" % e if e else "")

class Net:
    def __init__(self):
        self.nodes = []  # [name, type, nports, {port: (peer, peer_port, kind)}]
        self.by = {}
        self.pre = {}  # name -> ibsim lines before its header (vendid=, devid=)
    def add(self, name, typ, nports):
        n = [name, typ, nports, {}]
        self.nodes.append(n)
        self.by[name] = n
    def free_port(self, name, start=1):
        n = self.by[name]
        p = start
        while p in n[3]:
            p += 1
        if p > n[2]:
            n[2] = p
        return p
    def link(self, a, pa, b, pb, kind):
        self.by[a][3][pa] = (b, pb, kind)
        self.by[b][3][pb] = (a, pa, kind)
    def text(self):
        lines = []
        for name, typ, nports, ports in self.nodes:
            lines += self.pre.get(name, [])
            lines.append('%s\t%d "%s"' % ("Hca" if typ == "ca" else "Switch", nports, name))
            for p in sorted(ports):
                b, pb, k = ports[p]
                lines.append('[%d]\t"%s"[%d]%s' % (p, b, pb, opt(k)))
            lines.append("")
        return "\n".join(lines) + "\n"

def read_net(text):
    """Nodes of a net file: [name, type, nports, {port: (peer, pport)}]."""
    net = Net()
    cur = None
    for line in text.splitlines():
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        if s.startswith("Hca") or s.startswith("Switch") or s.startswith("Ca"):
            parts = s.split()
            name = s.split('"')[1]
            net.add(name, "sw" if parts[0] == "Switch" else "ca", int(parts[1]))
            cur = name
        elif s.startswith("[") and cur:
            p = int(s[1:s.index("]")])
            peer = s.split('"')[1]
            pp = int(s.split('"')[2].split("[")[1].split("]")[0])
            net.by[cur][3][p] = (peer, pp, None)
    return net

t2q = None  # torus-2QoS configuration text
topo_kind = rng.choices(["irregular", "torus3d", "grid", "fattree"], [45, 20, 15, 20])[0]
if topo_kind == "irregular":
    nsw = rng.randint(3, 10)
    sws = ["S%d" % (i + 1) for i in range(nsw)]
    edges = [(i, rng.randrange(i)) for i in range(1, nsw)]
    for _ in range(rng.randint(0, nsw + 2)):
        a, b = rng.sample(range(nsw), 2)
        edges.append((a, b))
    for _ in range(rng.randint(0, 2)):  # a parallel link
        edges.append(rng.choice(edges))
    per = [rng.choice([0, 1, 1, 2, 2, 3]) for _ in range(nsw)]
    while sum(per) < 2:
        per[rng.randrange(nsw)] += 1
    while sum(per) + nsw > 36:
        i = max(range(nsw), key=lambda k: per[k])
        per[i] -= 1
    hcas = []
    for i in range(nsw):
        hcas += [i] * per[i]
    rng.shuffle(hcas)
    net = Net()
    dual = []
    for h, sw in enumerate(hcas):
        two = h >= 2 and R() < 0.15
        net.add("Hca%d" % (h + 1), "ca", 2 if two else 1)
        if two:
            dual.append(h)
    for s in sws:
        net.add(s, "sw", 1)
    for h, sw in enumerate(hcas):
        p = net.free_port(sws[sw])
        net.link("Hca%d" % (h + 1), 1, sws[sw], p, link_kind())
        if h in dual:
            s2 = rng.randrange(nsw)
            net.link("Hca%d" % (h + 1), 2, sws[s2], net.free_port(sws[s2]), link_kind())
    for a, b in edges:
        pa = net.free_port(sws[a])
        net.by[sws[a]][3][pa] = None  # reserve
        pb = net.free_port(sws[b])
        net.link(sws[a], pa, sws[b], pb, link_kind())
    for s in sws:
        net.by[s][2] += rng.randint(0, 3)
    label.append("irregular %dsw %dhca%s" % (nsw, len(hcas), " %ddual" % len(dual) if dual else ""))
elif topo_kind == "torus3d":
    X, Y, Z = rng.choice([(2, 2, 2), (3, 2, 2), (3, 3, 2), (3, 3, 3), (4, 2, 2), (2, 2, 3), (4, 3, 2)])
    wrap = R() < 0.6
    n = X * Y * Z
    nh = min(max(2, rng.randint(n // 3, n)), 38 - n)
    sw = lambda i, j, k: "T%d_%d_%d" % (i, j, k)
    coords = [(i, j, k) for k in range(Z) for j in range(Y) for i in range(X)]
    where = sorted(rng.sample(range(n), nh)) if nh <= n else list(range(n))
    net = Net()
    for h in range(nh):
        net.add("Hca%d" % (h + 1), "ca", 1)
    for c in coords:
        net.add(sw(*c), "sw", 1)
    for h, si in enumerate(where):
        s = sw(*coords[si])
        net.link("Hca%d" % (h + 1), 1, s, net.free_port(s), link_kind())
    dims = (X, Y, Z)
    for c in coords:
        for d in range(3):
            size = dims[d]
            if size == 1:
                continue
            nc = list(c)
            nc[d] += 1
            if nc[d] == size:
                if not wrap or size == 2:
                    continue
                nc[d] = 0
            a, b = sw(*c), sw(*nc)
            pa = net.free_port(a)
            net.by[a][3][pa] = None
            pb = net.free_port(b)
            net.link(a, pa, b, pb, link_kind())
    # torus-2QoS: ibsim numbers switches 0x200000 + n in file order.
    guid = {sw(*c): 0x200000 + i for i, c in enumerate(coords)}
    g0 = guid[sw(0, 0, 0)]
    t2q = "%s %d %d %d\n" % ("torus" if wrap else "mesh", X, Y, Z)
    t2q += "xp_link 0x%x 0x%x\n" % (g0, guid[sw(1, 0, 0)])
    t2q += "yp_link 0x%x 0x%x\n" % (g0, guid[sw(0, 1, 0)])
    t2q += "zp_link 0x%x 0x%x\n" % (g0, guid[sw(0, 0, 1)])
    label.append("%s %dx%dx%d %dhca" % ("torus" if wrap else "mesh", X, Y, Z, nh))
elif topo_kind == "grid":
    X, Y = rng.choice([(3, 1), (4, 1), (6, 1), (7, 1), (8, 1), (2, 3), (2, 5), (3, 5), (5, 3), (4, 3), (2, 2), (5, 2)])
    mesh = Y > 1 and R() < 0.4
    per = rng.choice([1, 1, 2])
    while X * Y * (per + 1) > 38:
        per -= 1
    args = [simfab, "gen-torus", str(X), str(Y), "--per-switch", str(per)] + (["--mesh"] if mesh else [])
    net = read_net(subprocess.run(args, capture_output=True, text=True, check=True).stdout)
    label.append("%s %dx%d per=%d" % ("mesh" if mesh else ("ring" if Y == 1 else "torus"), X, Y, per))
    if Y > 1 and not (X == 2 or Y == 2):
        g = lambda i, j: 0x200000 + j * X + i
        t2q = "%s %d %d 1\nxp_link 0x%x 0x%x\nyp_link 0x%x 0x%x\n" % (
            "mesh" if mesh else "torus", X, Y, g(0, 0), g(1, 0), g(0, 0), g(0, 1))
        if not mesh and X == 4:
            t2q += "xm_link 0x%x 0x%x\n" % (g(0, 0), g(X - 1, 0))
        if not mesh and Y == 4:
            t2q += "ym_link 0x%x 0x%x\n" % (g(0, 0), g(0, Y - 1))
    mixed_links = False
else:
    while True:
        n = rng.randint(4, 24)
        perleaf = rng.randint(2, 8)
        up = rng.randint(1, 3)
        spines = rng.randint(1, 4)
        leaves = (n + perleaf - 1) // perleaf
        if n + leaves + spines < 40:
            break
    args = [simfab, "gen-fattree", str(n), "--per-leaf", str(perleaf), "--uplinks", str(up),
            "--spines", str(spines)]
    if R() < 0.4:
        args.append("--mixed")
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        args = [simfab, "gen-fattree", str(n), "--per-leaf", str(perleaf)]
        r = subprocess.run(args, capture_output=True, text=True, check=True)
    net = read_net(r.stdout)
    label.append("fattree " + " ".join(args[2:]))
    mixed_links = False
    net_text = r.stdout
tavor = False
if topo_kind in ("irregular", "torus3d"):
    # Some HCAs as Mellanox Tavor (vendor 0x2c9, device 23108), whose
    # paths the SA limits to MTU 1024 under enable_quirks. ibsim keeps a
    # devid= for the nodes after, so every node gets both lines once any
    # does.
    if R() < 0.3:
        tavor = True
        for name, typ, nports, ports in net.nodes:
            t = typ == "ca" and R() < 0.3
            net.pre[name] = ["vendid=0x%x" % (0x2c9 if t else 0x1234), "devid=0x%x" % (23108 if t else 0x1)]
        label.append("tavor")
    net_text = net.text()
elif topo_kind == "grid":
    net_text = subprocess.run(args, capture_output=True, text=True, check=True).stdout
# IB routers (paths to DGIDs of other subnets): 1-3 on free switch ports,
# appended last so that ibsim numbers every other node as before. A router
# needs its rtguid= line (else its GUID is 0 and OpenSM refuses it) and
# both ends of its link in the file. The GUIDs vary in their high and low
# bytes: OpenSM's "first router" goes by the byte-swapped GUID.
routers = []  # their subnet-side port GUIDs (rtguid + 1)
if R() < 0.3 and "routers" not in without:
    free = [(name, p) for name, typ, nports, ports in net.nodes if typ == "sw"
            for p in range(1, nports + 1) if p not in ports]
    lines = net_text.splitlines()
    for k, (swn, p) in enumerate(rng.sample(free, min(len(free), rng.randint(1, 3)))):
        guid = (rng.randrange(1, 256) << 56) | (rng.randrange(1, 1 << 16) << 8)
        name = "R%d" % (k + 1)
        hdr = next(i for i, l in enumerate(lines) if l.startswith("Switch") and '"%s"' % swn in l)
        lines.insert(hdr + 1, '[%d]\t"%s"[1]' % (p, name))
        lines += ["", "rtguid=0x%016x" % guid, 'Rt\t2 "%s"' % name, '[1]\t"%s"[%d]' % (swn, p)]
        routers.append(guid + 1)
    net_text = "\n".join(lines) + "\n"
    if routers:
        label.append("%drouters" % len(routers))
open(os.path.join(out, "net"), "w").write(net_text)

# GUIDs as ibsim 0.10 numbers them: CAs from 0x100000 (node GUID, then one
# per port), switches 0x200000 + n, in file order.
cas, sws_all = [], []
g = 0x100000
s = 0x200000
port_guid = {}  # (name, port) -> GUID
for name, typ, nports, ports in net.nodes:
    if typ == "ca":
        for p in range(1, nports + 1):
            port_guid[(name, p)] = g + p
        cas.append(name)
        g += nports + 1
    else:
        port_guid[(name, 0)] = s
        sws_all.append(name)
        s += 1
connected = [(n, p) for (n, p) in port_guid if p == 0 or p in net.by[n][3]]
ca_ports = [(n, p) for (n, p) in connected if p != 0]

# Routing engine, LMC.
if topo_kind == "fattree":
    engines = ["minhop", "updn", "dnup", "ftree", "sssp", "dfsssp", "lash", "nue",
               "ftree,updn", "dfsssp,minhop", "nue,minhop", "lash,updn"]
elif topo_kind == "irregular":
    engines = ["minhop", "updn", "dnup", "sssp", "dfsssp", "lash", "nue", "dor",
               "lash,minhop", "nue,updn", "ftree,minhop", "dfsssp,sssp", "torus-2QoS,lash"]
else:
    engines = ["minhop", "dor", "lash", "dfsssp", "sssp", "nue", "updn", "torus-2QoS",
               "torus-2QoS,dfsssp", "lash,minhop", "nue,dor"]
    if t2q:
        engines += ["torus-2QoS", "torus-2QoS"]
engine = rng.choice(engines)
lmc = rng.choices([0, 1, 2], [50, 30, 20])[0]
conf, args = [], ["-R", engine, "-l", str(lmc)]
label.append(engine)
label.append("lmc=%d" % lmc)
if lmc and R() < 0.3:
    conf.append("lmc_esp0 TRUE")
qos = "torus-2QoS" in engine or R() < 0.6
if "torus-2QoS" in engine and t2q:
    open(os.path.join(out, "torus.conf"), "w").write(t2q)
    args += ["--torus_config", "torus.conf"]
if "nue" in engine:
    args += ["--nue_max_num_vls", str(rng.choice([1, 2, 4, 8]))]
if "lash" in engine and R() < 0.3:
    conf.append("lash_start_vl %d" % rng.randint(0, 3))

# Partitions.
parts = []  # (name, pkey, full_members, limited_members) as port-GUID sets
allow_both = False
if R() < 0.55:
    allow_both = R() < 0.35 and "allow_both_pkeys" not in without
    if allow_both:
        conf.append("allow_both_pkeys TRUE")
    lines = []
    everyone = set(port_guid[x] for x in connected)
    casg = set(port_guid[x] for x in ca_ports)
    swg = everyone - casg
    smg = port_guid[("Hca1", 1)]
    def flags():
        f = []
        if R() < 0.5:
            f.append("sl=%d" % rng.randint(0, 15))
        if R() < 0.2:
            f.append("mtu=%d" % rng.randint(1, 5))
        if R() < 0.2:
            f.append("rate=%d" % rng.choice([2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 15, 16, 17]))
        if R() < 0.2:
            f.append("ipoib")
        return f
    # Default: every port full, or CAs limited (SM and switches full).
    dflags = flags()
    if R() < 0.6:
        lines.append("Default=0x7fff%s : ALL=full ;" % "".join(", " + x for x in dflags))
        parts.append(("Default", 0x7fff, set(everyone), set()))
    else:
        lines.append("Default=0x7fff%s : ALL_CAS=limited, ALL_SWITCHES=full, SELF=full ;"
                     % "".join(", " + x for x in dflags))
        parts.append(("Default", 0x7fff, swg | {smg}, casg - {smg}))
    used = {0x7fff}
    for k in range(rng.randint(1, 4)):
        pk = rng.choice([rng.randint(1, 0x10), rng.randint(0x100, 0x7ffe),
                         rng.choice([0x0103, 0x0003, 0x8001 & 0x7fff, 0x7f03])])
        if pk in used:
            continue
        used.add(pk)
        name = "p%d" % (k + 1)
        members, full, lim = [], set(), set()
        choice = rng.random()
        if choice < 0.2:
            m = rng.choice(["full", "limited"])
            members.append("ALL=" + m)
            (full if m == "full" else lim).update(everyone)
        elif choice < 0.35:
            members.append("ALL_CAS=%s" % rng.choice(["full", "limited"]))
            (full if members[-1].endswith("full") else lim).update(casg)
            members.append("ALL_SWITCHES=full")
            full.update(swg)
        for x in rng.sample(ca_ports, rng.randint(0, min(6, len(ca_ports)))):
            m = rng.choice(["full", "limited", "full"] + (["both"] if allow_both else []))
            gg = port_guid[x]
            members.append("0x%016x=%s" % (gg, m))
            if m in ("full", "both"):
                full.add(gg)
            if m in ("limited", "both"):
                lim.add(gg)
        if not members:
            members.append("SELF=full")
            full.add(smg)
        pk_text = "0x%04x" % (pk | (0x8000 if R() < 0.3 else 0))
        lines.append("%s=%s%s : %s ;" % (name, pk_text, "".join(", " + x for x in flags()),
                                           ", ".join(members)))
        parts.append((name, pk, full, lim))
    open(os.path.join(out, "partitions.conf"), "w").write("\n".join(lines) + "\n")
    args += ["-P", "partitions.conf"]
    label.append("partitions(%d)%s" % (len(parts), " allow_both" if allow_both else ""))

# QoS: policy, SL2VL tables.
service_ids, qos_classes = set(), set()
if qos:
    args.append("-Q")
    label.append("qos")
    if R() < 0.45:
        max_vls = rng.choice([1, 2, 4, 8, 15])
        conf.append("qos_max_vls %d" % max_vls)
        def table():
            return ",".join(str(15 if R() < 0.12 else rng.randrange(max(1, min(max_vls, 8))))
                            for _ in range(16))
        conf.append("qos_sl2vl %s" % table())
        for typ in ("ca", "swe", "sw0"):
            if R() < 0.3:
                conf.append("qos_%s_max_vls %d" % (typ, max_vls))
                conf.append("qos_%s_sl2vl %s" % (typ, table()))
        label.append("sl2vl")
    pol = []
    if R() < 0.85:
        groups = []
        nodetypes = ["CA", "SWITCH", "ROUTER", "SELF", "ALL"]
        pg = ["port-groups"]
        for gi in range(rng.randint(1, 4)):
            gname = "g%d" % gi
            groups.append(gname)
            pg += ["  port-group", "    name: " + gname]
            kinds = rng.sample(["name", "guid", "range", "type", "partition"], rng.randint(1, 2))
            for kd in kinds:
                if kd == "name":
                    # A switch by one of its cabled ports (port 0 is no
                    # legal port-name).
                    names = ca_ports + [(n, p) for n in sws_all for p in net.by[n][3]]
                    xs = rng.sample(names, rng.randint(1, min(3, len(names))))
                    pg.append("    port-name: " + ", ".join("%s/P%d" % x for x in xs))
                elif kd == "guid":
                    xs = rng.sample(connected, rng.randint(1, min(3, len(connected))))
                    pg.append("    port-guid: " + ", ".join("0x%x" % port_guid[x] for x in xs))
                elif kd == "range":
                    gs = sorted(port_guid[x] for x in connected)
                    a = rng.randrange(len(gs))
                    b = min(len(gs) - 1, a + rng.randint(0, 4))
                    pg.append("    port-guid: 0x%x-0x%x" % (gs[a], gs[b]))
                elif kd == "type":
                    pg.append("    node-type: " + ", ".join(rng.sample(nodetypes, rng.randint(1, 2))))
                elif kd == "partition" and parts:
                    pg.append("    partition: " + rng.choice(parts)[0])
                else:
                    pg.append("    node-type: CA")
            pg.append("  end-port-group")
        pg.append("end-port-groups")
        pol += pg
        levels = []
        ql = ["qos-levels"]
        has_default = R() < 0.9
        nlev = rng.randint(1, 4)
        for li in range(nlev + (1 if has_default else 0)):
            lname = "DEFAULT" if has_default and li == nlev else "lv%d" % li
            levels.append(lname)
            ql += ["  qos-level", "    name: " + lname]
            ql.append("    sl: %d" % rng.randint(0, 15))  # a level without one is refused
            if R() < 0.3:
                ql.append("    mtu-limit: %d" % rng.randint(1, 5))
            if R() < 0.3:
                ql.append("    rate-limit: %d" % rng.choice([2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 15, 16, 17, 19, 20]))
            if R() < 0.3:
                ql.append("    packet-life: %d" % rng.randint(0, 20))
            if R() < 0.15:
                ql.append("    path-bits: %d" % rng.randint(0, 3))
            if R() < 0.3:
                pks = [p[1] for p in parts] + [rng.randint(1, 0x7fff)]
                a = rng.choice(pks) | (0x8000 if R() < 0.2 else 0)
                ql.append("    pkey: " + rng.choice(["0x%x" % a, "0x%x-0x%x" % (a, min(0x7fff, a + rng.randint(0, 8))),
                                                     "0x%x, 0x%x" % (a, rng.choice(pks))]))
            ql.append("  end-qos-level")
        ql.append("end-qos-levels")
        pol += ql
        mr = ["qos-match-rules"]
        for ri in range(rng.randint(0, 5)):
            mr.append("  qos-match-rule")
            crit = rng.sample(["src", "dst", "sid", "class", "pkey"], rng.randint(1, 3))
            if "src" in crit:
                mr.append("    source: " + ", ".join(rng.sample(groups, rng.randint(1, min(2, len(groups))))))
            if "dst" in crit:
                mr.append("    destination: " + ", ".join(rng.sample(groups, rng.randint(1, min(2, len(groups))))))
            if "sid" in crit:
                a = rng.choice([0x1000, 0x10000, 0x1234, 0x10648CA, 0x500000000])
                b = a + rng.choice([0, 0, 0xff, 0xfff])
                service_ids.add(a)
                service_ids.add(b)
                mr.append("    service-id: " + ("0x%x" % a if a == b else "0x%x-0x%x" % (a, b)))
            if "class" in crit:
                a = rng.randint(0, 12)
                b = a + rng.randint(0, 3)
                qos_classes.add(a)
                qos_classes.add(b)
                mr.append("    qos-class: " + ("%d" % a if a == b else "%d-%d" % (a, b)))
            if "pkey" in crit:
                pks = [p[1] for p in parts] or [0x7fff]
                a = rng.choice(pks) | (0x8000 if R() < 0.2 else 0)
                mr.append("    pkey: 0x%x" % a)
            lv = rng.choice(levels)
            if R() < 0.2:
                lv = lv.swapcase()  # level names are case-insensitive
            mr.append("    qos-level-name: " + lv)
            mr.append("  end-qos-match-rule")
        mr.append("end-qos-match-rules")
        pol += mr
    if R() < 0.45 or not pol:
        ul = ["qos-ulps"]
        if R() < 0.7 or not pol:
            ul.append("  default : %d" % rng.randint(0, 15))
        for _ in range(rng.randint(1, 5)):
            k = rng.choice(["sdp", "sdpport", "rds", "iser", "iserport", "ipoib", "ipoibpkey",
                            "anysid", "anypkey", "srp", "anytarget", "anysource", "anyst"])
            sl = rng.randint(0, 15)
            gg = port_guid[rng.choice(connected)]
            pks = [p[1] for p in parts] or [0x7fff]
            # OpenSM refuses an ipoib rule on a partition with fewer than two
            # full members.
            ipoib_ok = [p[1] for p in parts if len(p[2]) >= 2] if parts else [0x7fff]
            if k.startswith("ipoib") and not ipoib_ok:
                k = "anypkey"
            if k == "ipoib" and 0x7fff not in ipoib_ok:
                k = "ipoibpkey"
            if k == "sdp":
                ul.append("  sdp : %d" % sl); service_ids.add(0x10000 + 0x1234)
            elif k == "sdpport":
                a = rng.randint(1, 60000)
                ul.append("  sdp, port-num %d-%d : %d" % (a, a + 100, sl)); service_ids.add(0x10000 + a)
            elif k == "rds":
                ul.append("  rds : %d" % sl); service_ids.add(0x10648CA)
            elif k == "iser":
                ul.append("  iser : %d" % sl); service_ids.add(0x1060CBC)
            elif k == "iserport":
                a = rng.randint(1, 60000)
                ul.append("  iser, port-num %d : %d" % (a, sl)); service_ids.add(0x1060000 + a)
            elif k == "ipoib":
                ul.append("  ipoib : %d" % sl)
            elif k == "ipoibpkey":
                ul.append("  ipoib, pkey 0x%x : %d" % (rng.choice(ipoib_ok), sl))
            elif k == "anysid":
                a = rng.randint(0x100, 0xffff)
                ul.append("  any, service-id 0x%x : %d" % (a, sl)); service_ids.add(a)
            elif k == "anypkey":
                ul.append("  any, pkey 0x%x : %d" % (rng.choice(pks), sl))
            elif k == "srp":
                ul.append("  srp, target-port-guid 0x%x : %d" % (gg, sl))
            elif k == "anytarget":
                ul.append("  any, target-port-guid 0x%x-0x%x : %d" % (gg, gg + rng.randint(0, 3), sl))
            elif k == "anysource":
                ul.append("  any, source-port-guid 0x%x : %d" % (gg, sl))
            else:
                ul.append("  any, source-target-port-guid 0x%x : %d" % (gg, sl))
        ul.append("end-qos-ulps")
        pol += ul
    if R() < 0.85:
        open(os.path.join(out, "qos-policy.conf"), "w").write("\n".join(pol) + "\n")
        args += ["-Y", "qos-policy.conf"]
        label.append("policy")
    else:
        # -Q with no policy file: point -Y at one that does not exist so
        # /etc/opensm/qos-policy.conf, if any, is not read.
        args += ["-Y", "no-such-policy.conf"]
        label.append("no-policy")

# Other options the SA reads.
if tavor and R() < 0.7:
    conf.append("enable_quirks TRUE")
if not qos and R() < 0.1:
    # A policy file without -Q: OpenSM does not apply it.
    open(os.path.join(out, "qos-policy.conf"), "w").write(
        "qos-levels\n  qos-level\n    name: DEFAULT\n    sl: 3\n    mtu-limit: 1\n  end-qos-level\nend-qos-levels\n")
    args += ["-Y", "qos-policy.conf"]
    label.append("policy-without-Q")
if R() < 0.25:
    conf.append("subnet_timeout %d" % rng.randint(0, 20))
if mixed_links and R() < 0.3 and "use_original_extended_sa_rates_only" not in without:
    conf.append("use_original_extended_sa_rates_only TRUE")
if R() < 0.15:
    conf.append("sm_sl %d" % rng.randint(0, 15))
if R() < 0.1:
    conf.append("port_shifting TRUE")
if R() < 0.1:
    conf.append("scatter_ports %d" % rng.randint(1, 100))
if "nue" in engine and R() < 0.3:
    conf.append("nue_include_switches TRUE")
label += [c.split()[0] for c in conf if not c.startswith("qos_")]

# Prefix routes for the routers (OpenSM's prefix_routes_file: PREFIX
# PORT-GUID, either may be "*"), in a random order: routes to a router
# port, to "the first router", to a GUID that is no router port (the SA
# then refuses that prefix even when a later route would serve), a
# wildcard; or no file (the SA refuses every off-subnet DGID). The
# queries ask for a DGID of each prefix, of one no route names, a local
# one without a port and a local CA's.
dgids = []
if routers:
    def gid_text(prefix, iid):
        return socket.inet_ntop(socket.AF_INET6, struct.pack(">QQ", prefix, iid))
    prefixes = [0x20010db800000000 + rng.randrange(16), rng.randrange(1, 0xfe00) << 48,
                0xfec0000000000000]
    routes = []
    for _ in range(rng.randint(0, 4)):
        pre = rng.choice(prefixes)
        to = rng.choice(routers + ["*", "0x%016x" % (routers[0] - 1)])
        routes.append("%x %s" % (pre, to if isinstance(to, str) else "0x%016x" % to))
    if R() < 0.6:
        routes.insert(rng.randint(0, len(routes)), "* " + rng.choice(["*"] + ["0x%016x" % r for r in routers]))
    if routes or R() < 0.5:
        open(os.path.join(out, "prefix-routes.conf"), "w").write("".join(r + "\n" for r in routes))
        conf.append("prefix_routes_file @DIR@/prefix-routes.conf")
        label.append("%dprefix-routes" % len(routes))
    else:
        label.append("no-prefix-routes")
    dgids = [gid_text(pre, rng.randrange(1, 1 << 32)) for pre in prefixes]
    dgids += [gid_text(0x3000000000000000 + rng.randrange(1 << 16), 7), "fe80::1",
              gid_text(0xfe80000000000000, port_guid[("Hca1", 1)])]

# Queries.
q = ["", "--pkey-from-path"]
pkeys = [p[1] for p in parts]
if pkeys:
    for pk in rng.sample(pkeys, min(2, len(pkeys))):
        q.append("--pkey 0x%04x" % (pk | (0x8000 if R() < 0.6 else 0)))
if service_ids:
    sid = rng.choice(sorted(service_ids))
    q.append("--service-id 0x%x" % sid)
    if pkeys and R() < 0.5:
        q.append("--pkey 0x%04x --service-id 0x%x" % (rng.choice(pkeys) | 0x8000, sid))
# (ssa-smdb takes QoS classes 1..4095 only: class 0 is not asked.)
classes = sorted(c for c in qos_classes if c >= 1)
if classes:
    q.append("--qos-class %d" % rng.choice(classes))
if R() < 0.35:
    q.append("--by-gid")
if R() < 0.35:
    q.append("--reversible" + (" --pkey-from-path" if R() < 0.5 else ""))
if dgids:
    q.append("--dgid " + ",".join(dgids))
    q.append("--dgid " + ",".join(dgids) + rng.choice([" --pkey-from-path", " --reversible"]))
if lmc:
    q = [x + " --lmc-all" if "--by-gid" not in x and "--dgid" not in x else x for x in q]
open(os.path.join(out, "queries"), "w").write("\n".join(q) + "\n")
open(os.path.join(out, "opensm.conf.extra"), "w").write("".join(c + "\n" for c in conf))
open(os.path.join(out, "args"), "w").write("".join(a + "\n" for a in args))
open(os.path.join(out, "label"), "w").write(" ".join(label) + "\n")
