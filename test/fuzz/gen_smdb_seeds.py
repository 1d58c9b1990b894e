#!/usr/bin/env python3
# gen_smdb_seeds.py: writes the seed corpus of the smdb fuzzer
# (test/fuzz/corpus/smdb/): SMDB and PRDB files, a file of a newer format
# minor, and deltas made against the empty database (the fuzzer's base).
#
# The seeds are committed; rerun this only to change them:
#   python3 test/fuzz/gen_smdb_seeds.py test/fuzz/corpus/smdb
# Written from the format description in common/smdb/smdb_format.h and the
# record layouts in common/smdb/smdb_records.h / smdb_prdb.h, independently of
# the C++ code, so that it cross-checks them (zlib's crc32 is the format's).
import os
import struct
import sys
import zlib

MAJOR, MINOR = 1, 0
SMDB, PRDB = 1, 2


def crc(data, start=0):
    return zlib.crc32(data, start) & 0xFFFFFFFF


def seal(header, crc_offset):
    """Stores at crc_offset the CRC of the rest of the header."""
    value = crc(header[crc_offset + 4:], crc(header[:crc_offset]))
    return header[:crc_offset] + struct.pack(">I", value) + header[crc_offset + 4:]


# Per table: (id, struct format of one record, key size in bytes).
SMDB_TABLES = [
    (1, ">QQHBBBBBBI16s", 0),     # subnet
    (2, ">QQHBB", 8),             # guid_lids
    (3, ">QQBBHIHI64s", 8),       # nodes
    (4, ">QBQHBBBBBBBBBIHI", 9),  # ports
    (5, ">QBQB", 9),              # links
    (6, ">QHHHBB", 8),            # switches
    (7, ">QH64s", 10),            # lft_blocks
    (8, ">IH32H", 6),             # pkey_blocks
    (9, ">HBB32s", 2),            # partitions
    (10, ">IQQ", 4),              # prefix_routes
]
PRDB_TABLES = [
    (1, ">QQHBQ", 0),                   # source
    (2, ">16s16sHHHBBBBBBIBB", 36),     # paths
]


def encode_tables(layout, tables):
    """tables: {id: (epoch, [record tuples])} -> {id: (epoch, count, bytes)}"""
    out = {}
    for table_id, fmt, key in layout:
        epoch, records = tables[table_id]
        blobs = sorted(struct.pack(fmt, *r) for r in records)
        out[table_id] = (epoch, len(blobs), b"".join(blobs), struct.calcsize(fmt), key)
    return out


def database(db_type, global_epoch, encoded, minor=MINOR, extra_header=b""):
    header = struct.pack(">IHHHHIQI", 0x53534442, MAJOR, minor, db_type, 32 + len(extra_header),
                         len(encoded), global_epoch, 0) + b"\0\0\0\0" + extra_header
    out = seal(header, 28)
    for table_id in sorted(encoded):
        epoch, count, payload, size, _ = encoded[table_id]
        section = struct.pack(">HHIIIQII", table_id, 32, size, count, crc(payload), epoch, 0, 0)
        out += seal(section, 28) + payload
    return out


def delta(db_type, old_epoch, old, new_epoch, new, layout):
    """A delta from `old` to `new` (encoded tables); the base is the empty
    database, so every record of a changed table is a put, except single
    records, which are replaced."""
    body = b""
    sections = 0
    for table_id, _, key in layout:
        o_epoch, o_count, o_bytes, size, _ = old[table_id]
        n_epoch, n_count, n_bytes, _, _ = new[table_id]
        if (o_epoch, o_bytes) == (n_epoch, n_bytes):
            continue
        o_recs = {o_bytes[i:i + size][:key]: o_bytes[i:i + size] for i in range(0, len(o_bytes), size)}
        n_recs = {n_bytes[i:i + size][:key]: n_bytes[i:i + size] for i in range(0, len(n_bytes), size)}
        removed = b"".join(k for k in sorted(o_recs) if k not in n_recs)
        puts = b"".join(n_recs[k] for k in sorted(n_recs) if o_recs.get(k) != n_recs[k])
        n_removed = len(removed) // key if key else 0
        header = struct.pack(">HHIIIIIIIQQIIII", table_id, 64, size, key, o_count, n_count, n_removed,
                             len(puts) // size, crc(o_bytes), o_epoch, n_epoch, crc(n_bytes),
                             crc(removed + puts), 0, 0)
        body += seal(header, 60) + removed + puts
        sections += 1
    header = struct.pack(">IHHHHIQQIIII", 0x5353444C, MAJOR, MINOR, db_type, 48, sections, old_epoch,
                         new_epoch, crc(database(db_type, old_epoch, old)),
                         crc(database(db_type, new_epoch, new)), 0, 0)
    return seal(header, 44) + body


def text(s, n):
    return s.encode().ljust(n, b"\0")


PREFIX = 0xFE80000000000000
SW, CA1, CA2 = 0x0002C90300000100, 0x0002C90300000001, 0x0002C90300000002


def port(node, num, guid, lid, pkeys, rate=7):
    return (node, num, guid, lid, 0, 4, 5, 5, 5, 2, 4, 0, rate, 0x02510868, 0, pkeys)


def sample_smdb():
    lft = bytes([255, 1, 2, 0] + [255] * 60)
    return {
        1: (1, [(PREFIX, CA1, 1, 3, 15, 0, 18, 0x12, 0, 0, text("minhop", 16))]),
        2: (2, [(CA1, CA1, 1, 0, 0), (CA2, CA2, 2, 0, 0), (SW, SW, 3, 0, 0)]),
        3: (1, [(CA1, CA1, 1, 1, 64, 0x2C9, 0x1003, 1, text("ca1 HCA-1", 64)),
                (CA2, CA2, 1, 1, 64, 0x2C9, 23108, 1, text("ca2 HCA-1", 64)),
                (SW, SW, 2, 36, 8, 0x2C9, 0xC738, 0, text("sw1", 64))]),
        4: (3, [port(CA1, 1, CA1, 1, 0), port(CA2, 1, CA2, 2, 1), port(SW, 0, SW, 3, 0),
                port(SW, 1, 0, 0, 0, rate=3), port(SW, 2, 0, 0, 0)]),
        5: (1, [(CA1, 1, SW, 1), (CA2, 1, SW, 2), (SW, 1, CA1, 1), (SW, 2, CA2, 1)]),
        6: (1, [(SW, 49152, 3, 1024, 0x12, 1)]),
        7: (1, [(SW, 0, lft)]),
        8: (1, [(0, 0, 0xFFFF, *[0] * 31), (1, 0, 0xFFFF, 0x8001, *[0] * 30)]),
        9: (1, [(0x0001, 1, 0, text("storage", 32)), (0x7FFF, 0, 1, text("Default", 32))]),
        10: (1, [(0, 0, 0)]),
    }


def empty_smdb():
    tables = {t: (0, []) for t, _, _ in SMDB_TABLES}
    tables[1] = (0, [(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, b"\0" * 16)])
    return tables


def gid(guid):
    return struct.pack(">QQ", PREFIX, guid)


def sample_prdb():
    paths = [(gid(d), gid(CA1), lid, 1, 0xFFFF, 0, 5, 3, 18, 0, 0, 0, 0, 1)
             for d, lid in ((CA2, 2), (SW, 3))]
    return {1: (1, [(CA1, PREFIX, 1, 0, 3)]), 2: (2, paths)}


def empty_prdb():
    return {1: (0, [(0, 0, 0, 0, 0)]), 2: (0, [])}


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else "test/fuzz/corpus/smdb"
    os.makedirs(out_dir, exist_ok=True)
    smdb = encode_tables(SMDB_TABLES, sample_smdb())
    smdb_empty = encode_tables(SMDB_TABLES, empty_smdb())
    prdb = encode_tables(PRDB_TABLES, sample_prdb())
    prdb_empty = encode_tables(PRDB_TABLES, empty_prdb())

    # A newer minor: a longer header, an unknown table 11, longer node records.
    newer = dict(smdb)
    epoch, count, payload, size, key = newer[3]
    longer = b"".join(payload[i:i + size] + b"NEW!" for i in range(0, len(payload), size))
    newer[3] = (epoch, count, longer, size + 4, key)
    newer[11] = (1, 2, b"abcdef", 3, 0)

    seeds = {
        "smdb_sample.bin": database(SMDB, 3, smdb),
        "smdb_empty.bin": database(SMDB, 0, smdb_empty),
        "smdb_newer_minor.bin": database(SMDB, 3, newer, minor=1, extra_header=b"\x5a" * 8),
        "prdb_sample.bin": database(PRDB, 2, prdb),
        "smdb_delta_from_empty.bin": delta(SMDB, 0, smdb_empty, 3, smdb, SMDB_TABLES),
        "prdb_delta_from_empty.bin": delta(PRDB, 0, prdb_empty, 2, prdb, PRDB_TABLES),
    }
    for name, data in seeds.items():
        with open(os.path.join(out_dir, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
