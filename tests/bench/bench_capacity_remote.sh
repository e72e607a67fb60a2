#!/usr/bin/env bash
# capacity --prometheus against import --prometheus + capacity, on the same history in a real
# Prometheus: 30 days of tests/cli/gen_history.py's fleet (10 GPU series, a sample every 60 s,
# 1.9 M samples), loaded through promtool. Prints, best of 3 each, the wall time and the CPU
# time of gpuplan and of the Prometheus server (from /proc), and the load average.
# Usage: tests/bench/bench_capacity_remote.sh BUILD_DIR [DAYS]
set -eu
build=$1 days=${2:-30}
here=$(cd "$(dirname "$0")" && pwd)
gpuplan=$build/gpuplan
py=/usr/bin/python3
tmp=$(mktemp -d /var/tmp/gpuplan-bench-remote-XXXXXX)
prom=
cleanup() { [ -n "$prom" ] && kill "$prom" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
end=$(( $(date +%s) / 86400 * 86400 ))
$py "$here/../cli/gen_history.py" "$tmp" "$end" "$days" 60
promtool tsdb create-blocks-from openmetrics --max-block-duration=720h "$tmp/history.om" \
    "$tmp/tsdb" >/dev/null
rm "$tmp/history.om"
port=$($py -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
printf 'global:\n  scrape_interval: 1m\nscrape_configs: []\n' >"$tmp/prom.yml"
prometheus --config.file="$tmp/prom.yml" --storage.tsdb.path="$tmp/tsdb" \
    --storage.tsdb.retention.time=10y --web.listen-address="127.0.0.1:$port" >"$tmp/prom.log" 2>&1 &
prom=$!
url=http://127.0.0.1:$port
for _ in $(seq 600); do
    curl -s "$url/api/v1/query?query=count(DCGM_FI_DEV_POWER_USAGE)&time=$((end - 60))" |
        grep -q '"value":\[[0-9.]*,"8"\]' && break
    sleep 0.1
done
ticks=$(getconf CLK_TCK)
server_cpu() { awk -v t="$ticks" '{printf "%.2f", ($14 + $15) / t}' "/proc/$prom/stat"; }
# best WHAT CMD...: the best of 3 runs by wall time, with its CPU times.
best() {
    local what=$1; shift
    local bw=999999 line
    for _ in 1 2 3; do
        local s0 c0 w
        s0=$(server_cpu)
        c0=$( { /usr/bin/time -f '%e %U %S' "$@" >/dev/null; } 2>&1 | tail -1)
        w=${c0%% *}
        if $py -c "import sys; sys.exit(0 if $w < $bw else 1)"; then
            bw=$w
            line="$what: $w s wall; gpuplan CPU $(echo "$c0" | awk '{print $2 + $3}') s; server CPU $($py -c "print(round($(server_cpu) - $s0, 2))") s"
        fi
    done
    echo "$line"
}
export GPUPLAN_DB=$tmp/bench.db HOME=$tmp
echo "history: $days days, 10 GPU series, a sample every 60 s; $(uptime | sed 's/.*load/load/')"
best "capacity --prometheus --since ${days}d" "$gpuplan" capacity --since "${days}d" --json \
    --prometheus "$url" --match '{job="dcgm"}'
s0=$(server_cpu)
/usr/bin/time -f 'import --prometheus: %e s wall; gpuplan CPU %U+%S s' "$gpuplan" import \
    --prometheus "$url" --since "$((end - days * 86400))" --until "$end" --match '{job="dcgm"}' \
    --quiet >/dev/null
echo "  (server CPU of the import: $($py -c "print(round($(server_cpu) - $s0, 2))") s)"
best "capacity --since ${days}d from the store" "$gpuplan" capacity --since "${days}d" --json
echo "after: $(uptime | sed 's/.*load/load/')"
