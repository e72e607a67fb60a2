#!/usr/bin/env bash
# capacity --prometheus against a real Prometheus on loopback, loaded through promtool with 30
# days of the generated fleet of tests/cli/gen_history.py (a sample every 150 s: two a 5-minute
# bucket). The server's figures must equal the ones computed from the store after importing the
# same history (tests/cli/compare_capacity.py: to a relative 1e-9, the server adding the
# 5-minute means in another order than SQLite; counts exact), at two busy thresholds, by label,
# for scenario measure, and from VictoriaMetrics fed the same samples; then the server's refusals
# (400, 422), a timeout and a server gone.
set -u
gpuplan=$1 root=$2
py=/usr/bin/python3
. "$(dirname "$0")/lib.sh"
export HOME=$tmp
if ! command -v prometheus >/dev/null || ! command -v promtool >/dev/null; then
    echo "FAIL prometheus and promtool are not installed (apt-get install prometheus)"
    exit 1
fi
free_port() { $py -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# start_prom DIR [FLAGS...]: a Prometheus on DIR; prints its URL once it answers for the data.
start_prom() {
    local dir=$1 port; shift
    port=$(free_port)
    printf 'global:\n  scrape_interval: 1m\nscrape_configs: []\n' >"$tmp/prom.yml"
    timeout 280 prometheus --config.file="$tmp/prom.yml" --storage.tsdb.path="$dir" \
        --storage.tsdb.retention.time=10y --web.listen-address="127.0.0.1:$port" "$@" \
        >"$dir.log" 2>&1 &
    echo $! >"$dir.pid" # started in a command substitution: the pid file is what cleanup sees
    for _ in $(seq 300); do
        if curl -s "http://127.0.0.1:$port/api/v1/query?query=count(DCGM_FI_DEV_POWER_USAGE)&time=$((end - 60))" |
            grep -q '"value":\[[0-9.]*,"8"\]'; then break; fi
        sleep 0.1
    done
    echo "http://127.0.0.1:$port"
}
# 30 whole days ending at today's midnight (UTC).
end=$(( $(date +%s) / 86400 * 86400 ))
since=$((end - 30 * 86400))
$py "$root/tests/cli/gen_history.py" "$tmp" "$end" 30 150
# Blocks of 30 days, not 360 of two hours: minutes less under load (a flag promtool hides).
promtool tsdb create-blocks-from openmetrics --max-block-duration=720h "$tmp/history.om" \
    "$tmp/tsdb" >/dev/null
cp -r "$tmp/tsdb" "$tmp/tsdb2" # for a second server with a small sample limit
url=$(start_prom "$tmp/tsdb")
check "Prometheus is up with 30 days of generated blocks" curl -s "$url/api/v1/query?query=count(DCGM_FI_DEV_POWER_USAGE)&time=$((end - 60))" -o /dev/null
export GPUPLAN_DB=$tmp/a.db
"$gpuplan" import --prometheus "$url" --since "$since" --until "$end" --match '{job="dcgm"}' \
    --quiet >"$tmp/import.out" 2>&1
check "the same history imported" grep -q 'chunks, [0-9]* 5-minute samples stored' "$tmp/import.out"

# local and remote: the same window (retried once should a 5-minute bucket turn between the two,
# which moves the window's first bucket).
both() {
    local name=$1; shift
    for _ in 1 2; do
        local h=$(( $(date +%s) / 300 ))
        "$gpuplan" capacity "$@" --json >"$tmp/$name.local.json" &&
            "$gpuplan" capacity "$@" --json --prometheus "$url" --match '{job="dcgm"}' \
                ${remote_extra:-} >"$tmp/$name.remote.json" || return 1
        [ "$h" = $(( $(date +%s) / 300 )) ] && return 0
    done
}
both d30 --since 30d
check "--since 30d: the server's figures equal the imported ones" $py "$root/tests/cli/compare_capacity.py" "$tmp/d30.local.json" "$tmp/d30.remote.json"
check "the window's first hours fall out on both sides (h3: 29 days and some hours)" $py - "$tmp/d30.remote.json" "$since" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
since = int(sys.argv[2])
start = -(-(c['since_ms'] // 1000) // 3600) * 3600   # the window's first whole hour
g = {(x['uuid'], x.get('mig', '')): x for x in c['gpu_list']}
assert g[('GPU-0003-0000', '')]['hours'] == (since + 30 * 86400 - start) / 3600, g
# h3's GPU 1 reported on the first day only: the hours of it the window still holds, if any.
# (none once the window starts after that day: a run that crosses midnight after generating.)
gone = max(0, (since + 86400 - start) / 3600)
assert g.get(('GPU-0003-0001', ''), {'hours': 0})['hours'] == gone, (gone, g)
# The MIG GPU: its two instances' rows and its own, rolled up (3/7 x 80 % + 3/7 x 20 %).
assert len(g) == (11 if gone else 10), sorted(g)
mig = g[('GPU-mig0', '')]
assert abs(mig['util_mean'] - 3 / 7 * 0.8 - 3 / 7 * 0.2) < 1e-12, mig
assert mig['power_mean_w'] == 300, mig
assert c['gpus'] == (9 if gone else 8), c['gpus']
assert sorted(c['nodes']) == ['h0', 'h1', 'h2', 'h3', 'hm'], c['nodes']
assert c['server']['url'].startswith('http://127.0.0.1:')
PY
both t50 --since 31d --busy-threshold 50
check "--busy-threshold 50 over the whole history: equal" $py "$root/tests/cli/compare_capacity.py" "$tmp/t50.local.json" "$tmp/t50.remote.json"
remote_extra="--hosts-per-query 1 --concurrency 1" both split --since 30d
check "a host a query, four queries a batch: equal" $py "$root/tests/cli/compare_capacity.py" "$tmp/split.local.json" "$tmp/split.remote.json"
remote_extra="--hosts-per-query 2 --slice 7h" both sliced --since 30d
check "2 hosts a query, 7-hour time slices (the last a part of one): equal" $py "$root/tests/cli/compare_capacity.py" "$tmp/sliced.local.json" "$tmp/sliced.remote.json"
"$gpuplan" capacity --since 30d --prometheus "$url" >"$tmp/text.out"
check "the text names the server and what it computed" bash -c "grep -q 'Computed by the server $url' '$tmp/text.out' && grep -q 'quantile_over_time' '$tmp/text.out'"
"$gpuplan" capacity --since 31d --by Hostname --json --prometheus "$url" >"$tmp/by.json"
check "--by Hostname: each host's GPU-hours are its GPUs' hours" $py - "$tmp/by.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
# A MIG instance's present hours are its share of the GPU's (3 of 7); its GPU's rolled-up row
# carries no label of its own.
split = {g['uuid'] for g in c['gpu_list'] if g.get('mig')}
hours = {}
for g in c['gpu_list']:
    if g.get('mig') or g['uuid'] not in split:
        hours[g['node']] = hours.get(g['node'], 0) + g['hours'] * (3 / 7 if g.get('mig') else 1)
got = {r['value']: r['gpu_hours_present'] for r in c['by_label']}
assert set(got) == set(hours), (got, hours)
for k in got:
    assert abs(got[k] - hours[k]) < 1e-6, (got, hours)
# Energy goes with the whole GPUs' labels; a MIG GPU's is no one instance's.
whole = sum(g['energy_kwh'] for g in c['gpu_list'] if not g.get('mig') and g['uuid'] not in split)
assert abs(sum(r['energy_kwh'] for r in c['by_label']) - whole) < 1e-6
PY
"$gpuplan" capacity --since 31d --node h0 --node hm --json --prometheus "$url" >"$tmp/node.json"
check "--node names Hostname values" $py - "$tmp/node.json" "$tmp/t50.remote.json" <<'PY'
import json, sys
a, full = (json.load(open(p)) for p in sys.argv[1:3])
assert sorted(a['nodes']) == ['h0', 'hm'], a['nodes']
assert len(a['gpu_list']) == 5 and a['gpus'] == 3, a['gpu_list']
PY

# scenario measure from the server writes what it writes from the store.
cat >"$tmp/m.json" <<'JSON'
{"name": "m", "horizon_months": 1, "demand": {"gpus": 8, "utilization": 0.5},
 "self_hosted": {"gpus_per_server": 1, "server_price": 100,
   "tariff": {"periods": [{"name": "free", "hours_per_day": 24, "price_per_kwh": 0}]}},
 "cloud_options": [{"name": "od", "pricing": "on_demand", "gpus_per_instance": 1, "hourly": 1}]}
JSON
"$gpuplan" scenario save "$tmp/m.json" >/dev/null
"$gpuplan" scenario measure m --since 31d >"$tmp/ml.out" &&
    "$gpuplan" scenario export m >"$tmp/ml.json" &&
    "$gpuplan" scenario measure m --since 31d --prometheus "$url" --match '{job="dcgm"}' >"$tmp/mr.out" &&
    "$gpuplan" scenario export m >"$tmp/mr.json"
check "scenario measure --prometheus: version 3" grep -q 'as version 3' "$tmp/mr.out"
check "scenario measure --prometheus: the same demand and power as from the store" $py - "$tmp/ml.json" "$tmp/mr.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for s in (a, b):
    for k in ('since', 'until', 'nodes'):
        s['measured'].pop(k)
assert a['demand'] == b['demand'], (a['demand'], b['demand'])
assert a['self_hosted']['power'] == b['self_hosted']['power']
assert a['measured'] == b['measured'], (a['measured'], b['measured'])
PY

# VictoriaMetrics fed the same samples through its import API: the same figures.
if command -v victoria-metrics >/dev/null; then
    vport=$(free_port)
    timeout 280 victoria-metrics -storageDataPath="$tmp/vm" -httpListenAddr="127.0.0.1:$vport" \
        -retentionPeriod=100y >"$tmp/vm.log" 2>&1 &
    pids+=($!)
    vurl="http://127.0.0.1:$vport"
    for _ in $(seq 300); do curl -s "$vurl/health" | grep -q OK && break; sleep 0.1; done
    awk '/^#/ {next} {$NF = $NF "000"; print}' "$tmp/history.om" >"$tmp/vm.txt" # ms times
    curl -s --data-binary @"$tmp/vm.txt" "$vurl/api/v1/import/prometheus"
    curl -s "$vurl/internal/force_flush"
    for _ in $(seq 300); do
        curl -s "$vurl/api/v1/query?query=count(DCGM_FI_DEV_POWER_USAGE)&time=$((end - 60))" |
            grep -q '"value":\[[0-9.]*,"8"\]' && break
        sleep 0.1
    done
    url_prom=$url url=$vurl
    both vm --since 30d
    url=$url_prom
    check "VictoriaMetrics: the server's figures equal the imported ones" $py "$root/tests/cli/compare_capacity.py" "$tmp/vm.local.json" "$tmp/vm.remote.json"
else
    echo "FAIL victoria-metrics is not installed (apt-get install victoria-metrics)"
    fails=$((fails + 1))
fi

# The server's refusals and failures of the world: one line, exit 2 or 1, nothing written.
db_sum() { # the database's content (its -shm index changes on reads alone)
    $py -c 'import hashlib, sqlite3, sys
print(hashlib.sha256("\n".join(sqlite3.connect(sys.argv[1]).iterdump()).encode()).hexdigest())' "$GPUPLAN_DB"
}
before=$(db_sum)
"$gpuplan" capacity --since 30d --prometheus "$url" --match '{job=~"("}' >"$tmp/bad.out" 2>&1
rc=$?
check "a bad selector: exit 2 with the server's 400" bash -c "[ $rc = 2 ] && grep -q 'HTTP 400, bad_data' '$tmp/bad.out' && [ \$(wc -l <'$tmp/bad.out') = 1 ]"
url2=$(start_prom "$tmp/tsdb2" --query.max-samples=1000)
"$gpuplan" scenario measure m --since 30d --prometheus "$url2" >"$tmp/over.out" 2>&1
rc=$?
check "over the server's limits: exit 2 with its 422" bash -c "[ $rc = 2 ] && grep -q 'HTTP 422, execution' '$tmp/over.out'"
"$gpuplan" scenario export m >"$tmp/after.json"
check "a refused measure saves no version" cmp -s "$tmp/mr.json" "$tmp/after.json"
$py -c 'import socket,sys,time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(16)
open(sys.argv[1], "w").write(str(s.getsockname()[1])); time.sleep(60)' "$tmp/hport" &
pids+=($!)
for _ in $(seq 100); do [ -s "$tmp/hport" ] && break; sleep 0.1; done
"$gpuplan" capacity --since 30d --prometheus "http://127.0.0.1:$(cat "$tmp/hport")" --timeout 1s >"$tmp/hang.out" 2>&1
rc=$?
check "a hung server times out: exit 1" bash -c "[ $rc = 1 ] && grep -Eqi 'timed? ?out' '$tmp/hang.out'"
"$gpuplan" capacity --since 30d --prometheus "http://u:p@127.0.0.1:1" >"$tmp/cred.out" 2>&1
rc=$?
check "credentials in the URL are refused" bash -c "[ $rc = 2 ] && grep -q netrc '$tmp/cred.out'"
# The server was started in a command substitution, so it is no child to wait for: wait until
# the process has gone (a server still shutting down under load may yet answer).
gone=$(cat "$tmp/tsdb.pid")
kill "$gone"
while kill -0 "$gone" 2>/dev/null; do sleep 0.1; done
"$gpuplan" capacity --since 30d --prometheus "$url" >"$tmp/gone.out" 2>&1
rc=$?
check "a server that is gone: exit 1" bash -c "[ $rc = 1 ] && grep -Eqi 'connect' '$tmp/gone.out'"
check "nothing written by the refused and failed runs" [ "$(db_sum)" = "$before" ]

finish "capacity --prometheus"
