#!/usr/bin/env python3
# gen_shm_prdb_seeds.py: writes the seed corpus of the shm_prdb fuzzer
# (test/fuzz/corpus/shm_prdb/): path table objects laid out as
# common/shm_prdb/shm_prdb_format.h documents them (written from that
# header, independently of the builder), valid ones of a few sizes and a
# few broken ones.
#
# The seeds are committed; rerun this only to change them:
#   python3 test/fuzz/gen_shm_prdb_seeds.py test/fuzz/corpus/shm_prdb
# Host order is little-endian on every machine this project builds on.
import os
import struct
import sys


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF


def align8(n):
    return (n + 7) & ~7


def gid(hi, lid):
    g = bytearray(16)
    g[0], g[1], g[9] = 0xFE, 0x80, hi
    g[14], g[15] = lid >> 8, lid & 0xFF
    return bytes(g)


def path(slid, dlid, span=1, pkey=0xFFFF):
    rec = bytearray(64)
    rec[8:24] = gid(1, dlid)
    rec[24:40] = gid(2, slid)
    rec[40:42] = struct.pack(">H", dlid)
    rec[42:44] = struct.pack(">H", slid)
    rec[49] = 0x80
    rec[50:52] = struct.pack(">H", pkey)
    rec[52:54] = struct.pack(">H", 2)
    return struct.pack("<HHHBB", slid, dlid, pkey, span, 0) + bytes(rec)


def obj(ndest, names=True, pid=1, ports=1):
    body = bytearray()
    off = 128
    ports_off = off
    off = align8(off + 128 * ports)
    src = struct.pack("<HHHH", 1, 0, 0xFFFF, 0) + b"self".ljust(64, b"\0")
    srcs_off = off
    off = align8(off + len(src))
    nm = b"".join(("hca%d" % d).encode().ljust(64, b"\0") + gid(1, d)
                  for d in sorted(range(2, ndest + 2), key=lambda d: ("hca%d" % d).encode())) if names else b""
    names_off = off
    off = align8(off + len(nm))
    ips = b"".join(bytes(10) + b"\xff\xff" + bytes([10, 0, 0, d]) + gid(1, d)
                   for d in range(2, ndest + 2)) if names else b""
    ips_off = off
    off = align8(off + len(ips))
    port_tables = []
    for p in range(ports):
        paths = b"".join(path(1 + 16 * p, d, 4 if d == 5 else 1) for d in range(2, ndest + 2))
        gids = b"".join(gid(1, d) + struct.pack("<II", i, 0) for i, d in enumerate(range(2, ndest + 2)))
        paths_off = off
        off = align8(off + len(paths))
        gids_off = off
        off = align8(off + len(gids))
        port_tables.append((paths_off, paths, gids_off, gids))
    total = off
    o = bytearray(total)
    for p, (paths_off, paths, gids_off, gids) in enumerate(port_tables):
        pkeys = struct.pack("<32H", 0xFFFF, 0x8001, *([0] * 30))
        port = gid(2, 1 + 16 * p) + struct.pack("<HBBIQQQII", 1 + 16 * p, 0, 2, 0, 7, paths_off,
                                                 gids_off, ndest, ndest) + pkeys + bytes(8)
        assert len(port) == 128
        o[ports_off + 128 * p:ports_off + 128 * (p + 1)] = port
        o[paths_off:paths_off + len(paths)] = paths
        o[gids_off:gids_off + len(gids)] = gids
    o[srcs_off:srcs_off + len(src)] = src
    o[names_off:names_off + len(nm)] = nm
    o[ips_off:ips_off + len(ips)] = ips
    hdr = b"IBSSAPT\x01" + struct.pack("<IIQIIQiIQQQQQQIIII", 1, 128, total, 0, ports, 7, pid, 0,
                                        12345, 3, ports_off, names_off, ips_off, srcs_off,
                                        ndest if names else 0, ndest if names else 0, 1, 0) + bytes(16)
    assert len(hdr) == 128
    o[0:128] = hdr
    crc = crc32c(bytes(o))
    o[24:28] = struct.pack("<I", crc)
    return bytes(o)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "test/fuzz/corpus/shm_prdb"
    os.makedirs(out, exist_ok=True)
    seeds = {
        "one_path": obj(1),
        "small": obj(6),
        "no_names": obj(4, names=False),
        "two_ports": obj(3, ports=2),
    }
    good = seeds["small"]
    seeds["truncated"] = good[:len(good) - 40]
    seeds["flipped"] = good[:300] + bytes([good[300] ^ 1]) + good[301:]
    seeds["header_only"] = good[:128]
    for name, data in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
