#!/usr/bin/env python3
"""Compare the 5-minute and hourly rollups gpuplan stored against expected.json (gen_history.py):
every GPU, metric and bucket, with n, mean, min and max. Usage: check_history.py DB EXPECTED"""
import json
import os
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rollups5m  # noqa: E402  (chunked days: read from the documented encoding)

METRICS = ["gpu_util", "mem_used_mib", "mem_total_mib", "power_w", "temp_c", "energy_j",
           "sm_clock_mhz", "power_limit_w", "node_power_w"]
db = sqlite3.connect(sys.argv[1])
expect = json.load(open(sys.argv[2]))
got = {}
names = {sid: (uuid, mig, metric) for sid, uuid, mig, metric in db.execute(
    "SELECT s.id, g.uuid, g.mig, s.metric FROM series s JOIN gpu g ON g.id = s.gpu_id")}
for sid, bucket, n, s, lo, hi in rollups5m.rollups(db):
    uuid, mig, metric = names[sid]
    key = f"{uuid}|{mig}|{METRICS[metric]}"
    assert (key, bucket) not in got, ("stored twice", key, bucket)
    got[(key, bucket)] = (n, s, lo, hi)
want = {(k, int(b)): tuple(r) for k, v in expect.items() for b, r in v.items()}
missing = sorted(set(want) - set(got))[:5]
extra = sorted(set(got) - set(want))[:5]
assert not missing and not extra, ("missing", missing, "extra", extra)
for k, (n, s, lo, hi) in want.items():
    gn, gs, glo, ghi = got[k]
    assert gn == n and abs(gs - s) <= 1e-6 * max(1, abs(s)), (k, (n, s), (gn, gs))
    assert abs(glo - lo) <= 1e-9 * max(1, abs(lo)) and abs(ghi - hi) <= 1e-9 * max(1, abs(hi)), k
# Hourly rollups: the 5-minute rows summed.
hours = {}
for (k, b), (n, s, lo, hi) in want.items():
    h = hours.setdefault((k, b - b % 3600000), [0, 0.0])
    h[0] += n
    h[1] += s
got_h = {}
for sid, bucket, n, s, _lo, _hi in rollups5m.rollups1h(db):
    uuid, mig, metric = names[sid]
    key = (f"{uuid}|{mig}|{METRICS[metric]}", bucket)
    assert key not in got_h, ("hour stored twice", key)
    got_h[key] = (n, s)
assert set(got_h) == set(hours), "hourly rollups differ in their keys"
for k, (n, s) in hours.items():
    assert got_h[k][0] == n and abs(got_h[k][1] - s) <= 1e-6 * max(1, abs(s)), (k, got_h[k], n, s)
assert db.execute("SELECT count(*) FROM sample").fetchone()[0] == 0, "raw samples were kept"
print(f"{len(want)} 5-minute and {len(hours)} hourly rollups as computed from the data")
