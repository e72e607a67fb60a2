#!/usr/bin/env bash
# The collector against real loopback servers: every way a node can misbehave, 100 endpoints
# with 50 faulty ones, memory over 100 cycles, kill -9 at random moments, and a real Prometheus
# scraping a replay of the dcgm capture.
set -u
gpuplan=$1 root=$2
py=/usr/bin/python3
. "$(dirname "$0")/lib.sh"
export HOME=$tmp
capture="$root/tests/fixtures/telemetry/dcgm_exporter/aicr__eks_p5_8xH100-80GB-HBM3__drv580.105.08__2026-03-10__grep-sampled.prom"
redfish="$root/tests/fixtures/telemetry/redfish/telegraf__dell-idrac__Chassis_System.Embedded.1_Power.json"
timeout 300 $py "$root/tests/cli/fault_server.py" "$capture" "$redfish" "$tmp/port" 280 &
pids+=($!)
for _ in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.1; done
base="http://127.0.0.1:$(cat "$tmp/port")"
sql() { $py -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' "$1" "$2"; }

# Every fault at once, with a 3 s timeout.
export GPUPLAN_DB=$tmp/faults.db
"$gpuplan" node add good --dcgm "$base/good/ok" --redfish "$base/good/power" >/dev/null
for mode in hang hangbody 500 garbage close drip huge loop; do
    "$gpuplan" node add "f-$mode" --dcgm "$base/f-$mode/$mode" >/dev/null
done
start=$(date +%s.%N)
"$gpuplan" collect --once --timeout 3s >"$tmp/cycle" 2>&1
rc=$?
elapsed=$(echo "$(date +%s.%N) - $start" | bc)
check "collect exits 0 with faulty nodes" [ "$rc" = 0 ]
check "one cycle: 1 ok, 8 failed" grep -q "1 node ok, 8 failed" "$tmp/cycle"
check "db stats counts it: 1 collection cycle" bash -c "'$gpuplan' db stats | grep -qx 'nodes:       9 with 8 GPUs, 1 collection cycle'"
check "the cycle ends within the timeout plus one second ($elapsed s)" [ "$(echo "$elapsed < 4.5" | bc)" = 1 ]
"$gpuplan" node list >"$tmp/nodes"
check "the healthy node's 8 GPUs are stored" bash -c "grep '^good ' '$tmp/nodes' | grep -q ' 8  '"
check "hang: timed out" grep -Eq "^f-hang +.*(timed out|Timeout)" "$tmp/nodes"
check "hangbody: timed out" grep -Eq "^f-hangbody +.*(timed out|Timeout)" "$tmp/nodes"
check "500 recorded" grep -Eq "^f-500 +.*HTTP 500" "$tmp/nodes"
check "garbage recorded" grep -Eq "^f-garbage +.*expected a metric name" "$tmp/nodes"
check "closed mid-body recorded" grep -Eq "^f-close +.*(closed|Transferred a partial|partial file)" "$tmp/nodes"
check "slow drip timed out" grep -Eq "^f-drip +.*(timed out|Timeout)" "$tmp/nodes"
check "1 GB body capped" grep -Eq "^f-huge +.*larger than the cap" "$tmp/nodes"
check "redirect loop stopped" grep -Eq "^f-loop +.*redirect" "$tmp/nodes"
check "collect --fail-on-error exits 4 when a node failed" bash -c "'$gpuplan' collect --once --timeout 3s --fail-on-error >/dev/null 2>&1; [ \$? = 4 ]"
check "wall power from Redfish" bash -c "'$gpuplan' fleet | grep -q 'good: 429.0 W at the wall'"
check "fleet shows the served values" bash -c "'$gpuplan' fleet --json | $py -c '
import json, sys
g = [x for x in json.load(sys.stdin) if x[\"node\"] == \"good\"]
assert len(g) == 8, len(g)
assert {round(x[\"power_w\"], 3) for x in g if x[\"index\"] == 0} == {113.611}
assert all(x[\"model\"] == \"H100\" for x in g)
'"
check "node test prints what was parsed" bash -c "'$gpuplan' node test good | grep -q '8 GPUs, 24 samples'"
check "node test fails on a faulty node" bash -c "! '$gpuplan' node test f-500 >/dev/null"

# 100 endpoints, 50 faulty: the healthy ones all land, every faulty one is recorded.
export GPUPLAN_DB=$tmp/hundred.db
modes=(hang hangbody 500 garbage close drip huge loop)
for i in $(seq 1 100); do
    if [ $((i % 2)) = 0 ]; then
        "$gpuplan" node add "n$i" --dcgm "$base/n$i/${modes[$((i % 8))]}" >/dev/null
    else
        "$gpuplan" node add "n$i" --dcgm "$base/n$i/ok" >/dev/null
    fi
done
start=$(date +%s.%N)
"$gpuplan" collect --once --timeout 3s --concurrency 128 >"$tmp/cycle100" 2>&1
elapsed=$(echo "$(date +%s.%N) - $start" | bc)
check "100 endpoints: 50 ok, 50 failed" grep -q "50 nodes ok, 50 failed" "$tmp/cycle100"
check "100 endpoints: within the timeout plus one second ($elapsed s)" [ "$(echo "$elapsed < 4.5" | bc)" = 1 ]
check "every healthy node's samples are stored" [ "$(sql "$GPUPLAN_DB" "SELECT count(DISTINCT node_id) FROM series")" = 50 ]
check "every faulty node has its error" [ "$(sql "$GPUPLAN_DB" "SELECT count(*) FROM node WHERE last_error IS NOT NULL")" = 50 ]

# Memory does not grow over 100 cycles (fast faults only, so the test stays short).
export GPUPLAN_DB=$tmp/mem.db
for i in $(seq 1 20); do
    m=ok; [ $((i % 4)) = 0 ] && m=500; [ $((i % 4)) = 1 ] && m=garbage; [ $((i % 4)) = 2 ] && m=loop
    "$gpuplan" node add "m$i" --dcgm "$base/m$i/$m" >/dev/null
done
# Under AddressSanitizer freed memory waits in a quarantine: keep it small, so growth shows.
export ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}quarantine_size_mb=1"
rss10=$( { /usr/bin/time -f %M "$gpuplan" collect --cycles 10 --interval 0.01s >/dev/null; } 2>&1 )
rss100=$( { /usr/bin/time -f %M "$gpuplan" collect --cycles 100 --interval 0.01s >/dev/null; } 2>&1 )
check "100 cycles: peak RSS $rss100 KB against $rss10 KB for 10" [ "$rss100" -lt $((rss10 * 12 / 10 + 2048)) ]
check "100 cycles recorded" [ "$(sql "$GPUPLAN_DB" "SELECT count(*) FROM collect_cycle")" = 110 ]

# kill -9 at random moments: the database stays sound and every reported cycle is there.
export GPUPLAN_DB=$tmp/kill.db
for i in $(seq 1 10); do "$gpuplan" node add "k$i" --dcgm "$base/k$i/ok" >/dev/null; done
reported=0
for round in $(seq 1 20); do
    "$gpuplan" collect --interval 0.05s >"$tmp/kill.out" 2>&1 &
    pid=$!
    sleep "0.$((RANDOM % 9 + 1))"
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    reported=$((reported + $(grep -c '^cycle ' "$tmp/kill.out")))
done
check "integrity_check after 20 kills" [ "$(sql "$GPUPLAN_DB" "PRAGMA integrity_check")" = ok ]
stored=$(sql "$GPUPLAN_DB" "SELECT count(*) FROM collect_cycle")
check "every reported cycle is stored ($reported reported, $stored stored)" [ "$stored" -ge "$reported" ]

# A real Prometheus scraping the replay; gpuplan reads it through the HTTP API.
if command -v prometheus >/dev/null; then
    pport=$($py -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    cat >"$tmp/prom.yml" <<YML
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: dcgm-replay
    metrics_path: /replay/ok
    static_configs:
      - targets: ['127.0.0.1:$(cat "$tmp/port")']
YML
    timeout 200 prometheus --config.file="$tmp/prom.yml" --storage.tsdb.path="$tmp/tsdb" \
        --web.listen-address="127.0.0.1:$pport" >"$tmp/prom.log" 2>&1 &
    pids+=($!)
    up=0
    for _ in $(seq 300); do
        if curl -s "http://127.0.0.1:$pport/api/v1/query?query=DCGM_FI_DEV_POWER_USAGE" | grep -q '"result":\[{'; then up=1; break; fi
        sleep 0.1
    done
    check "Prometheus is up and has scraped the replay" [ "$up" = 1 ]
    export GPUPLAN_DB=$tmp/prom.db
    "$gpuplan" node add fleet --prometheus "http://127.0.0.1:$pport" --match '{job="dcgm-replay"}' >/dev/null
    check "collect through the Prometheus API" bash -c "'$gpuplan' collect --once | grep -q '1 node ok, 0 failed'"
    check "stored numbers match what was served" bash -c "'$gpuplan' fleet --json | $py -c '
import json, sys
g = json.load(sys.stdin)
assert len(g) == 8, len(g)
power = {x[\"index\"]: round(x[\"power_w\"], 3) for x in g}
assert power[0] == 113.611 and power[1] == 68.347, power
assert all(x[\"temp_c\"] > 0 for x in g)
'"
else
    echo "FAIL prometheus is not installed (apt-get install prometheus)"
    fails=$((fails + 1))
fi

finish "collect"
