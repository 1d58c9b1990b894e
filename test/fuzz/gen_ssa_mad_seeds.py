#!/usr/bin/env python3
# gen_ssa_mad_seeds.py: writes the seed corpus of the ssa_mad fuzzer
# (test/fuzz/corpus/ssa_mad/): valid SSA tree control MADs, each message of
# common/tree/ssa_mad.h as members and the core send them, plus the status
# answers and one MAD whose bytes 224..255 are garbled (as umad2sim hands
# them over).
#
# The seeds are committed; rerun this only to change them:
#   python3 test/fuzz/gen_ssa_mad_seeds.py test/fuzz/corpus/ssa_mad
# Written from the layouts in ssa_mad.h, independently of ssa_mad.cc, so
# that it cross-checks the codec. Every integer is big-endian.
import os
import socket
import struct
import sys

MAD_SIZE = 256
SSA_CLASS, SSA_CLASS_VERSION = 0x2C, 1
GET, SET, GET_RESP = 0x01, 0x02, 0x81
JOIN, LEAVE, TOKEN_CHECK, CORE_INFO = 0x0010, 0x0011, 0x0012, 0x0013
DISTRIBUTION, ACCESS, CONSUMER = 1, 2, 4
RETRY, UNKNOWN_MEMBER, BAD_VERSION = 0x0100, 0x0400, 0x0004


def mad(method, attr, attribute=b"", tid=0, status=0):
    # BaseVersion, MgmtClass, ClassVersion, Method, Status, ClassSpecific,
    # TID, AttributeID, reserved, AttributeModifier.
    header = struct.pack(">BBBBHHQHHI", 1, SSA_CLASS, SSA_CLASS_VERSION, method, status, 0,
                         tid, attr, 0, 0)
    assert len(attribute) <= 200
    return (header + attribute).ljust(MAD_SIZE, b"\0")


def address(text=None):
    # family u8, port u16, address 16 bytes (IPv4 in the first 4).
    if text is None:
        return b"\0" * 19
    host, port = text.rsplit(":", 1)
    if host.startswith("["):
        return struct.pack(">BH", 6, int(port)) + socket.inet_pton(socket.AF_INET6, host[1:-1])
    return struct.pack(">BH", 4, int(port)) + socket.inet_pton(socket.AF_INET, host).ljust(16, b"\0")


def text(s, field):
    assert len(s) < field
    return (bytes([len(s)]) + s).ljust(field, b"\0")


def gid(guid):
    return bytes.fromhex("fe80000000000000") + struct.pack(">Q", guid)


def join(roles, guid, epoch=0, token=b"", lost_parent=0, addr=None, software=b"ibacm-ssa 0.1",
         counters=(0, 0, 0, 0, 0, 0)):
    a = struct.pack(">BBHQ", roles, 0, 2, guid) + gid(guid) + struct.pack(">Q", epoch)
    a += token.ljust(16, b"\0") + struct.pack(">Q", lost_parent) + address(addr)
    a += text(software, 33) + struct.pack(">QQQQII", *counters)
    assert len(a) == 152
    return a


def parent(guid=0, lid=0, addr=None):
    return struct.pack(">QH", guid, lid) + address(addr) + b"\0"


def join_answer(par, backup, token, lease, renew, epoch):
    a = par + backup + token.ljust(16, b"\0") + struct.pack(">IIQ", lease, renew, epoch)
    # The link keys (parent, backup, core) and the SMDB's SHA-256.
    a += bytes(range(0x20, 0x50)) + bytes(range(0x60, 0x80))
    assert len(a) == 172
    return a


TOKEN = bytes(range(0x10, 0x20))


def seeds():
    yield "join_first_distribution", mad(SET, JOIN, join(DISTRIBUTION, 0x0002C90300000011,
                                                         addr="10.0.0.11:7470"), tid=1)
    yield "join_renew_access", mad(SET, JOIN, join(
        DISTRIBUTION | ACCESS, 0x0002C90300000012, epoch=9, token=TOKEN,
        lost_parent=0x0002C90300000011, addr="[fe80::12]:7471",
        counters=(3, 17, 123456789, 1, 4, 2)), tid=0x1234)
    yield "join_consumer", mad(SET, JOIN, join(CONSUMER, 0x0002C90300000013, software=b""),
                               tid=0xFFFFFFFF)
    yield "join_answer", mad(GET_RESP, JOIN, join_answer(
        parent(0x0002C90300000011, 3, "10.0.0.11:7470"),
        parent(0x0002C90300000001, 1, "[fe80::1]:7470"), TOKEN, 60, 20, 9), tid=1)
    yield "join_answer_no_backup", mad(GET_RESP, JOIN, join_answer(
        parent(0x0002C90300000001, 1, "10.0.0.1:7470"), parent(), TOKEN, 30, 30, 0), tid=2)
    yield "join_answer_retry", mad(GET_RESP, JOIN, tid=3, status=RETRY)
    yield "leave", mad(SET, LEAVE, struct.pack(">Q", 0x0002C90300000012) + TOKEN, tid=4)
    yield "leave_answer_unknown", mad(GET_RESP, LEAVE, tid=4, status=UNKNOWN_MEMBER)
    yield "token_check", mad(GET, TOKEN_CHECK, struct.pack(">Q", 0x0002C90300000013) + TOKEN +
                             struct.pack(">Q", 0x0002C90300000012), tid=5)
    yield "token_check_answer_valid", mad(GET_RESP, TOKEN_CHECK,
                                          struct.pack(">BBHI", 1, CONSUMER, 0, 55) +
                                          bytes(range(0x30, 0x40)), tid=5)
    yield "token_check_answer_wrong_parent", mad(GET_RESP, TOKEN_CHECK,
                                                 struct.pack(">BBHI", 0, 0, 2, 0), tid=6)
    yield "core_info", mad(GET, CORE_INFO, tid=7)
    yield "core_info_answer", mad(GET_RESP, CORE_INFO, struct.pack(">QH", 0x0002C90300000001, 1) +
                                  address("10.0.0.1:7470") + b"\0" +
                                  struct.pack(">QI", 12, 5), tid=7)
    yield "bad_version_answer", mad(GET_RESP, JOIN, tid=8, status=BAD_VERSION)
    garbled = bytearray(mad(SET, LEAVE, struct.pack(">Q", 0x0002C90300000012) + TOKEN, tid=9))
    garbled[224:] = bytes((i * 37 + 11) & 0xFF for i in range(32))
    yield "leave_garbled_tail", bytes(garbled)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "corpus", "ssa_mad")
    os.makedirs(out, exist_ok=True)
    for name, data in seeds():
        assert len(data) == MAD_SIZE, name
        with open(os.path.join(out, name + ".bin"), "wb") as f:
            f.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
