#!/usr/bin/python3
"""Compare the 5-minute rollups two imports stored (tests/cli/test_history_rules.sh: the raw
series against gpuplan's recorded ones). Usage: compare_rollups.py RAW_DB REC_DB MODE [MAX_N]

MODE rows: every GPU, metric and bucket stored in both with the same n, min and max, and the
same sum to a relative 1e-12 (VictoriaMetrics stores a value as a decimal mantissa and
exponent: a recorded sum of 252.29999999999998 comes back as 252.3).
MODE totals: per GPU and metric the same count of samples and the same sum over the window
(relative 1e-9: the sums are added up in other groupings), and no row of REC_DB counting more
than MAX_N samples (a point read into two buckets would)."""
import os
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rollups5m  # noqa: E402  (chunked days: read from the documented encoding)


def load(path):
    db = sqlite3.connect(path)
    names = {sid: (uuid, mig, metric) for sid, uuid, mig, metric in db.execute(
        "SELECT s.id, g.uuid, g.mig, s.metric FROM series s JOIN gpu g ON g.id = s.gpu_id")}
    rows = {}
    for sid, bucket, n, s, lo, hi in rollups5m.rollups(db):
        key = names[sid] + (bucket,)
        assert key not in rows, ("stored twice", path, key)
        rows[key] = (n, s, lo, hi)
    return rows


raw, rec, mode = load(sys.argv[1]), load(sys.argv[2]), sys.argv[3]
assert raw, "the raw import stored nothing"
close = lambda a, b: abs(a - b) <= 1e-9 * max(1.0, abs(a))  # noqa: E731
if mode == "rows":
    assert set(raw) == set(rec), ("only raw", sorted(set(raw) - set(rec))[:5],
                                  "only recorded", sorted(set(rec) - set(raw))[:5])
    diff = [k for k in raw if raw[k][0] != rec[k][0] or raw[k][2:] != rec[k][2:]
            or abs(raw[k][1] - rec[k][1]) > 1e-12 * max(1.0, abs(raw[k][1]))]
    assert not diff, [(k, raw[k], rec[k]) for k in diff[:5]]
    print(f"{len(raw)} 5-minute rows the same")
else:
    max_n = int(sys.argv[4])
    tot = {}
    for which, rows in ((0, raw), (1, rec)):
        for (uuid, mig, metric, _b), (n, s, _lo, _hi) in rows.items():
            t = tot.setdefault((uuid, mig, metric), [[0, 0.0], [0, 0.0]])[which]
            t[0] += n
            t[1] += s
    bad = [(k, t) for k, t in tot.items() if t[0][0] != t[1][0] or not close(t[0][1], t[1][1])]
    assert not bad, bad[:5]
    over = [(k, r) for k, r in rec.items() if r[0] > max_n]
    assert not over, over[:5]
    print(f"{len(tot)} series: the same count and sum over the window "
          f"({len(raw)} raw rows, {len(rec)} recorded)")
