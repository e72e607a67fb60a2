#!/usr/bin/env python3
"""A day of a serving fleet in OpenMetrics for promtool (tests/cli/test_tp_measure.sh).

usage: gen_serving.py DIR END  (END: Unix seconds, a whole 5 minutes)

Writes DIR/serving.om (a sample a minute from END - 1 day - 1 hour to END) and prints the
served rates per busy GPU-hour it generated, "MODEL M_TOKENS_PER_BUSY_GPU_HOUR", one a line:
- host h0: 2 H100 held by pod llm/vllm-a (vLLM) generating 1500 tokens/s (750 a GPU), idle
  (utilization 0, no tokens) for the two hours from END - 10 h, restarted at END - 6 h (its
  counters back to 0);
- host h1: 2 A100, one held by llm/sglang-b (SGLang, 400 tokens/s), one by llm/tgi-c (TGI, 200
  tokens/s): 300 a GPU;
- host h1 GPU 2: an A100 held by a training pod (train/job-x) with no token counters: not counted;
- pod llm/vllm-orphan: vLLM counters, no GPU series;
- host h2: an L40S held by llm/vllm-d (vLLM, 500 tokens/s), its labels as Prometheus renames
  them when it scrapes dcgm-exporter without honor_labels (exported_pod, exported_namespace;
  pod and namespace are the exporter's own).
dcgm-exporter's labels as it attaches them: gpu, UUID, modelName, Hostname, pod, namespace,
container.
"""
import os
import sys

out, end = sys.argv[1], int(sys.argv[2])
start = end - 86400 - 3600
idle = (end - 10 * 3600, end - 8 * 3600)
restart = end - 6 * 3600

H100, A100 = "NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB"
gpus = [  # (host, index, uuid, model, namespace, pod, container, busy pattern)
    ("h0", 0, "GPU-a0", H100, "llm", "vllm-a", "vllm", "a"),
    ("h0", 1, "GPU-a1", H100, "llm", "vllm-a", "vllm", "a"),
    ("h1", 0, "GPU-b0", A100, "llm", "sglang-b", "sglang", "b"),
    ("h1", 1, "GPU-b1", A100, "llm", "tgi-c", "tgi", "b"),
    ("h1", 2, "GPU-b2", A100, "train", "job-x", "trainer", "b"),
    ("h2", 0, "GPU-c0", "NVIDIA L40S", "llm", "vllm-d", "vllm", "renamed"),
]


def busy(pattern, t):
    return not (pattern == "a" and idle[0] <= t < idle[1])


def util(pattern, t):
    return 70 + (t // 60) % 20 if busy(pattern, t) else 0


def served(rate, pattern, t, restarts):
    """Tokens counted by time t: busy seconds since the last restart times the rate."""
    t0 = start - 600
    if restarts and t >= restart:
        t0 = restart - 60  # the new process served a minute before its first scrape
    s = t - t0
    if pattern == "a":
        s -= max(0, min(t, idle[1]) - max(t0, idle[0]))
    return rate * s


times = range(start, end + 1, 60)
with open(os.path.join(out, "serving.om"), "w") as f:
    f.write("# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n")
    for host, i, uuid, model, ns, pod, ctr, pat in gpus:
        labels = (f'gpu="{i}",UUID="{uuid}",modelName="{model}",Hostname="{host}",'
                  f'container="{ctr}",namespace="{ns}",pod="{pod}",job="dcgm"')
        if pat == "renamed":
            labels = (f'gpu="{i}",UUID="{uuid}",modelName="{model}",Hostname="{host}",'
                      f'exported_container="{ctr}",exported_namespace="{ns}",'
                      f'exported_pod="{pod}",namespace="gpu-operator",'
                      f'pod="nvidia-dcgm-exporter-7x",job="dcgm"')
        for t in times:
            f.write(f"DCGM_FI_DEV_GPU_UTIL{{{labels}}} {util(pat, t)} {t}\n")
    counters = [  # (family, suffix, namespace, pod, rate, pattern, restarts)
        ("vllm:generation_tokens", "_total", "llm", "vllm-a", 1500, "a", True),
        ("vllm:generation_tokens", "_total", "llm", "vllm-orphan", 100, "b", False),
        ("vllm:generation_tokens", "_total", "llm", "vllm-d", 500, "b", False),
        ("vllm:prompt_tokens", "_total", "llm", "vllm-a", 3000, "a", True),
        ("vllm:prompt_tokens", "_total", "llm", "vllm-orphan", 200, "b", False),
        ("sglang:generation_tokens", "_total", "llm", "sglang-b", 400, "b", False),
        ("sglang:prompt_tokens", "_total", "llm", "sglang-b", 800, "b", False),
        ("tgi_request_generated_tokens_sum", "", "llm", "tgi-c", 200, "b", False),
        ("tgi_request_input_length_sum", "", "llm", "tgi-c", 400, "b", False),
    ]
    done = set()
    for fam, suffix, ns, pod, rate, pat, restarts in counters:
        if fam not in done:
            f.write(f"# TYPE {fam} {'counter' if suffix else 'unknown'}\n")
            done.add(fam)
        labels = f'namespace="{ns}",pod="{pod}",model_name="m",job="serving"'
        for t in times:
            f.write(f"{fam}{suffix}{{{labels}}} {served(rate, pat, t, restarts):.0f} {t}\n")
    f.write("# EOF\n")

# Per busy GPU-hour: H100 750 tokens/s a GPU; A100 (400 + 200) / 2.
print(f"H100 {750 * 3600 / 1e6:.6f}")
print(f"A100-80GB {300 * 3600 / 1e6:.6f}")
print(f"L40S {500 * 3600 / 1e6:.6f}")
print(f"H100-input {1500 * 3600 / 1e6:.6f}")
