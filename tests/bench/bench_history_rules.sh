#!/usr/bin/env bash
# import --prometheus from the raw series and from gpuplan's recorded series
# (contrib/prometheus/gpuplan-history.rules.yml), on a real Prometheus (rules backfilled with
# promtool tsdb create-blocks-from rules) and a real VictoriaMetrics (rules replayed by
# vmalert). The fleet: tests/bench/gen_fleet.py, GPUS GPUs over DAYS days, a sample every
# INTERVAL seconds. Prints for each server: the load, the backfill's wall time, the import's
# wall time (best of 3, each into a new database), the server's CPU time for that run (from
# /proc) and gpuplan's, and the 5-minute rows stored; on VictoriaMetrics (aligned replay) the
# rows from the recorded series must equal the raw ones (the script fails otherwise).
# Usage: tests/bench/bench_history_rules.sh BUILD_DIR [DAYS] [GPUS] [INTERVAL]   (3 100 15)
set -eu
build=$1 days=${2:-3} gpus=${3:-100} interval=${4:-15}
here=$(cd "$(dirname "$0")" && pwd)
rules=$here/../../contrib/prometheus/gpuplan-history.rules.yml
gpuplan=$build/gpuplan
py=/usr/bin/python3
tmp=$(mktemp -d /var/tmp/gpuplan-bench-hrules-XXXXXX)
# The servers of the rules tests (tests/cli/rules_servers.sh), up as long as the bench runs and
# waited on for up to 5 minutes (a large fleet takes that long to be served).
server_life=0 wait_tries=3000
. "$here/../cli/rules_servers.sh"
trap 'stop_servers; rm -rf "$tmp"' EXIT
export HOME=$tmp
end=$(( $(date +%s) / 86400 * 86400 ))
start=$((end - days * 86400))
ticks=$(getconf CLK_TCK)
server= # the pid of the server measured
server_cpu() { awk -v t="$ticks" '{printf "%.2f", ($14 + $15) / t}' "/proc/$server/stat"; }
# best NAME ARGS...: the import's best wall time of 3 (each into a new $tmp/NAME.db) and the
# server's CPU time in that run.
best() {
    local name=$1; shift
    local bw=999999 w c0 line t
    for _ in 1 2 3; do
        rm -f "$tmp/$name.db"*
        c0=$(server_cpu)
        t=$( { GPUPLAN_DB=$tmp/$name.db /usr/bin/time -f '%e %U %S' "$gpuplan" import --quiet \
            --prometheus "$url" --since "$start" --until "$end" --node bench "$@" \
            >"$tmp/$name.out"; } 2>&1 | tail -1)
        w=${t%% *}
        if $py -c "import sys; sys.exit(0 if $w < $bw else 1)"; then
            bw=$w
            line="$w s wall, server CPU $($py -c "print(round($(server_cpu) - $c0, 2))") s, gpuplan CPU $($py -c "print(round(sum(map(float, '${t#* }'.split())), 2))") s"
        fi
    done
    grep -q "read the $( [ "$name" = "${name%rec}" ] && echo raw || echo recorded) series" "$tmp/$name.out" ||
        { cat "$tmp/$name.out" >&2; return 1; }
    echo "$line, $($py "$here/../cli/rollups5m.py" count "$tmp/$name.db") rows"
}
echo "history: $gpus GPUs x $days days, a sample every $interval s; $(uptime | sed 's/.*load/load/')"
$py "$here/gen_fleet.py" "$tmp/fleet.om" "$end" "$days" "$gpus" "$interval"
promtool tsdb create-blocks-from openmetrics --max-block-duration=720h "$tmp/fleet.om" \
    "$tmp/tsdb" >/dev/null
start_prom praw 'count(DCGM_FI_DEV_GPU_UTIL)' "$gpus"
server=$(cat "$tmp/praw.pid")
raw=$(best praw --recorded no)
t0=$(date +%s.%N)
# The file given by a bare name: the group's offset is then the same from any checkout (282.1 s;
# some offsets lose an evaluation at each 2-hour block's end: docs/telemetry.md).
(cd "$(dirname "$rules")" && promtool tsdb create-blocks-from rules -q --start "$start" \
    --end "$end" --url "$url" --output-dir "$tmp/rec" "$(basename "$rules")") >/dev/null 2>&1
bf=$($py -c "print(round($(date +%s.%N) - $t0, 1))")
stop_server praw
mv "$tmp"/rec/* "$tmp/tsdb/"
nb=$(ls "$tmp/tsdb" | grep -c '^01')
start_prom prec 'count(count_over_time(gpu:gpuplan_gpu_util:count5m[1h]))' "$gpus"
server=$(cat "$tmp/prec.pid")
# Its compactions merge promtool's blocks (one a rule and 2 hours) within minutes.
for _ in $(seq 1200); do [ "$(ls "$tmp/tsdb" | grep -c '^01')" -le 3 ] && break; sleep 0.5; done
rec=$(best prec)
echo "Prometheus: raw $raw; recorded $rec (backfill $bf s, $nb blocks merged into $(ls "$tmp/tsdb" | grep -c '^01')); $(uptime | sed 's/.*load/load/')"
stop_server prec
start_vm -maxInsertRequestSize=1073741824
server=$(cat "$tmp/vm.pid")
vm_import "$tmp/fleet.om"
wait_for "$url" 'count(DCGM_FI_DEV_GPU_UTIL)' "$gpus"
raw=$(best vraw --recorded no)
t0=$(date +%s.%N)
vm_replay "$start" "$end"
bf=$($py -c "print(round($(date +%s.%N) - $t0, 1))")
curl -s "$url/internal/force_flush"
wait_for "$url" 'count(count_over_time(gpu:gpuplan_gpu_util:count5m[1h]))' "$gpus"
rec=$(best vrec)
same=$($py "$here/../cli/compare_rollups.py" "$tmp/vraw.db" "$tmp/vrec.db" rows)
echo "VictoriaMetrics: raw $raw; recorded $rec (vmalert replay $bf s); $same; $(uptime | sed 's/.*load/load/')"
echo "after: $(uptime | sed 's/.*load/load/')"
