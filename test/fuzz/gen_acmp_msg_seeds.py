#!/usr/bin/env python3
# gen_acmp_msg_seeds.py: writes the seed corpus of the acmp_msg fuzzer
# (test/fuzz/corpus/acmp_msg/): ACM resolve requests and responses as the
# acmp provider (and upstream's) sends them on the wire, big-endian.
#
# The seeds are committed; rerun this only to change them:
#   python3 test/fuzz/gen_acmp_msg_seeds.py test/fuzz/corpus/acmp_msg
# Written from the public layout, independently of acmp_wire.cc:
#   0 BaseVersion 1, 1 MgmtClass 0x2C, 2 ClassVersion 1, 3 Method
#   (0x01 resolve, 0x81 its response), 4 Status (be16), 6 Control (be16,
#   0x0001 resolve), 8 TID (be64), 16 resolve record: DestType, DestLength,
#   SrcType, SrcLength, GidCount, RespResources, InitDepth, reserved;
#   24 Dest (64), 88 Src (64), 152 GIDs (16 each, at most 6).
import os
import socket
import struct
import sys

NAME, IP, IP6, GID, LID = 1, 2, 3, 4, 5
MGID_MIN = bytes.fromhex("ff154001ffff00030400000000000000")
MGID_40G = bytes.fromhex("ff154001ffff00070500000000000000")
PORT_GID = bytes.fromhex("fe800000000000000000000000100002")


def addr(kind, text):
    if kind == NAME:
        raw = text.encode() + b"\0"
    elif kind == IP:
        raw = socket.inet_pton(socket.AF_INET, text)
    elif kind == IP6:
        raw = socket.inet_pton(socket.AF_INET6, text)
    else:
        raw = text
    return raw.ljust(64, b"\0")


def message(method, tid, dest, src, gids, status=0):
    (dtype, dtext), (stype, stext) = dest, src
    out = struct.pack(">BBBBHHQ", 1, 0x2C, 1, method, status, 0x0001, tid)
    out += struct.pack(">BBBBBBBB", dtype, 64, stype, 64, len(gids), 0, 0, 0)
    out += addr(dtype, dtext) + addr(stype, stext)
    out += b"".join(gids)
    return out.ljust(256, b"\0")


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    seeds = {
        "request-name": message(0x01, 0x1001, (NAME, "node3"), (NAME, "node2"), [MGID_MIN]),
        "request-ip": message(0x01, 0x1002, (IP, "10.0.0.3"), (IP, "10.0.0.2"),
                              [MGID_40G, MGID_MIN]),
        "request-ip6": message(0x01, 0x1003, (IP6, "fd00::3"), (IP6, "fd00::2"), [MGID_MIN]),
        "response": message(0x81, 0x1001, (NAME, "node3"), (NAME, "node2"), [PORT_GID]),
        "response-error": message(0x81, 0x1004, (NAME, "node9"), (NAME, "node2"), [], 0x0100),
        "request-six-groups": message(0x01, 0x1005, (NAME, "n"), (NAME, "m"), [MGID_MIN] * 6),
    }
    for name, data in seeds.items():
        with open(os.path.join(out_dir, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
