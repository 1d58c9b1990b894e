#!/usr/bin/env python3
# gen_ibssa_path_seeds.py: writes the seed corpus of the ibssa_path fuzzer
# (test/fuzz/corpus/ibssa_path/): daemon replies to a resolve request (first
# byte 0) laid out as <infiniband/acm.h> (version 1) documents them, and
# the shm_prdb fuzzer's table objects (first byte 1: placed as a regular
# file; 2-5: writable by others, a FIFO, a directory, a symbolic link).
#
# The seeds are committed; rerun this only to change them:
#   python3 test/fuzz/gen_ibssa_path_seeds.py test/fuzz/corpus/shm_prdb test/fuzz/corpus/ibssa_path
# Resolve lengths, flags and types are in host order (little-endian here).
import os
import struct
import sys


def reply(status, entries):
    body = b"".join(entries)
    # version, opcode (RESOLVE | ACK), status, 3 reserved, length, tid
    return struct.pack("<BBB3sHQ", 1, 0x81, status, b"\0" * 3, 16 + len(body), 0) + body


def entry(flags, ep_type, info):
    return struct.pack("<IHH", flags, ep_type, 0) + info.ljust(64, b"\0")


def path_record(dlid):
    rec = bytearray(64)
    rec[40:42] = struct.pack(">H", dlid)  # ibv_path_record.dlid, network order
    return bytes(rec)


def main(tables_dir, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    replies = {
        "reply_path": reply(0, [entry(0x2, 0x10, path_record(3))]),
        "reply_source_and_path": reply(
            0, [entry(0x1, 1, b"node6"), entry(0x2, 0x10, path_record(3))]),
        "reply_enodata": reply(1, []),
        "reply_no_path": reply(0, [entry(0x1, 1, b"node6")]),
        "reply_short": reply(0, [entry(0x2, 0x10, path_record(3))])[:40],
    }
    for name, data in replies.items():
        with open(os.path.join(out_dir, name), "wb") as f:
            f.write(b"\0" + data)
    for name in sorted(os.listdir(tables_dir)):
        with open(os.path.join(tables_dir, name), "rb") as f:
            data = f.read()
        with open(os.path.join(out_dir, "table_" + name), "wb") as f:
            f.write(b"\x01" + data)
    with open(os.path.join(tables_dir, "small"), "rb") as f:
        small = f.read()
    for kind, what in ((2, "writable"), (3, "fifo"), (4, "directory"), (5, "link")):
        with open(os.path.join(out_dir, "table_small_" + what), "wb") as f:
            f.write(bytes([kind]) + small)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
