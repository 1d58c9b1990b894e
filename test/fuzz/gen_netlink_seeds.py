#!/usr/bin/env python3
# gen_netlink_seeds.py: writes the seed corpus of the netlink fuzzer
# (test/fuzz/corpus/netlink/): datagrams as the kernel sends them on
# NETLINK_RDMA (RDMA_NL_LS path-record requests, as the SA client in
# drivers/infiniband/core/sa_query.c builds them) and on NETLINK_ROUTE
# (address messages recorded from a Linux 6.x kernel: ip addr add/del on a
# veth interface), plus the daemon's answers and a few broken ones.
#
# The seeds are committed; rerun this only to change them:
#   python3 test/fuzz/gen_netlink_seeds.py test/fuzz/corpus/netlink
# Written from <linux/netlink.h>, <rdma/rdma_netlink.h> and
# <rdma/ib_user_sa.h>, independently of the codecs. Netlink is host order:
# little-endian on every machine this project builds on.
import os
import struct
import sys

NLM_F_REQUEST = 1
RDMA_NL_LS = 4
OP_RESOLVE, OP_SET_TIMEOUT, OP_IP_RESOLVE = 0, 1, 2
F_ERR = 0x0100
MANDATORY = 1 << 13
(PATH_RECORD, TIMEOUT, SERVICE_ID, DGID, SGID, TCLASS, PKEY, QOS_CLASS, IPV4,
 IPV6) = range(1, 11)
USE_ALL, USE_UNIDIRECTIONAL, USE_GMP = 0, 1, 2

DGID_ = bytes.fromhex("fe800000000000000002c90300001241")
SGID_ = bytes.fromhex("fe800000000000000002c90300001231")


def pad(b):
    return b + b"\0" * (-len(b) % 4)


def attr(kind, payload):
    return pad(struct.pack("<HH", 4 + len(payload), kind) + payload)


def message(kind, flags, seq, payload):
    return struct.pack("<IHHII", 16 + len(payload), kind, flags, seq, 0) + payload


def ls_type(op):
    return (RDMA_NL_LS << 10) + op


def resolve_header(dev, port, use):
    return pad(dev.encode().ljust(64, b"\0") + bytes([port, use]))


def resolve(seq, attrs, dev="mlx5_0", port=1, use=USE_ALL):
    return message(ls_type(OP_RESOLVE), NLM_F_REQUEST, seq,
                   resolve_header(dev, port, use) + b"".join(attrs))


def m(kind, payload):
    return attr(MANDATORY | kind, payload)


FULL = [m(SERVICE_ID, struct.pack("<Q", 0x01060000 + 4791)), m(DGID, DGID_), m(SGID, SGID_),
        m(TCLASS, b"\x20"), m(PKEY, struct.pack("<H", 0xffff)), m(QOS_CLASS, struct.pack("<H", 3))]

PATH = bytes.fromhex(
    "0000000000000000" "fe800000000000000002c90300001241" "fe800000000000000002c90300001231"
    "00410005" "00000000" "00" "81" "ffff" "0000" "8a" "87" "92" "00" "000000000000")

RTNL = [
    "5000000014000000bcfe066b14150000021880000a00000008000100c000024d08000200c000024d0c000300"
    "7373617265633000080008008000000014000600ffffffffffffffff46350f0046350f00",
    "480000001400000000000000000000000a4082000a0000001400010020010db8000000000000000000000077"
    "14000600ffffffffffffffff46350f0046350f000800080082000000",
    "5000000015000000bcfe066b16150000021880000a00000008000100c000024d08000200c000024d0c000300"
    "7373617265633000080008008000000014000600ffffffffffffffff46350f0046350f00",
    "480000001500000000000000000000000a4082000a0000001400010020010db8000000000000000000000077"
    "14000600ffffffffffffffff46350f0046350f000800080082000000",
]


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    path_data = struct.pack("<II", 0x2b, 0) + PATH
    seeds = {
        "ls-resolve-full": resolve(101, FULL),
        "ls-resolve-dgid-only": resolve(102, [attr(DGID, DGID_)], use=USE_UNIDIRECTIONAL),
        "ls-resolve-gmp-unknown-attr": resolve(103, [attr(40, b"\1\0\0\0"), m(DGID, DGID_)],
                                               dev="hfi1_0", port=2, use=USE_GMP),
        "ls-resolve-two": resolve(104, FULL) + resolve(105, [m(DGID, DGID_)]),
        "ls-ip-resolve": message(ls_type(OP_IP_RESOLVE), NLM_F_REQUEST, 106,
                                 struct.pack("<I", 4) + attr(IPV4, bytes([10, 0, 0, 1]))),
        "ls-set-timeout": message(ls_type(OP_SET_TIMEOUT), NLM_F_REQUEST, 1,
                                  attr(TIMEOUT, struct.pack("<I", 2000))),
        "ls-answer-path": message(ls_type(OP_RESOLVE), 0, 101, attr(PATH_RECORD, path_data)),
        # A routed path for a kernel since 6.1: GMP, outbound, inbound.
        "ls-answer-routed": message(ls_type(OP_RESOLVE), 0, 101,
                                    attr(PATH_RECORD, path_data) +
                                    attr(PATH_RECORD, struct.pack("<II", 0x0a, 0) + PATH) +
                                    attr(PATH_RECORD, struct.pack("<II", 0x12, 0) + PATH)),
        "ls-answer-error": message(ls_type(OP_RESOLVE), F_ERR, 101, b""),
        "ls-resolve-cut": resolve(107, FULL)[:90],
        "nlmsg-error": message(2, 0, 1, struct.pack("<i", -1) + message(ls_type(1), 1, 1, b"")),
    }
    for i, hexed in enumerate(RTNL):
        seeds["rtnl-%d" % i] = bytes.fromhex(hexed)
    seeds["rtnl-new-then-del"] = bytes.fromhex(RTNL[0]) + bytes.fromhex(RTNL[3])
    for name, data in seeds.items():
        with open(os.path.join(out_dir, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
