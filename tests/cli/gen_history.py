#!/usr/bin/env python3
"""Generate a fleet's history as OpenMetrics text for `promtool tsdb create-blocks-from
openmetrics`, and the 5-minute rollups gpuplan must store for it, computed here directly from
the same samples (expected.json: per GPU, metric and bucket: n, sum, min, max).

Usage: gen_history.py OUT_DIR END_UNIX_SECONDS DAYS [INTERVAL_SECONDS [gap]]

The fleet (dcgm-exporter's labels, a sample every 60 s unless INTERVAL_SECONDS, which divides
300, says otherwise):
- hosts h0..h3, GPUs 0 and 1 each (H100). GPU 0 is busy (100 %, 400 W) from 00:00 to 12:00
  UTC and idle (0 %, 60 W) otherwise; GPU 1 runs at 50 % and 250 W. h3's GPU 1 comes and goes:
  it reports only on the first day.
- host hm: one GPU under MIG with two instances: no DCGM_FI_DEV_GPU_UTIL, the graphics
  engine's activity per instance (GI 1 at 0.8, GI 2 at 0.2), power 300 W for the GPU; gpuplan
  rolls the instances up to the GPU (3/7 x 80 % + 3/7 x 20 %), a row expected.json holds.
- with "gap": h2's GPU 1 is silent for 10 minutes, 06:05 to 06:15 UTC of the last day.
- every GPU: memory used 1000 MiB + 10 x hour-of-day, free 80000 MiB, temperature 40 + util/4.
"""
import json
import sys

out, end, days = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
interval = int(sys.argv[4]) if len(sys.argv) > 4 else 60
gap = sys.argv[5:6] == ["gap"]
assert interval > 0 and 300 % interval == 0, "the interval divides 5 minutes"
start = end - days * 86400
model = "NVIDIA H100 80GB HBM3"
series = {}  # (family, labels) -> [(t, v)]
expect = {}  # "uuid|mig|metric" -> {bucket_ms: [n, sum, min, max]}


def add(family, labels, t, v):
    key = (family, tuple(sorted(labels.items())))
    series.setdefault(key, []).append((t, v))


def roll(uuid, mig, metric, t, v):
    b = (t * 1000) // 300000 * 300000
    e = expect.setdefault(f"{uuid}|{mig}|{metric}", {})
    r = e.get(b)
    if r is None:
        e[b] = [1, v, v, v]
    else:
        r[0] += 1
        r[1] += v
        r[2] = min(r[2], v)
        r[3] = max(r[3], v)


for t in range(start, end, interval):
    hour = (t // 3600) % 24
    day = (t - start) // 86400
    for h in range(4):
        host = f"h{h}"
        for g in range(2):
            if h == 3 and g == 1 and day >= 1:
                continue  # gone
            if gap and h == 2 and g == 1 and day == days - 1 and 21900 <= t % 86400 < 22500:
                continue  # silent
            uuid = f"GPU-{h:04d}-{g:04d}"
            lab = {"Hostname": host, "UUID": uuid, "gpu": str(g), "modelName": model,
                   "job": "dcgm"}
            if g == 0:
                util, power = (100.0, 400.0) if hour < 12 else (0.0, 60.0)
            else:
                util, power = 50.0, 250.0
            used, free, temp = 1000.0 + 10 * hour, 80000.0, 40 + util / 4
            add("DCGM_FI_DEV_GPU_UTIL", lab, t, util)
            add("DCGM_FI_DEV_POWER_USAGE", lab, t, power)
            add("DCGM_FI_DEV_FB_USED", lab, t, used)
            add("DCGM_FI_DEV_FB_FREE", lab, t, free)
            add("DCGM_FI_DEV_GPU_TEMP", lab, t, temp)
            roll(uuid, "", "gpu_util", t, util)
            roll(uuid, "", "power_w", t, power)
            roll(uuid, "", "mem_used_mib", t, used)
            roll(uuid, "", "mem_total_mib", t, used + free)
            roll(uuid, "", "temp_c", t, temp)
    uuid = "GPU-mig0"
    base = {"Hostname": "hm", "UUID": uuid, "gpu": "0", "modelName": model, "job": "dcgm"}
    for gi, prof, active in (("1", "3g.40gb", 0.8), ("2", "3g.40gb", 0.2)):
        lab = dict(base, GPU_I_ID=gi, GPU_I_PROFILE=prof)
        add("DCGM_FI_PROF_GR_ENGINE_ACTIVE", lab, t, active)
        roll(uuid, f"GI {gi} {prof}", "gpu_util", t, active * 100)
    add("DCGM_FI_DEV_POWER_USAGE", base, t, 300.0)
    roll(uuid, "", "power_w", t, 300.0)

# The MIG GPU's own utilization, rolled up from its instances (each 3g.40gb: 3 of 7 slices):
# one reading a bucket, the instances' bucket means weighted.
parent = {}
for gi in ("1", "2"):
    for b, (n, s, lo, hi) in expect[f"GPU-mig0|GI {gi} 3g.40gb|gpu_util"].items():
        p = parent.setdefault(b, [1, 0.0, 0.0, 0.0])
        p[1] += 3 / 7 * s / n
        p[2] += 3 / 7 * lo
        p[3] += 3 / 7 * hi
expect["GPU-mig0||gpu_util"] = parent

with open(f"{out}/history.om", "w") as f:
    last = None
    for (family, labels), points in sorted(series.items()):
        if family != last:
            f.write(f"# TYPE {family} gauge\n")
            last = family
        text = ",".join(f'{k}="{v}"' for k, v in labels)
        for t, v in points:
            f.write(f"{family}{{{text}}} {v} {t}\n")
    f.write("# EOF\n")
with open(f"{out}/expected.json", "w") as f:
    json.dump({k: {str(b): r for b, r in v.items()} for k, v in expect.items()}, f)
