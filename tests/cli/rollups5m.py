#!/usr/bin/python3
"""A second reading of gpuplan's 5-minute and hourly rollups, written from docs/telemetry.md
("Chunk encoding", versions 1 to 3), not from src/formats/chunk.c: the rows of rollup_5m
plus every bucket of the chunks in rollup_5m_day, and the same for rollup_1h and
rollup_1h_day.
Usage: rollups5m.py count DB (prints how many 5-minute buckets are stored)."""
import sqlite3
import struct
import sys
import zlib

DAY_MS, BUCKET_MS, HOUR_MS = 86400000, 300000, 3600000


def varint(buf, at):
    v = shift = 0
    while True:
        b = buf[at]
        at += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return v, at


def value(buf, at, prev, role):
    """One value; prev[role] is [k, bits] of the last value of that role."""
    tag, at = varint(buf, at)
    if tag & 1:
        m = tag >> 1
        assert m <= 8, "tag"
        x = int.from_bytes(buf[at:at + m], "little")
        prev[role][1] ^= x
        return struct.unpack("<d", struct.pack("<Q", prev[role][1]))[0], at + m
    zz = tag >> 1
    prev[role][0] += (zz >> 1) ^ -(zz & 1)
    v = prev[role][0] / 1000
    prev[role][1] = struct.unpack("<Q", struct.pack("<d", v))[0]
    return v, at


class Bits:
    """Bits from the least significant of each byte on."""

    def __init__(self, buf, at):
        self.buf, self.pos = buf, at * 8

    def take(self, n):
        v = 0
        for i in range(n):
            byte = self.buf[(self.pos + i) // 8]  # IndexError: truncated
            v |= (byte >> ((self.pos + i) % 8) & 1) << i
        self.pos += n
        return v

    def ones(self, most):
        q = 0
        while q < most and self.take(1):
            q += 1
        return q

    def gamma(self):
        zeros = 0
        while not self.take(1):
            zeros += 1
        return 1 << zeros | self.take(zeros)

    def rice(self, k):
        q = self.ones(16)
        if q < 16:
            return q << k | self.take(k)
        length = self.take(6)
        return 1 << length | self.take(length)


def unzigzag(v):
    return (v >> 1) ^ -(v & 1)


def decode_v2(buf, day_ms, bucket_ms):
    """Version 2: a flags byte, the bitmap unless every bucket is there, then bits."""
    slots, at = varint(buf, 1)
    flags = buf[at]
    at += 1
    assert flags < 64, "flags"
    present = list(range(slots))
    if not flags & 1:
        bitmap = buf[at:at + (slots + 7) // 8]
        at += (slots + 7) // 8
        present = [i for i in range(slots) if bitmap[i // 8] >> (i % 8) & 1]
    linear = [flags >> (1 + r) & 1 for r in range(3)]
    scale = 10 ** (flags >> 4)
    bits = Bits(buf, at)
    rice = [bits.take(6) for _ in range(3)]
    state = [[0, 0, 0] for _ in range(3)]  # per role: k1, k2, bits

    def value(role):
        st = state[role]
        prefix = bits.ones(3)
        if prefix == 3:
            m = bits.take(4)
            st[2] ^= bits.take(8 * m)
        else:
            pred = 2 * st[0] - st[1] if linear[role] else st[0]
            k = pred + unzigzag(bits.rice(rice[role]))
            u = struct.unpack("<Q", struct.pack("<d", k / scale))[0]
            st[1], st[0], st[2] = st[0], k, u + (0, 1, -1)[prefix]
        return struct.unpack("<d", struct.pack("<Q", st[2]))[0]

    out, n, left, op, last = [], 0, 0, 0, None
    for i in present:
        if left == 0:
            op, left = bits.take(3), bits.gamma()
            assert op != 7, "op 7"
            if op >= 4:
                n += unzigzag(bits.gamma() - 1)
                op -= 4
        left -= 1
        if op == 3:
            out.append((day_ms + i * bucket_ms,) + last)
            continue
        if op == 0:
            s = lo = hi = value(0)
            state[1], state[2] = list(state[0]), list(state[0])
        elif op == 1:
            lo = hi = value(1)
            state[2] = list(state[1])
            s = value(0)
        else:
            s, lo, hi = value(0), value(1), value(2)
        last = (n, s, lo, hi)
        out.append((day_ms + i * bucket_ms,) + last)
    assert left == 0, "a group past the last bucket"
    assert (bits.pos + 7) // 8 == len(buf), "trailing bytes"
    return out


def decode(buf, day_ms, bucket_ms=BUCKET_MS):
    """(bucket_ms, n, sum, min, max) of every bucket of one chunk."""
    if buf[0] == 3:  # version 2's layout, then the CRC-32 of every byte before it
        assert int.from_bytes(buf[-4:], "little") == zlib.crc32(buf[:-4]), "checksum"
        return decode_v2(buf[:-4], day_ms, bucket_ms)
    if buf[0] == 2:
        return decode_v2(buf, day_ms, bucket_ms)
    assert buf[0] == 1, "version"
    slots, at = varint(buf, 1)
    bitmap = buf[at:at + (slots + 7) // 8]
    at += (slots + 7) // 8
    prev = [[0, 0], [0, 0], [0, 0]]  # sum, min, max: [k, bits]
    out = []
    for i in range(slots):
        if not bitmap[i // 8] >> (i % 8) & 1:
            continue
        head, at = varint(buf, at)
        n, shape = (head >> 2) + 1, head & 3
        if shape == 0:
            s, at = value(buf, at, prev, 0)
            lo = hi = s
            prev[1], prev[2] = list(prev[0]), list(prev[0])
        elif shape == 1:
            lo, at = value(buf, at, prev, 1)
            hi = lo
            prev[2] = list(prev[1])
            s, at = value(buf, at, prev, 0)
        else:
            assert shape == 2, "shape 3"
            s, at = value(buf, at, prev, 0)
            lo, at = value(buf, at, prev, 1)
            hi, at = value(buf, at, prev, 2)
        out.append((day_ms + i * bucket_ms, n, s, lo, hi))
    assert at == len(buf), "trailing bytes"
    return out


def rollups(db):
    """(series_id, bucket_ms, n, sum, min, max) of every stored 5-minute bucket."""
    for row in db.execute("SELECT series_id, bucket_ms, n, sum, min, max FROM rollup_5m"):
        yield row
    for series, day, blob in db.execute("SELECT series_id, day_ms, buckets FROM rollup_5m_day"):
        for b in decode(blob, day):
            yield (series,) + b


def rollups1h(db):
    """(series_id, bucket_ms, n, sum, min, max) of every stored hourly bucket; a chunk's id is
    series_id * 2^20 + days since 1970."""
    for row in db.execute("SELECT series_id, bucket_ms, n, sum, min, max FROM rollup_1h"):
        yield row
    for cid, blob in db.execute("SELECT id, buckets FROM rollup_1h_day"):
        for b in decode(blob, (cid & 0xFFFFF) * DAY_MS, HOUR_MS):
            yield (cid >> 20,) + b


if __name__ == "__main__":
    assert sys.argv[1] == "count", __doc__
    print(sum(1 for _ in rollups(sqlite3.connect(sys.argv[2]))))
