#!/usr/bin/env bash
# The TUI on a version 2 plan: each keystroke in the Plan editor re-evaluates the
# plan month by month, and each key on the Timeline redraws its step chart, lanes and
# cumulative costs. The target is the editor's: a keystroke redrawn in 16 ms (README "Speed").
# The real binary runs in tmux at 120x40 with GPUPLAN_TUI_TIMING=FILE (each key's time from
# read to refreshed frame), on the 60-month plan of the engine's benchmark (growth, as_needed,
# a lead time, a bridge, three options).
# Usage: tests/bench/bench_tui_timeline.sh BUILD_DIR
set -eu
build=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
sock=$tmp/tmux.sock
trap 'tmux -S "$sock" kill-server 2>/dev/null; rm -rf "$tmp"' EXIT
db=$tmp/plan.db
"$build/gpuplan" --db "$db" scenario save "$here/v2-plan-60.json" >/dev/null
run() { # one session: 10 digits and 10 Backspaces in the growth field, 20 keys on the Timeline
    local log=$tmp/timing.$1
    tmux -S "$sock" kill-server 2>/dev/null || true
    while tmux -S "$sock" has-session 2>/dev/null; do sleep 0.1; done
    rm -f "$sock"
    tmux -S "$sock" -f /dev/null new-session -d -s b -x 120 -y 40 \
        "env GPUPLAN_TUI_TIMING=$log LANG=C.UTF-8 TERM=xterm-256color '$build/gpuplan' --db '$db'; sleep 5"
    for _ in $(seq 1 100); do [ -s "$log" ] && break; sleep 0.05; done
    sleep 0.5
    tmux -S "$sock" send-keys -t b l j j j j Enter
    for d in 1 2 3 4 5 6 7 8 9 1; do tmux -S "$sock" send-keys -t b "$d"; sleep 0.05; done
    for _ in 1 2 3 4 5 6 7 8 9 0; do tmux -S "$sock" send-keys -t b BSpace; sleep 0.05; done
    tmux -S "$sock" send-keys -t b Escape BTab  # Shift-Tab from Plan: the last tab, Timeline
    for _ in $(seq 1 10); do
        tmux -S "$sock" send-keys -t b Right; sleep 0.05
        tmux -S "$sock" send-keys -t b Left; sleep 0.05
    done
    tmux -S "$sock" send-keys -t b q
    sleep 0.3
}
for i in 1 2 3 4 5; do run "$i"; done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
cat "$tmp"/timing.* | /usr/bin/python3 -c '
import sys, statistics
edit, timeline = [], []
for line in sys.stdin:
    w = line.split()
    if w[0] != "key": continue
    k, ms = int(w[1]), float(w[2])
    if 48 <= k <= 57 or k == 263: edit.append(ms)   # digits, Backspace: the plan re-evaluated
    elif k in (260, 261): timeline.append(ms)        # Left, Right on the Timeline
for name, v in (("editor keystroke on a 60-month v2 plan (re-evaluated)", edit),
                ("Timeline key on a 60-month v2 plan (redrawn)", timeline)):
    v.sort()
    print("tui %s: median %.2f ms, p99 %.2f ms, worst %.2f ms over %d keys"
          % (name, statistics.median(v), v[max(0, int(len(v) * 0.99) - 1)], v[-1], len(v)))
'
