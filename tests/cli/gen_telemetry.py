#!/usr/bin/python3
"""Deterministic synthetic telemetry for the capacity tests: one dcgm exposition file per node
with timestamped samples every 5 minutes for DAYS days, ending at the last full 5-minute mark
before now. Per node: GPUs 0 and 1 are busy (100 %, 400 W) from 08:00 to 20:00 UTC and idle
(0 %, 60 W) otherwise, GPU 2 runs at 50 % and 250 W all the time, GPU 3 idles (0 %, 60 W).
GPU 0 of the first node carries the pod label "train-1".
Usage: gen_telemetry.py OUTDIR DAYS NODE..."""
import os
import sys
import time

outdir, days, nodes = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
step = 300_000
end = int(time.time() * 1000) // step * step - step
start = end - days * 86_400_000
for n, node in enumerate(nodes):
    lines = []
    for ts in range(start, end, step):
        hour = (ts // 3_600_000) % 24
        day = 8 <= hour < 20
        for g in range(4):
            if g < 2:
                util, power = (100, 400) if day else (0, 60)
            elif g == 2:
                util, power = 50, 250
            else:
                util, power = 0, 60
            labels = 'gpu="%d",UUID="GPU-%s-%d",modelName="NVIDIA H100 80GB HBM3",Hostname="%s"' % (
                g, node, g, node)
            if n == 0 and g == 0:
                labels += ',namespace="ml",pod="train-1"'
            lines.append('DCGM_FI_DEV_GPU_UTIL{%s} %d %d' % (labels, util, ts))
            lines.append('DCGM_FI_DEV_POWER_USAGE{%s} %d %d' % (labels, power, ts))
            lines.append('DCGM_FI_DEV_FB_USED{%s} %d %d' % (labels, 40000 + g * 1000, ts))
            lines.append('DCGM_FI_DEV_FB_FREE{%s} %d %d' % (labels, 41559 - g * 1000, ts))
    with open(os.path.join(outdir, node + '.prom'), 'w') as f:
        f.write('\n'.join(lines) + '\n')
print(start, end)
