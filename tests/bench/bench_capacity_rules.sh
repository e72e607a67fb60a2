#!/usr/bin/env bash
# capacity --prometheus from the raw series and from gpuplan's recorded series
# (contrib/prometheus/gpuplan-capacity.rules.yml), at growing fleet sizes, on a real Prometheus
# (rules backfilled with promtool tsdb create-blocks-from rules) and a real VictoriaMetrics
# (rules replayed by vmalert). The fleet: tests/bench/gen_fleet.py, DAYS days, a sample every
# 5 minutes. Prints for each size and server: the load, the backfill's wall time, capacity's
# wall time (best of 3), the server's CPU time for that run (from /proc) and gpuplan's, and the
# fleet's busy share from each (they must agree within 0.5 % of it; the script fails
# otherwise). Prometheus is measured once its compactions have merged the backfilled blocks.
# Usage: tests/bench/bench_capacity_rules.sh BUILD_DIR [DAYS] [SIZES]   (default 14 "25 100 400")
# SERVERS="prometheus victoriametrics" (the default) names the servers to measure.
set -eu
build=$1 days=${2:-14} sizes=${3:-25 100 400}
servers=" ${SERVERS:-prometheus victoriametrics} "
here=$(cd "$(dirname "$0")" && pwd)
rules=$here/../../contrib/prometheus/gpuplan-capacity.rules.yml
gpuplan=$build/gpuplan
py=/usr/bin/python3
tmp=$(mktemp -d /var/tmp/gpuplan-bench-rules-XXXXXX)
# The servers of the rules tests (tests/cli/rules_servers.sh), up as long as the bench runs and
# waited on for up to 5 minutes (a large fleet takes that long to be served).
server_life=0 wait_tries=3000
. "$here/../cli/rules_servers.sh"
trap 'stop_servers; rm -rf "$tmp"' EXIT
export GPUPLAN_DB=$tmp/bench.db HOME=$tmp
end=$(( $(date +%s) / 86400 * 86400 ))
start=$((end - days * 86400))
ticks=$(getconf CLK_TCK)
server= # the pid of the server measured
server_cpu() { awk -v t="$ticks" '{printf "%.2f", ($14 + $15) / t}' "/proc/$server/stat"; }
# best NAME ARGS...: capacity's best wall time of 3 and the server's CPU time in that run, its
# JSON in $tmp/NAME.json.
best() {
    local name=$1; shift
    local bw=999999 w c0 line t
    for _ in 1 2 3; do
        c0=$(server_cpu)
        t=$( { /usr/bin/time -f '%e %U %S' "$gpuplan" capacity --since "${days}d" --json \
            --prometheus "$url" "$@" >"$tmp/$name.json"; } 2>&1 | tail -1)
        w=${t%% *}
        if $py -c "import sys; sys.exit(0 if $w < $bw else 1)"; then
            bw=$w
            line="$w s wall, server CPU $($py -c "print(round($(server_cpu) - $c0, 2))") s, gpuplan CPU $($py -c "print(round(sum(map(float, '${t#* }'.split())), 2))") s"
        fi
    done
    echo "$line"
}
# agree RAW REC: the fleet's busy share from each, and whether they agree within 0.5 %.
agree() {
    $py - "$tmp/$1.json" "$tmp/$2.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
x, y = a['fleet']['busy_share'], b['fleet']['busy_share']
assert b['server']['series'].startswith('recorded'), b['server']['series']
ok = abs(x - y) <= 0.005 * x
print(f"busy share {x:.6f} raw, {y:.6f} recorded: {'agree' if ok else 'DIFFER'}")
sys.exit(0 if ok else 1)
PY
}
echo "history: $days days, a sample every 5 minutes; $(uptime | sed 's/.*load/load/')"
for n in $sizes; do
    rm -rf "$tmp/tsdb" "$tmp/rec" "$tmp/vm" "$tmp/fleet.om"
    # Only VictoriaMetrics: the fleet streams into it (10,000 GPUs x 30 days is 35 GB of text).
    [[ $servers == *" prometheus "* ]] && $py "$here/gen_fleet.py" "$tmp/fleet.om" "$end" "$days" "$n"
    if [[ $servers == *" prometheus "* ]]; then
        promtool tsdb create-blocks-from openmetrics --max-block-duration=720h "$tmp/fleet.om" \
            "$tmp/tsdb" >/dev/null
        start_prom praw 'count(DCGM_FI_DEV_GPU_UTIL)' "$n"
        server=$(cat "$tmp/praw.pid")
        raw=$(best praw --recorded no)
        t0=$(date +%s.%N)
        # The file by its bare name: the evaluation offset the same from any checkout.
        (cd "$(dirname "$rules")" && promtool tsdb create-blocks-from rules -q --start "$start" \
            --end "$end" --url "$url" --output-dir "$tmp/rec" "$(basename "$rules")") >/dev/null 2>&1
        bf=$($py -c "print(round($(date +%s.%N) - $t0, 1))")
        stop_server praw
        mv "$tmp"/rec/* "$tmp/tsdb/"
        nb=$(ls "$tmp/tsdb" | grep -c '^01')
        start_prom prec 'count(count_over_time(gpu:gpuplan_gpu_util:avg5m[1h]))' "$n"
        server=$(cat "$tmp/prec.pid")
        # Its compactions merge promtool's blocks (one a rule and 2 hours) within minutes.
        for _ in $(seq 1200); do [ "$(ls "$tmp/tsdb" | grep -c '^01')" -le 3 ] && break; sleep 0.5; done
        rec=$(best prec)
        echo "Prometheus, $n GPUs x $days days: raw $raw; recorded $rec (backfill $bf s, $nb blocks merged into $(ls "$tmp/tsdb" | grep -c '^01')); $(agree praw prec)"
        stop_server prec
    fi
    [[ $servers == *" victoriametrics "* ]] || continue
    start_vm -maxInsertRequestSize=1073741824
    server=$(cat "$tmp/vm.pid")
    t0=$(date +%s.%N)
    if [ -f "$tmp/fleet.om" ]; then vm_import "$tmp/fleet.om"; else $py "$here/gen_fleet.py" - "$end" "$days" "$n" | vm_import; fi
    wait_for "$url" 'count(DCGM_FI_DEV_GPU_UTIL)' "$n"
    load=$($py -c "print(round($(date +%s.%N) - $t0, 1))")
    raw=$(best vraw --recorded no)
    echo "VictoriaMetrics, $n GPUs x $days days: raw $raw (import $load s)"
    # A replay request holds every series times its points in the server's memory: at most
    # 5 M (10,000 GPUs x 30 days in one request took VictoriaMetrics past 12 GB), and its
    # results wait in vmalert's queue (the bins' count_values make a series for each bin).
    points=$((5000000 / n)); [ "$points" -gt 10000 ] && points=10000
    t0=$(date +%s.%N)
    vm_replay "$start" "$end" -replay.maxDatapointsPerQuery="$points" -remoteWrite.maxQueueSize=20000000 ||
        { echo "vmalert failed:"; tail -5 "$tmp/vmalert.log"; exit 1; } >&2
    bf=$($py -c "print(round($(date +%s.%N) - $t0, 1))")
    curl -s "$url/internal/force_flush"
    wait_for "$url" 'count(count_over_time(gpu:gpuplan_gpu_util:avg5m[1h]))' "$n"
    rec=$(best vrec)
    echo "VictoriaMetrics, $n GPUs x $days days: raw $raw; recorded $rec (import $load s, vmalert replay $bf s; $(uptime | sed 's/.*load/load/')); $(agree vraw vrec)"
    stop_server vm
done
echo "after: $(uptime | sed 's/.*load/load/')"
