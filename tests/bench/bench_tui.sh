#!/usr/bin/env bash
# The TUI's speed targets (README "Speed"), on a database with 1,000 GPUs and 30 days of
# rollups (bench_capacity's: 125 nodes x 8 GPUs, a sample every 5 minutes):
#   first frame within 100 ms of process start;  a keystroke in the editor redrawn in 16 ms.
# The real binary runs in tmux with GPUPLAN_TUI_TIMING=FILE, where it writes the time from
# process start to its first frame, each key's time from read to refreshed frame, and when the
# Fleet tab's data arrived from the worker.
# Usage: tests/bench/bench_tui.sh BUILD_DIR [DB [GPUS]]   (without DB one is built first: ~5
# minutes). GPUS, the count printed, is read from `db stats` when not given; on a large database
# that counts every 5-minute bucket (207 M at 10,000 GPUs, minutes), so give it there.
set -eu
build=$1 db=${2:-} gpus=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
sock=$tmp/tmux.sock
trap 'tmux -S "$sock" kill-server 2>/dev/null; rm -rf "$tmp"' EXIT
if [ -z "$db" ]; then
    db=$tmp/fleet.db
    "$build/tests/bench_capacity" "$db" >/dev/null
fi
"$build/gpuplan" --db "$db" scenario save "$here/../fixtures/examples/seed-dgx-a100.json" >/dev/null 2>&1 || true
[ -n "$gpus" ] ||
    gpus=$("$build/gpuplan" --db "$db" db stats | sed -nE 's/^nodes: .* with ([0-9]+) GPUs.*/\1/p')
run() { # one session: N keys typed into the editor
    local log=$tmp/timing.$1
    tmux -S "$sock" kill-server 2>/dev/null || true
    while tmux -S "$sock" has-session 2>/dev/null; do sleep 0.1; done
    rm -f "$sock"
    tmux -S "$sock" -f /dev/null new-session -d -s b -x 120 -y 40 \
        "env GPUPLAN_TUI_TIMING=$log LANG=C.UTF-8 TERM=xterm-256color '$build/gpuplan' --db '$db'; sleep 5"
    for _ in $(seq 1 100); do [ -s "$log" ] && break; sleep 0.05; done
    sleep 0.5
    tmux -S "$sock" send-keys -t b l j j j Enter
    for d in 1 2 3 4 5 6 7 8 9 0; do tmux -S "$sock" send-keys -t b "$d"; sleep 0.05; done
    for _ in 1 2 3 4 5 6 7 8 9 0; do tmux -S "$sock" send-keys -t b BSpace; sleep 0.05; done
    tmux -S "$sock" send-keys -t b Escape 4
    for _ in $(seq 1 100); do grep -q fleet_data_ms "$log" && break; sleep 0.1; done
    tmux -S "$sock" send-keys -t b q
    sleep 0.3
}
for i in 1 2 3 4 5; do run "$i"; done
cat "$tmp"/timing.* | /usr/bin/python3 -c '
import sys, statistics
first, keys, fleet = [], [], []
for line in sys.stdin:
    w = line.split()
    if w[0] == "first_frame_ms": first.append(float(w[1]))
    elif w[0] == "key": keys.append(float(w[2]))
    elif w[0] == "fleet_data_ms": fleet.append((float(w[1]), int(w[3])))
first.sort(); keys.sort()
print("tui first frame (%s GPUs in the database): median %.1f ms, worst %.1f ms over %d starts"
      % (sys.argv[1], statistics.median(first), first[-1], len(first)))
print("tui keystroke to refreshed frame: median %.2f ms, p99 %.2f ms, worst %.2f ms over %d keys"
      % (statistics.median(keys), keys[int(len(keys) * 0.99) - 1], keys[-1], len(keys)))
if fleet:
    print("tui Fleet tab data from the worker: median %.0f ms for %d GPUs (input never waits on it)"
          % (statistics.median(f[0] for f in fleet), fleet[0][1]))
' "$gpus"
