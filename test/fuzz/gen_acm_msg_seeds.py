#!/usr/bin/env python3
# gen_acm_msg_seeds.py: writes the seed corpus of the acm_msg fuzzer
# (test/fuzz/corpus/acm_msg/): valid ibacm protocol messages as the stock
# client sends them, plus a few replies and a multi-message stream.
#
# The seeds are committed; rerun this only to change them:
#   python3 test/fuzz/gen_acm_msg_seeds.py test/fuzz/corpus/acm_msg
# Written independently of common/acm_wire so that it cross-checks the codec.
# "Host order" below is little-endian, the byte order of every machine this
# project builds on (x86-64, aarch64).
import os
import socket
import struct
import sys

VERSION = 1
OP_RESOLVE, OP_PERF, OP_EP, OP_ACK = 1, 2, 3, 0x80
NAME, IP, IP6, PATH = 1, 2, 3, 0x10
SOURCE, DEST = 1, 2
QUERY_SA, NODELAY = 1 << 31, 1 << 30


def header(opcode, length, data=(0, 0, 0), status=0, tid=0):
    # The resolve length is in host order, everything else big-endian.
    if opcode & 0x0F == OP_RESOLVE:
        length_bytes = struct.pack("<H", length)
    else:
        length_bytes = struct.pack(">H", length)
    return struct.pack("<BBB3B", VERSION, opcode, status, *data) + length_bytes + \
        struct.pack("<Q", tid)


def entry(flags, addr_type, info):
    assert len(info) <= 64
    return struct.pack("<IHH", flags, addr_type, 0) + info.ljust(64, b"\0")


def ipv4(text):
    return socket.inet_pton(socket.AF_INET, text)


def ipv6(text):
    return socket.inet_pton(socket.AF_INET6, text)


def path_record(dlid=2, slid=1, dgid="fe80::2", sgid="fe80::1"):
    # struct ibv_path_record, all network order.
    return (struct.pack(">Q", 0) + ipv6(dgid) + ipv6(sgid) +
            struct.pack(">HHIBBHHBBBB", dlid, slid, 0, 0, 0x81, 0xFFFF, 0, 4, 3, 0x10, 0) +
            b"\0" * 6)


def resolve(entries, tid=0):
    return header(OP_RESOLVE, 16 + 72 * len(entries), tid=tid) + b"".join(entries)


def seeds():
    yield "resolve_ip_src_dst", resolve([entry(SOURCE, IP, ipv4("192.168.0.1")),
                                         entry(DEST, IP, ipv4("192.168.0.2"))], tid=7)
    yield "resolve_ip_dst_nodelay", resolve([entry(DEST | NODELAY, IP, ipv4("10.0.0.2"))])
    yield "resolve_ip6_dst", resolve([entry(DEST, IP6, ipv6("fe80::1234"))])
    yield "resolve_name_src_dst", resolve([entry(SOURCE, NAME, b"node1"),
                                           entry(DEST, NAME, b"node2")])
    yield "resolve_path", resolve([entry(0, PATH, path_record())])
    yield "resolve_path_query_sa", resolve([entry(QUERY_SA, PATH, path_record(dlid=0))])
    yield "perf_global", header(OP_PERF, 16)
    yield "perf_by_index", header(OP_PERF, 16, data=(0, 1, 0))
    yield "perf_by_addr", header(OP_PERF, 88) + entry(SOURCE, IP, ipv4("192.168.0.1"))
    yield "ep_query", header(OP_EP, 16, data=(1, 0, 0))
    # A client that pipelines: three requests in one read.
    yield "stream_three", (resolve([entry(DEST, IP, ipv4("10.0.0.2"))]) +
                           header(OP_PERF, 16) + header(OP_EP, 16, data=(2, 1, 0)))
    # Replies, for the client-side decoders.
    yield "reply_resolve", (header(OP_RESOLVE | OP_ACK, 16 + 2 * 72) +
                            entry(0x2B, PATH, path_record()) +
                            entry(SOURCE, IP, ipv4("10.0.0.1")))
    yield "reply_perf", (header(OP_PERF | OP_ACK, 16 + 7 * 8, data=(7, 0, 0)) +
                         b"".join(struct.pack(">Q", n) for n in range(7)))
    yield "reply_ep", (header(OP_EP | OP_ACK, 16 + 80 + 64, data=(1, 0, 0)) +
                       struct.pack(">QBB2xHH", 0x0002C90300001234, 1, 1, 0xFFFF, 1) +
                       b"acmp".ljust(64, b"\0") + b"192.168.0.1".ljust(64, b"\0"))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "corpus", "acm_msg")
    os.makedirs(out, exist_ok=True)
    for name, data in seeds():
        assert len(data) <= 3 * 592, name
        with open(os.path.join(out, name + ".bin"), "wb") as f:
            f.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
