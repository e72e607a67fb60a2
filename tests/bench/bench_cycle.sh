#!/usr/bin/env bash
# One collection cycle over 1,000 loopback endpoints (8 GPUs each): wall time and peak memory.
# Target: under 2 s, under 100 MB. Usage: bench_cycle.sh GPUPLAN SOURCE_ROOT
set -eu
gpuplan=$1 root=$2
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'kill $server 2>/dev/null; rm -rf "$tmp"' EXIT
capture="$root/tests/fixtures/telemetry/dcgm_exporter/aicr__eks_p5_8xH100-80GB-HBM3__drv580.105.08__2026-03-10__grep-sampled.prom"
redfish="$root/tests/fixtures/telemetry/redfish/telegraf__dell-idrac__Chassis_System.Embedded.1_Power.json"
timeout 300 $py "$root/tests/cli/fault_server.py" "$capture" "$redfish" "$tmp/port" 280 &
server=$!
for _ in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.1; done
base="http://127.0.0.1:$(cat "$tmp/port")"
export GPUPLAN_DB=$tmp/cycle.db HOME=$tmp
for i in $(seq 1 1000); do echo "node add n$i --dcgm $base/n$i/ok"; done | while read -r line; do "$gpuplan" $line >/dev/null; done
"$gpuplan" collect --once --concurrency 64 >/dev/null   # warm: GPUs and series exist
for i in 1 2 3; do
    out=$( { /usr/bin/time -f '%e %M' "$gpuplan" collect --once --concurrency 64; } 2>&1 )
    echo "cycle over 1000 endpoints: $(echo "$out" | grep '^cycle') | wall ${out##*$'\n'}" |
        awk '{print $0}' | sed 's/| wall \([0-9.]*\) \([0-9]*\)$/| whole process \1 s, peak RSS \2 KB/'
done
