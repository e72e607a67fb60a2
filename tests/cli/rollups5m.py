#!/usr/bin/python3
"""A second reading of gpuplan's 5-minute and hourly rollups, written from docs/telemetry.md
("Chunk encoding") rather than from src/formats/chunk.c: the rows of rollup_5m plus every bucket
of the chunks in rollup_5m_day, and the same for rollup_1h and rollup_1h_day.
Usage: rollups5m.py count DB (prints how many 5-minute buckets are stored)."""
import sqlite3
import struct
import sys

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


def decode(buf, day_ms, bucket_ms=BUCKET_MS):
    """(bucket_ms, n, sum, min, max) of every bucket of one chunk."""
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
