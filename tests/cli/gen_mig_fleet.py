#!/usr/bin/env python3
"""Generate a fleet with MIG GPUs across several hosts, with dcgm-exporter's labels and
Kubernetes workload labels, as dcgm-exporter reports it; and what gpuplan must find in it,
computed here from the same samples by the rule of docs/telemetry.md (truth.json).

Usage: gen_mig_fleet.py OUT_DIR END_UNIX_SECONDS DAYS [INTERVAL_SECONDS]

Writes history.om (OpenMetrics for `promtool tsdb create-blocks-from openmetrics`), one
exposition a host with timestamps (HOST.prom, for `gpuplan import prom`), live.prom (the last
sample of host n3, untimed: a scrape for the collector) and truth.json.

The fleet (a sample every 60 s unless INTERVAL_SECONDS, which divides 300, says otherwise):
- hosts n0..n3, four H100 each; host a0, two A100 (a mixed fleet).
- GPUs 2 and 3 of n2 and n3 are split into MIG instances (real label names: GPU_I_ID,
  GPU_I_PROFILE; no DCGM_FI_DEV_GPU_UTIL, DCGM_FI_PROF_GR_ENGINE_ACTIVE per instance; the
  GPU's power repeated on every instance with the instance's labels, as dcgm-exporter does).
  Layouts: 3g.40gb + 3g.40gb (one slice unused), 4g.40gb + 2g.20gb + 1g.10gb,
  2g.20gb x 3 + 1g.10gb, 3g.40gb + 3g.40gb.
- Whole GPU (h, g): utilization 90, 40, 0, 0 % by (hour + h + g) mod 4, power 60 W + 4 W per
  %; labels namespace team-a/b/c and a pod, except GPU 1 of each host (no workload labels).
- MIG instance i: activity 0.9, 0.5, 0 by (hour + i + g) mod 3; namespace team-a, team-b,
  inference by i mod 3. The GPU: power 80 W + 3 W per % of its rolled-up utilization.
- Outside the fleet (history.om only): a GPU of job "inst" named by its instance label alone,
  and one of job "bare" with no host label at all.

Truth, by docs/telemetry.md's rule: an instance weighs its profile's compute slices of 7; a
MIG GPU's utilization in a bucket is its instances' weighted sum (an unused slice idles); the
fleet's GPUs are the physical ones; --by LABEL counts an instance at its weight.
"""
import json
import sys

out, end, days = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
interval = int(sys.argv[4]) if len(sys.argv) > 4 else 60
assert interval > 0 and 300 % interval == 0, "the interval divides 5 minutes"
start = end - days * 86400
H100, A100 = "NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB"
LAYOUTS = [["3g.40gb", "3g.40gb"], ["4g.40gb", "2g.20gb", "1g.10gb"],
           ["2g.20gb", "2g.20gb", "2g.20gb", "1g.10gb"], ["3g.40gb", "3g.40gb"]]
TEAMS = ["team-a", "team-b", "team-c"]
MIG_TEAMS = ["team-a", "team-b", "inference"]

gpus = []  # (host, index, model, layout or None)
mig_n = 0
for h in range(4):
    for g in range(4):
        layout = None
        if h >= 2 and g >= 2:
            layout = LAYOUTS[mig_n]
            mig_n += 1
        gpus.append((f"n{h}", g, H100, layout))
gpus += [("a0", g, A100, None) for g in range(2)]

series = {}  # (family, labels) -> [(t, v)]
per_host = {}  # host -> lines
live = []
buckets = {}  # (host, g) -> {bucket: [n, util sum]} of the physical GPU
power_b = {}  # (host, g) -> {bucket: [n, power sum]}
labels_b = {}  # namespace -> [gpu buckets present (weighted), util sum (weighted)]


def add(host, family, labels, t, v, last):
    key = (family, tuple(sorted(labels.items())))
    series.setdefault(key, []).append((t, v))
    text = ",".join(f'{k}="{x}"' for k, x in sorted(labels.items()))
    per_host.setdefault(host, []).append(f"{family}{{{text}}} {v} {t * 1000}")
    if last and host == "n3":
        live.append(f"{family}{{{text}}} {v}")


def acc(d, key, b, v):
    r = d.setdefault(key, {}).setdefault(b, [0, 0.0])
    r[0] += 1
    r[1] += v


for t in range(start, end, interval):
    hour = (t // 3600) % 24
    b = t // 300 * 300
    last = t + interval >= end
    for hi, (host, g, model, layout) in enumerate(gpus):
        h = int(host[1])
        base = {"Hostname": host, "UUID": f"GPU-{host}-{g:02d}", "gpu": str(g),
                "modelName": model, "job": "dcgm"}
        if layout is None:
            util = [90.0, 40.0, 0.0, 0.0][(hour + h + g) % 4]
            lab = dict(base)
            if g != 1:
                lab.update(namespace=TEAMS[(h + g) % 3], pod=f"train-{host}-{g}",
                           container="main")
            add(host, "DCGM_FI_DEV_GPU_UTIL", lab, t, util, last)
            add(host, "DCGM_FI_DEV_POWER_USAGE", lab, t, 60 + 4 * util, last)
            acc(buckets, (host, g), b, util)
            acc(power_b, (host, g), b, 60 + 4 * util)
            ns = lab.get("namespace")
            acc(labels_b, ns, (host, g, "", b), util)
            continue
        phys = 0.0
        inst = []
        for i, prof in enumerate(layout):
            act = [0.9, 0.5, 0.0][(hour + i + g) % 3]
            w = int(prof.split("g")[0]) / 7
            phys += w * act * 100
            lab = dict(base, GPU_I_ID=str(i + 1), GPU_I_PROFILE=prof,
                       namespace=MIG_TEAMS[i % 3], pod=f"mig-{host}-{g}-{i}", container="main")
            inst.append(lab)
            add(host, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", lab, t, act, last)
            acc(labels_b, lab["namespace"], (host, g, str(i), b, w), act * 100)
        power = 80 + 3 * phys
        for lab in inst:
            add(host, "DCGM_FI_DEV_POWER_USAGE", lab, t, power, last)
        acc(buckets, (host, g), b, phys)
        acc(power_b, (host, g), b, power)
    # Two GPUs of other jobs, for the import's host naming: one named by its scrape's instance
    # label alone (no Hostname), one by no host label at all.
    for job, extra in (("inst", {"instance": "10.0.0.7:9400"}), ("bare", {})):
        lab = dict(extra, UUID=f"GPU-{job}-0", gpu="0", modelName=H100, job=job)
        series.setdefault(("DCGM_FI_DEV_GPU_UTIL", tuple(sorted(lab.items()))), []).append((t, 50.0))

with open(f"{out}/history.om", "w") as f:
    last_family = None
    for (family, labels), points in sorted(series.items()):
        if family != last_family:
            f.write(f"# TYPE {family} gauge\n")
            last_family = family
        text = ",".join(f'{k}="{v}"' for k, v in labels)
        for t, v in points:
            f.write(f"{family}{{{text}}} {v} {t}\n")
    f.write("# EOF\n")
for host, lines in per_host.items():
    with open(f"{out}/{host}.prom", "w") as f:
        f.write("\n".join(lines) + "\n")
with open(f"{out}/live.prom", "w") as f:
    f.write("\n".join(live) + "\n")


def fleet(models):
    """Physical GPUs of these models: count, busy share at 5 %, mean busy and idle power."""
    n = busy = 0
    bw = iw = 0.0
    bn = inn = 0
    count = 0
    for (host, g, model, _layout) in gpus:
        if model not in models:
            continue
        count += 1
        for bk, (k, s) in buckets[(host, g)].items():
            m = s / k
            pk, ps = power_b[(host, g)][bk]
            p = ps / pk
            n += 1
            if m >= 5:
                busy += 1
                bw += p
                bn += 1
            else:
                iw += p
                inn += 1
    return {"gpus": count, "busy_share": busy / n, "busy_w": bw / bn, "idle_w": iw / inn}


by_ns = {}
for ns, cells in labels_b.items():
    present = used = 0.0
    for key, (k, s) in cells.items():
        w = key[4] if len(key) == 5 else 1.0
        present += w * 5 / 60
        used += w * s / k / 100 * 5 / 60
    by_ns["(no label)" if ns is None else ns] = {"gpu_hours_present": present,
                                                 "gpu_hours_used": used}
truth = {"fleet": fleet({H100, A100}), "h100": fleet({H100}),
         "hosts": sorted({h for h, _, _, _ in gpus}),
         "gpus_per_host": {h: sum(1 for x in gpus if x[0] == h) for h in {x[0] for x in gpus}},
         "by_namespace": by_ns}
with open(f"{out}/truth.json", "w") as f:
    json.dump(truth, f, indent=1)
