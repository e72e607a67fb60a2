#!/usr/bin/env python3
"""A fleet's dcgm-exporter history as OpenMetrics text for `promtool tsdb create-blocks-from
openmetrics` (bench_capacity_rules.sh): GPUS GPUs, 8 a host, over DAYS days ending at END, a
sample every INTERVAL seconds of utilization, power, framebuffer used and free. Each GPU's
utilization follows a day's cycle at its own phase and depth, so its 5-minute means fill many
5 % bins and the busy share is neither 0 nor 1.

Usage: gen_fleet.py OUT.om END_UNIX_SECONDS DAYS GPUS [INTERVAL_SECONDS]   (OUT.om "-": stdout)
"""
import math
import sys

out, end, days, gpus = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
interval = int(sys.argv[5]) if len(sys.argv) > 5 else 300
start = end - days * 86400
times = range(start, end, interval)
labels = [f'Hostname="h{g // 8:04d}",UUID="GPU-{g:06d}",gpu="{g % 8}",job="dcgm",'
          f'modelName="NVIDIA H100 80GB HBM3"' for g in range(gpus)]


def util(g, t):
    phase = (g * 7919) % 86400
    depth = 0.3 + (g % 7) / 10
    v = 50 + 50 * depth * math.sin(2 * math.pi * (t + phase) / 86400)
    return round(v if (t // 3600 + g) % 5 else v / 10, 1)  # an hour in five nearly idle


with (open(out, "w") if out != "-" else sys.stdout) as f:
    for family in ("DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_FB_USED",
                   "DCGM_FI_DEV_FB_FREE"):
        f.write(f"# TYPE {family} gauge\n")
        for g in range(gpus):
            lab = labels[g]
            lines = []
            for t in times:
                u = util(g, t)
                v = (u if family == "DCGM_FI_DEV_GPU_UTIL"
                     else round(60 + 6.4 * u, 1) if family == "DCGM_FI_DEV_POWER_USAGE"
                     else 1000 + 700 * int(u) if family == "DCGM_FI_DEV_FB_USED"
                     else 81559 - 700 * int(u))
                lines.append(f"{family}{{{lab}}} {v} {t}\n")
            f.write("".join(lines))
    f.write("# EOF\n")
