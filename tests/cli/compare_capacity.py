#!/usr/bin/env python3
"""Compare `capacity --json` computed from the store (after an import) with the same window
computed by the server (`capacity --prometheus`): every figure of the fleet, of each GPU model,
of each GPU, the bucket counts and the load duration curve must be equal, to a relative 1e-9
(the server adds the 5-minute means in another order than SQLite does; counts are exact).

What differs by design is left out: a GPU's "node" (the gpuplan node after an import, the
Hostname from the server), the per-node groups (by gpuplan node / by Hostname; checked against
the GPU rows instead) and a group's power p95 (a server cannot pool hourly means across GPUs).

Usage: compare_capacity.py LOCAL.json REMOTE.json [--servers [--shifted SHARE]]
(--servers: both computed by servers, from the raw and from the recorded series. --shifted:
the recorded 5-minute windows end at another point of each 5 minutes than the raw buckets, as
Prometheus' rule evaluation offset puts them, so each window holds other samples: then the
GPUs and their order must be the same and every busy share, of the fleet, each model and each
GPU, within SHARE of the raw one, the bound the recorded series are documented to keep.)
"""
import json
import sys

local, remote = (json.load(open(p)) for p in sys.argv[1:3])
servers = sys.argv[3:4] == ["--servers"]
shifted = float(sys.argv[5]) if sys.argv[4:5] == ["--shifted"] else None
diffs = []


def same(a, b, path):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                diffs.append(f"{path}.{k}: only in {'local' if k in a else 'remote'}")
            else:
                same(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            diffs.append(f"{path}: {len(a)} items locally, {len(b)} from the server")
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{path}[{i}]")
    elif isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if abs(a - b) > 1e-9 * max(1.0, abs(a)):
            diffs.append(f"{path}: {a!r} locally, {b!r} from the server")
    elif a != b:
        diffs.append(f"{path}: {a!r} locally, {b!r} from the server")


assert "server" in remote and ("server" in local) == servers, "the server is named in its output"
assert local["gpu_list"], "the window holds GPUs"
for c in (local, remote):
    c["gpu_list"].sort(key=lambda g: (g["uuid"], g.get("mig", "")))
    for g in c["gpu_list"]:
        g.pop("node")
# Per node (Hostname): each group holds its physical GPUs' hours (a MIG instance's are its
# GPU's).
hours = {}
for g in json.load(open(sys.argv[2]))["gpu_list"]:
    if not g.get("mig"):
        hours[g["node"]] = hours.get(g["node"], 0) + g["hours"]
for host, n in remote["nodes"].items():
    same(n["hours"], hours.get(host, -1), f"$.nodes.{host}.hours")
if shifted is not None:
    pairs = [(local["fleet"], remote["fleet"], "$.fleet")]
    pairs += [(local["models"][m], remote["models"].get(m, {}), f"$.models.{m}") for m in local["models"]]
    assert [g["uuid"] for g in local["gpu_list"]] == [g["uuid"] for g in remote["gpu_list"]]
    pairs += [(a, b, f"$.gpu_list[{i}]") for i, (a, b) in
              enumerate(zip(local["gpu_list"], remote["gpu_list"]))]
    for a, b, path in pairs:
        if not abs(a["busy_share"] - b.get("busy_share", -1)) <= shifted:
            diffs.append(f"{path}.busy_share: {a['busy_share']!r} raw, {b.get('busy_share')!r} recorded")
    assert len(pairs) > 2
    if diffs:
        print("\n".join(diffs[:40]))
    sys.exit(1 if diffs else 0)
for key in ("busy_threshold", "gpus", "buckets", "fleet", "models", "gpu_list",
            "load_duration", "wall_power"):
    if key in local or key in remote:
        same(local.get(key), remote.get(key), f"$.{key}")
if diffs:
    print("\n".join(diffs[:40]))
    sys.exit(1)
print(f"{len(local['gpu_list'])} GPUs, {local['buckets']['window']} buckets: equal")
