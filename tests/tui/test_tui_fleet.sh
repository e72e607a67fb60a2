#!/usr/bin/env bash
# The TUI's Fleet tab on telemetry days old, the real binary in tmux: every GPU keeps its last
# values with their age, the old ones dimmed and marked "stale 3 d" as `gpuplan fleet` marks
# them, never "-". Models read as people name them ("RTX 2080 SUPER"). Waits on the screen,
# never on a fixed sleep.
set -u
gpuplan=$1 root=$2
tmp=$(mktemp -d)
sock=$tmp/tmux.sock
t() { tmux -S "$sock" "$@"; }
trap 't kill-server 2>/dev/null; rm -rf "$tmp"' EXIT
export HOME=$tmp XDG_DATA_HOME=$tmp/data
unset GPUPLAN_DB NO_COLOR
fails=0
screen() { t capture-pane -p -t g; }
# Wait until CMD succeeds (up to 30 s: an ASan build on a loaded machine is slow).
check() {
    local what=$1; shift
    for _ in $(seq 1 150); do
        if "$@" >/dev/null 2>&1; then echo "ok $what"; return; fi
        sleep 0.2
    done
    echo "FAIL $what"; echo "--- screen:"; screen; fails=$((fails + 1))
}
shows() { screen | grep -qF -- "$1"; }
line_of() { screen | grep -F -- "$1"; }
start() { # WIDTH HEIGHT ENV...: gpuplan on $db
    local w=$1 h=$2; shift 2
    t kill-server 2>/dev/null
    while [ -S "$sock" ] && t has-session 2>/dev/null; do sleep 0.1; done
    rm -f "$sock"
    t -f /dev/null new-session -d -s g -x "$w" -y "$h" \
        "env TERM=xterm-256color LANG=C.UTF-8 HOME=$tmp XDG_DATA_HOME=$tmp/data GPUPLAN_DB='$db' $* '$gpuplan'; sleep 60"
}

# Two GPUs three days and an hour old, one that reports now.
db=$tmp/fleet.db
old=$(( ($(date +%s) - 3 * 86400 - 3600) * 1000 ))
m='gpu="0",UUID="GPU-old-0",modelName="NVIDIA GeForce RTX 2080 SUPER",Hostname="oldbox"'
n='gpu="1",UUID="GPU-old-1",modelName="NVIDIA H100 80GB HBM3",Hostname="oldbox"'
f='gpu="0",UUID="GPU-new-0",modelName="NVIDIA L40S",Hostname="newbox"'
cat >"$tmp/old.prom" <<PROM
DCGM_FI_DEV_GPU_UTIL{$m} 73 $old
DCGM_FI_DEV_POWER_USAGE{$m} 215.5 $old
DCGM_FI_DEV_GPU_TEMP{$m} 61 $old
DCGM_FI_DEV_GPU_UTIL{$n} 88 $old
DCGM_FI_DEV_POWER_USAGE{$n} 612 $old
PROM
# No timestamps: dated by the file's modification time, written here just before the import.
printf 'DCGM_FI_DEV_GPU_UTIL{%s} 42\nDCGM_FI_DEV_POWER_USAGE{%s} 301\n' "$f" "$f" >"$tmp/new.prom"
"$gpuplan" --db "$db" import prom "$tmp/old.prom" --node oldbox >/dev/null
"$gpuplan" --db "$db" import prom "$tmp/new.prom" --node newbox >/dev/null
# A plan, so the TUI opens on its tabs rather than the first-run screen.
"$gpuplan" --db "$db" scenario save "$root/scenarios/demo-dgx-a100.json" >/dev/null 2>&1 ||
    { echo "FAIL saving a scenario"; exit 1; }

start 120 30 NO_COLOR=1
check "the TUI is up" shows "1 Plan"
t send-keys -t g 4
check "old GPUs show on the Fleet tab, marked stale with their age" shows "stale 3 d"
check "with their last values, not '-'" bash -c "
    l=\$(tmux -S '$sock' capture-pane -p -t g | grep -F 'RTX 2080 SUPER')
    echo \"\$l\" | grep -qE ' 0 +73 +- +216 +61 ' && echo \"\$l\" | grep -q 'stale 3 d'"
check "each old GPU" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -F 'H100 SXM 80GB' | grep -qE ' 1 +88 +- +612 .*stale 3 d'"
check "the fresh GPU is not stale" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -F 'L40S' | grep -E ' 0 +42 ' | grep -qv stale"
check "the headline counts the stale apart" shows "3 GPUs (2 stale)"
check "stale rows are dimmed" bash -c "tmux -S '$sock' capture-pane -p -e -t g | grep -F 'RTX 2080 SUPER' | grep -qF \$'\\e[2m'"
check "the fresh row is not" bash -c "! tmux -S '$sock' capture-pane -p -e -t g | grep -F 'L40S' | grep -qF \$'\\e[2m'"
# The node pop-up: the readable model and the age.
t send-keys -t g j Enter
check "the node pop-up names the model and the age" bash -c "
    s=\$(tmux -S '$sock' capture-pane -p -t g)
    echo \"\$s\" | grep -q 'oldbox: 2 GPUs' && echo \"\$s\" | grep -F 'GPU-old-0' | grep -F 'RTX 2080 SUPER' | grep -q 'stale 3 d'"
t send-keys -t g Escape

# The Capacity tab reads what `gpuplan capacity` reads (the same service): the same GPUs, the
# same mean.
want=$("$gpuplan" --db "$db" capacity --since 30d --json | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
print("30 days, %d GPUs: mean %.1f %%" % (d["gpus"], d["fleet"]["util_mean"] * 100))')
t send-keys -t g 6
check "Capacity agrees with gpuplan capacity ($want)" shows "$want"

# 80 columns: no room for the model, the values and the mark stay.
start 80 24 NO_COLOR=1
check "the TUI is up at 80x24" shows "1 Plan"
t send-keys -t g 4
check "80x24: values and the stale mark" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -E '^oldbox +0 +73 ' | grep -q 'stale 3 d'"

# Short model names only ("L40S"): the model column still leaves the header its space,
# "model GPU", never "modelGPU".
# fleet_tab WHAT SCRAPE NODE COLS: a database of the one scrape and the demo plan, the TUI on
# it at COLS x 30, its Fleet tab shown.
fleet_tab() {
    db=$tmp/$3.db
    "$gpuplan" --db "$db" import prom "$2" --node "$3" >/dev/null
    "$gpuplan" --db "$db" scenario save "$root/scenarios/demo-dgx-a100.json" >/dev/null 2>&1
    start "$4" 30 NO_COLOR=1
    check "$1: the TUI is up" shows "1 Plan"
    t send-keys -t g 4
}
fleet_tab "short names" "$tmp/new.prom" newbox 120
check "short names: the header reads node, model, GPU apart" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -qE '^node +model +GPU +util '"
check "short names: the row under it" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -qE '^newbox +L40S +0 +42 '"

# A fleet with nothing busy: no useful GPU-hour to cost, so "-", never "0.00" (which reads as
# free while every GPU-hour is wasted).
i='gpu="0",UUID="GPU-idle-0",modelName="NVIDIA L40S",Hostname="idlebox"'
printf 'DCGM_FI_DEV_GPU_UTIL{%s} 0\nDCGM_FI_DEV_POWER_USAGE{%s} 35\n' "$i" "$i" >"$tmp/idle.prom"
fleet_tab "idle fleet" "$tmp/idle.prom" idlebox 160
check "idle fleet: the useful GPU-hour is '-', the idle GPU wasted" bash -c "tmux -S '$sock' capture-pane -p -t g | grep -qE '^useful GPU-hour -  idle now: 1 GPU, [0-9.]+ [A-Z]+/h wasted'"

echo "tui fleet: $fails failed"
[ "$fails" = 0 ]
