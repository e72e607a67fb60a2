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
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    rm -rf "$tmp"
}
trap cleanup EXIT
export HOME=$tmp
end=$(( $(date +%s) / 86400 * 86400 ))
start=$((end - days * 86400))
free_port() { $py -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_for() { # URL QUERY N: until QUERY at the history's last minute answers N
    for _ in $(seq 3000); do
        curl -s "$1/api/v1/query" --data-urlencode "query=$2" --data "time=$((end - 60))" |
            grep -q "\"value\":\[[0-9.]*,\"$3\"\]" && return 0
        sleep 0.1
    done
    echo "no answer $3 to $2 from $1" >&2
    return 1
}
prom=
start_prom() { # on $tmp/tsdb; sets url and prom
    local port
    port=$(free_port)
    prometheus --config.file="$tmp/prom.yml" --storage.tsdb.path="$tmp/tsdb" \
        --storage.tsdb.retention.time=10y --web.listen-address="127.0.0.1:$port" \
        >>"$tmp/prom.log" 2>&1 &
    prom=$!
    pids+=($prom)
    url=http://127.0.0.1:$port
}
stop() { kill "$1"; while kill -0 "$1" 2>/dev/null; do sleep 0.1; done; }
ticks=$(getconf CLK_TCK)
server=
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
printf 'global:\n  scrape_interval: 1m\nscrape_configs: []\n' >"$tmp/prom.yml"
echo "history: $gpus GPUs x $days days, a sample every $interval s; $(uptime | sed 's/.*load/load/')"
$py "$here/gen_fleet.py" "$tmp/fleet.om" "$end" "$days" "$gpus" "$interval"
promtool tsdb create-blocks-from openmetrics --max-block-duration=720h "$tmp/fleet.om" \
    "$tmp/tsdb" >/dev/null
start_prom
server=$prom
wait_for "$url" 'count(DCGM_FI_DEV_GPU_UTIL)' "$gpus"
raw=$(best praw --recorded no)
t0=$(date +%s.%N)
# The file given by a bare name: the group's offset is then the same from any checkout (282.1 s;
# some offsets lose an evaluation at each 2-hour block's end: docs/telemetry.md).
(cd "$(dirname "$rules")" && promtool tsdb create-blocks-from rules -q --start "$start" \
    --end "$end" --url "$url" --output-dir "$tmp/rec" "$(basename "$rules")") >/dev/null 2>&1
bf=$($py -c "print(round($(date +%s.%N) - $t0, 1))")
stop "$prom"
mv "$tmp"/rec/* "$tmp/tsdb/"
nb=$(ls "$tmp/tsdb" | grep -c '^01')
start_prom
server=$prom
wait_for "$url" 'count(count_over_time(gpu:gpuplan_gpu_util:count5m[1h]))' "$gpus"
# Its compactions merge promtool's blocks (one a rule and 2 hours) within minutes.
for _ in $(seq 1200); do [ "$(ls "$tmp/tsdb" | grep -c '^01')" -le 3 ] && break; sleep 0.5; done
rec=$(best prec)
echo "Prometheus: raw $raw; recorded $rec (backfill $bf s, $nb blocks merged into $(ls "$tmp/tsdb" | grep -c '^01')); $(uptime | sed 's/.*load/load/')"
stop "$prom"
vport=$(free_port)
victoria-metrics -storageDataPath="$tmp/vm" -httpListenAddr="127.0.0.1:$vport" \
    -retentionPeriod=100y -maxInsertRequestSize=1073741824 -search.latencyOffset=0s \
    >"$tmp/vm.log" 2>&1 &
vm=$!
server=$vm
pids+=($vm)
url=http://127.0.0.1:$vport
for _ in $(seq 300); do curl -s "$url/health" | grep -q OK && break; sleep 0.1; done
awk '/^#/ {next} {$NF = $NF "000"; print}' "$tmp/fleet.om" |
    curl -s -X POST -T - "$url/api/v1/import/prometheus" # streamed: --data-binary holds it all
curl -s "$url/internal/force_flush"
wait_for "$url" 'count(DCGM_FI_DEV_GPU_UTIL)' "$gpus"
raw=$(best vraw --recorded no)
t0=$(date +%s.%N)
vmalert -rule="$rules" -datasource.url="$url" -remoteWrite.url="$url" \
    -replay.timeFrom="$(date -u -d @"$start" +%FT%TZ)" \
    -replay.timeTo="$(date -u -d @"$end" +%FT%TZ)" -replay.disableProgressBar \
    -replay.rulesDelay=0s -replay.maxDatapointsPerQuery=10000 \
    -httpListenAddr="127.0.0.1:$(free_port)" >"$tmp/vmalert.log" 2>&1
bf=$($py -c "print(round($(date +%s.%N) - $t0, 1))")
curl -s "$url/internal/force_flush"
wait_for "$url" 'count(count_over_time(gpu:gpuplan_gpu_util:count5m[1h]))' "$gpus"
rec=$(best vrec)
same=$($py "$here/../cli/compare_rollups.py" "$tmp/vraw.db" "$tmp/vrec.db" rows)
echo "VictoriaMetrics: raw $raw; recorded $rec (vmalert replay $bf s); $same; $(uptime | sed 's/.*load/load/')"
echo "after: $(uptime | sed 's/.*load/load/')"
