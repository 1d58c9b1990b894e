#!/usr/bin/env python3
# gen_tree_frame_seeds.py: writes the seed corpus of the tree_frame fuzzer
# (test/fuzz/corpus/tree_frame/): data-channel byte streams as the SSA tree's
# peers send them (common/tree/frame.h): a child's HELLO and later frames, a
# parent's WELCOME and transfers, a REFUSE, a tool's QUERY and its reply.
#
# The seeds are committed; rerun this only to change them:
#   python3 test/fuzz/gen_tree_frame_seeds.py test/fuzz/corpus/tree_frame
# Written from the layouts in frame.h, independently of frame.cc, so that it
# cross-checks the codec. Every integer is big-endian; the frame CRC is
# zlib's CRC32 (smdb_format.h's Crc32 is zlib-compatible).
import os
import struct
import sys
import zlib

MAGIC, VERSION = 0x53534146, 1
(HELLO, WELCOME, REFUSE, XFER_BEGIN, XFER_DATA, XFER_END, ACK, NEED_FULL, KEEPALIVE, QUERY,
 QUERY_REPLY, PROOF) = range(1, 13)
SMDB, PRDB, ADDR = 1, 2, 3
ACCESS, CONSUMER = 2, 4
TOKEN = bytes(range(0x10, 0x20))
NONCE = bytes(range(0x40, 0x50))
TAG = bytes(range(0x80, 0xA0))


def frame(ftype, payload=b""):
    # hcheck (bytes 6-7): the low 16 bits of the CRC32 of header bytes 0-5
    # and 8-15.
    head = struct.pack(">IBB", MAGIC, VERSION, ftype)
    tail = struct.pack(">II", len(payload), zlib.crc32(payload) & 0xFFFFFFFF)
    hcheck = zlib.crc32(head + tail) & 0xFFFF
    return head + struct.pack(">H", hcheck) + tail + payload


def hello(roles, kind, guid, epoch=0, digest=0):
    return frame(HELLO, struct.pack(">HBBQ", 2, roles, kind, guid) + TOKEN +
                 struct.pack(">QI", epoch, digest) + NONCE)


def welcome(guid, epoch):
    return frame(WELCOME, struct.pack(">QQ", guid, epoch) + NONCE + TAG)


def xfer_begin(kind, frm, to, total, digest):
    return frame(XFER_BEGIN, struct.pack(">BQQQI", kind, frm, to, total, digest))


def text(s):
    return bytes([len(s)]) + s


def transfer(kind, frm, to, data):
    out = xfer_begin(kind, frm, to, len(data), zlib.crc32(data) & 0xFFFFFFFF)
    for i in range(0, len(data), 40):
        out += frame(XFER_DATA, data[i:i + 40])
    return out + frame(XFER_END)


def seeds():
    guid, parent = 0x0002C90300000013, 0x0002C90300000012
    db = bytes((i * 7) & 0xFF for i in range(100))
    yield "child_first_hello", hello(CONSUMER, PRDB, guid)
    yield "child_session", (hello(ACCESS, SMDB, guid, epoch=4, digest=0x12345678) +
                            frame(PROOF, TAG) + frame(ACK, struct.pack(">QI", 5, 0x9ABCDEF0)) +
                            frame(KEEPALIVE) + frame(NEED_FULL, b"\x01"))
    yield "parent_full", welcome(parent, 5) + transfer(1, 0, 5, db) + frame(KEEPALIVE)
    yield "parent_delta", welcome(parent, 6) + transfer(2, 5, 6, db[:30]) + transfer(2, 6, 7, b"")
    yield "parent_refuse", frame(REFUSE, struct.pack(">H", 2) +
                                 text(b"token not valid for this parent"))
    yield "query", frame(QUERY, text(b"tree"))
    yield "query_reply", frame(QUERY_REPLY, b'{"core":{"guid":"0x0002c90300000001"},"members":[]}')
    # A child that sends its HELLO and then something else entirely.
    yield "hello_then_garbage", hello(CONSUMER, ADDR, guid) + b"GET / HTTP/1.0\r\n\r\n"


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "corpus", "tree_frame")
    os.makedirs(out, exist_ok=True)
    for name, data in seeds():
        assert len(data) <= 1024, name
        with open(os.path.join(out, name + ".bin"), "wb") as f:
            f.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
