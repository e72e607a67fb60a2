#!/usr/bin/env bash
# gpuplan exporter end to end, on loopback only: a database with two days of telemetry
# (gen_telemetry.py) and three saved scenarios (one priced from the catalog); /metrics checked
# by promtool and against `capacity`'s own figures; a real Prometheus scraping it (OpenMetrics,
# by content negotiation) answers a query per served family and every PromQL expression of the
# Grafana dashboard and the rules file; a scrape in the middle of a collection cycle; a scrape
# of a database on a read-only bind mount (root) or a read-only file and folder (others).
set -u
gpuplan=$1 root=$2
py=/usr/bin/python3
. "$(dirname "$0")/lib.sh"
on_exit() { # every child gone, the read-only files removable; KEEP=DIR: a copy kept there
    wait 2>/dev/null
    chmod -R u+w "$tmp" 2>/dev/null
    [ -z "${KEEP:-}" ] || cp -r "$tmp" "$KEEP"
}
export GPUPLAN_DB=$tmp/db HOME=$tmp
for tool in prometheus promtool curl ss; do
    command -v $tool >/dev/null || { echo "FAIL $tool is not installed (tools/dev test installs it)"; exit 1; }
done
free_port() { $py -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# start_exporter OUT ARGS...: the exporter in the background on a free loopback port; waits for
# the line naming its URL (printed once the port answers) and sets $url.
start_exporter() {
    local out=$1; shift
    timeout 250 "$@" >"$out" 2>"$out.err" &
    exp_pid=$!
    pids+=($!)
    url=
    for _ in $(seq 300); do
        url=$(sed -n 's/^gpuplan exporter: serving //p' "$out")
        [ -n "$url" ] && return 0
        kill -0 $! 2>/dev/null || break
        sleep 0.1
    done
    echo "exporter did not start: $(cat "$out.err")"
    return 1
}
# promtool's only finding may be OpenCost's name node_gpu_count (its "_count" suffix is a lint).
promtool_ok() {
    local found
    found=$(promtool check metrics <"$1" 2>&1 | grep -v '^node_gpu_count non-histogram and non-summary metrics should not have "_count" suffix$')
    [ -z "$found" ] || { echo "$found"; return 1; }
}
value() { # FILE SAMPLE-PREFIX: the value of the one sample line starting with it
    awk -v p="$2" 'index($0, p) == 1 { print $NF; n++ } END { exit n != 1 }' "$1"
}

$py "$root/tests/cli/gen_telemetry.py" "$tmp" 2 a b >/dev/null
"$gpuplan" import prom "$tmp/a.prom" --node a >/dev/null
"$gpuplan" import prom "$tmp/b.prom" --node b >/dev/null
"$gpuplan" pricing list --limit 1 >/dev/null # the bundled catalog, loaded once (a write)
dgx="Demo: ten DGX A100 servers against AWS p4d.24xlarge"
"$gpuplan" scenario save "$root/scenarios/demo-dgx-a100.json" >/dev/null
"$gpuplan" scenario save "$root/scenarios/demo-tou-loan.json" >/dev/null
$py - "$root/scenarios/demo-dgx-a100.json" "$tmp/cat.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d['name'] = 'catalog "p5" plan'   # a quote in a label value, escaped on the way out
d['cloud_options'].append({'name': 'p5 catalog', 'pricing': 'on_demand',
                           'catalog': 'aws/p5.48xlarge/us-east-1'})
d['self_hosted']['residual_pct'] = 0.002  # an exit value, flat (2,000: spot stays cheapest)
json.dump(d, open(sys.argv[2], 'w'))
PY
"$gpuplan" scenario save "$tmp/cat.json" >/dev/null
"$gpuplan" capacity --since 7d --scenario "$dgx" --by pod --json >"$tmp/cap.json"

check "a bad --listen is exit 2" bash -c "'$gpuplan' exporter --listen nowhere >/dev/null 2>&1; [ \$? = 2 ]"
check "the default address is loopback, port 9402" bash -c "'$gpuplan' exporter --help | grep -q '127.0.0.1:9402'"
start_exporter "$tmp/exp.out" "$gpuplan" exporter --listen 127.0.0.1:0 --scenario "$dgx" --by pod || exit 1
main_pid=$exp_pid
main_port=${url##*:}
main_port=${main_port%/metrics}
check "a port in use: exit 1, one line naming it" bash -c "'$gpuplan' exporter --listen 127.0.0.1:$main_port >'$tmp/inuse.out' 2>&1; [ \$? = 1 ] &&
    grep -q '^gpuplan: 127.0.0.1:$main_port: cannot listen' '$tmp/inuse.out' && [ \$(wc -l <'$tmp/inuse.out') = 1 ]"
check "/metrics answers in the text format" bash -c "curl -sf -D '$tmp/h.txt' '$url' >'$tmp/m.txt' &&
    grep -qi '^content-type: text/plain; version=0.0.4' '$tmp/h.txt'"
check "promtool check metrics" promtool_ok "$tmp/m.txt"
check "OpenMetrics when asked for" bash -c "curl -sf -D '$tmp/oh.txt' -H 'Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5' '$url' >'$tmp/om.txt' &&
    grep -qi '^content-type: application/openmetrics-text; version=1.0.0' '$tmp/oh.txt' &&
    [ \"\$(tail -n1 '$tmp/om.txt')\" = '# EOF' ] && grep -q '^# TYPE gpuplan_scenario_cheapest info$' '$tmp/om.txt' &&
    grep -q '^# UNIT gpuplan_window_seconds seconds$' '$tmp/om.txt'"
check "404 elsewhere, 405 for POST" bash -c "[ \$(curl -s -o /dev/null -w '%{http_code}' '${url%/metrics}/nothing') = 404 ] &&
    [ \$(curl -s -o /dev/null -w '%{http_code}' -X POST '$url') = 405 ]"
check "the figures are capacity's" $py - "$tmp/cap.json" "$tmp/m.txt" <<'PY'
import json, re, sys
c = json.load(open(sys.argv[1]))
m = {}
for line in open(sys.argv[2]):
    if not line.startswith('#'):
        k, v = line.rsplit(' ', 1)
        m[k] = float(v)
def close(a, b):
    assert abs(a - b) <= 1e-9 * max(1, abs(b)), (a, b)
rate = c['chargeback']['allin_per_gpu_hour'] if 'chargeback' in c else c['allin']['allin_per_gpu_hour']
# gen_telemetry.py, per node over its two days: GPUs 0 and 1 busy 12 h a day, GPU 2 busy all
# day, GPU 3 idle: 96 idle GPU-hours of 192, and 96 busy ones.
for n in ('a', 'b'):
    assert m['node_gpu_count{node="%s"}' % n] == c['nodes'][n]['gpus'] == 4
    close(m['node_gpu_hourly_cost{node="%s"}' % n], rate)
    close(m['gpuplan_node_busy_ratio{node="%s"}' % n], 0.5)
    close(m['gpuplan_node_idle_cost{node="%s",currency="USD"}' % n], 96 * rate)
    close(m['gpuplan_node_busy_gpu_hour_cost{node="%s",currency="USD"}' % n], 192 * rate / 96)
    for g in (0, 1, 2, 3):
        row = [x for x in c['gpu_list'] if x['node'] == n and x['index'] == g][0]
        key = 'node="%s",gpu="%d",uuid="%s",model="%s",mig=""' % (n, g, row['uuid'], row['model'])
        close(m['gpuplan_gpu_busy_ratio{%s}' % key], row['busy_share'])
        close(m['gpuplan_gpu_idle_cost{%s,currency="USD"}' % key], [24, 24, 0, 48][g] * rate)
close(m['gpuplan_fleet_idle_cost{currency="USD"}'], 192 * rate)
close(m['gpuplan_fleet_busy_gpu_hour_cost{currency="USD"}'], 2 * rate)
lab = {x['value']: x for x in c['by_label']}
close(m['gpuplan_chargeback_cost{label="pod",value="train-1",currency="USD"}'], lab['train-1']['allin_cost'])
close(m['gpuplan_chargeback_used_gpu_seconds{label="pod",value="train-1"}'], lab['train-1']['gpu_hours_used'] * 3600)
assert m['gpuplan_scenario_cheapest_info{scenario="Demo: ten DGX A100 servers against AWS p4d.24xlarge",option="p4d spot"}'] == 1
assert m['gpuplan_scenario_up{scenario="catalog \\"p5\\" plan"}'] == 1
assert m['gpuplan_scenario_price_age_seconds{scenario="catalog \\"p5\\" plan",option="p5 catalog"}'] > 0
PY
"$gpuplan" capacity --since 7d --price-per-kwh 0.1 --json >"$tmp/cape.json"
check "--scenario and --price-per-kwh together are refused" bash -c "'$gpuplan' exporter --scenario x --price-per-kwh 1 >/dev/null 2>&1; [ \$? = 2 ]"
main_url=$url
start_exporter "$tmp/expe.out" "$gpuplan" exporter --listen 127.0.0.1:0 --price-per-kwh 0.1 || exit 1
check "/metrics with --price-per-kwh" bash -c "curl -sf '$url' >'$tmp/me.txt'"
check "energy-priced money is capacity's (figures)" $py - "$tmp/cape.json" "$tmp/me.txt" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
m = {}
for line in open(sys.argv[2]):
    if not line.startswith('#'):
        k, v = line.rsplit(' ', 1)
        m[k] = float(v)
def close(a, b):
    assert abs(a - b) <= 1e-9 * max(1, abs(b)), (a, b)
for n in ('a', 'b'):
    close(m['gpuplan_node_idle_cost{node="%s",currency="USD"}' % n], c['nodes'][n]['idle_cost'])
    close(m['gpuplan_node_busy_gpu_hour_cost{node="%s",currency="USD"}' % n],
          c['nodes'][n]['cost_per_useful_gpu_hour'])
assert not any(k.startswith('node_gpu_hourly_cost') for k in m)  # no all-in without a scenario
PY
url=$main_url
"$gpuplan" report "$dgx" --format json >"$tmp/dgx.json"
"$gpuplan" report "$tmp/cat.json" --format json >"$tmp/catr.json"
check "scenario totals are report's" $py - "$tmp/dgx.json" "$tmp/m.txt" "$tmp/catr.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
line = [l for l in text.splitlines() if l.startswith('gpuplan_scenario_option_horizon_cost{scenario="Demo: ten DGX') and 'self_hosted' in l][0]
total = float(line.rsplit(' ', 1)[1])
want = r['self_hosted']['total']
assert abs(total - want) <= 1e-6 * want, (total, want)
# 2.1: the exit value within owning's total, with its basis; the plan's cheapest is spot, so
# the cheapest with guaranteed capacity beside it.
r = json.load(open(sys.argv[3]))
sc = 'scenario="catalog \\"p5\\" plan"'
ev = 'gpuplan_scenario_exit_value{%s,basis="%s",currency="%s"} ' % (
    sc, r['self_hosted']['exit_value_basis'], r['currency'])
line = [l for l in text.splitlines() if l.startswith(ev)]
assert len(line) == 1 and r['self_hosted']['exit_value'] > 0, (ev, line)
got = float(line[0].rsplit(' ', 1)[1])
assert abs(got - r['self_hosted']['exit_value']) <= 1e-6 * got, (got, r['self_hosted'])
assert r['cheapest_rests_on_spot'] and r['cheapest_guaranteed'], r['cheapest_guaranteed']
want = 'gpuplan_scenario_cheapest_guaranteed_info{%s,option="%s"} 1' % (sc, r['cheapest_guaranteed'])
assert want in text.splitlines(), want
PY
check "cached between changes: no refresh for a second scrape" bash -c "curl -sf '$url' >'$tmp/m2.txt' &&
    [ \"\$(grep '^gpuplan_exporter_refreshes_total ' '$tmp/m.txt')\" = \"\$(grep '^gpuplan_exporter_refreshes_total ' '$tmp/m2.txt')\" ]"

# ---- a real Prometheus scrapes it (it asks for OpenMetrics first) --------------------------
pport=$(free_port)
hostport=${url#http://}
hostport=${hostport%/metrics}
cat >"$tmp/prom.yml" <<YML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files: ["$root/contrib/prometheus/gpuplan.rules.yml"]
scrape_configs:
  - job_name: gpuplan
    static_configs: [{targets: ["$hostport"]}]
YML
timeout 250 prometheus --config.file="$tmp/prom.yml" --storage.tsdb.path="$tmp/tsdb" \
    --web.listen-address="127.0.0.1:$pport" >"$tmp/prom.log" 2>&1 &
prom_pid=$!
pids+=($prom_pid)
prom="http://127.0.0.1:$pport"
q() { curl -sf --get "$prom/api/v1/query" --data-urlencode "query=$1"; }
for _ in $(seq 600); do
    q 'count(gpuplan_scenario_up) and count(gpuplan:fleet_idle_cost:per_day)' 2>/dev/null | grep -q '"value"' && break
    sleep 0.1
done
check "Prometheus scraped it (target up)" bash -c "curl -sf '$prom/api/v1/targets' | grep -q '\"health\":\"up\"'"
$py "$root/tests/cli/check_exporter.py" families "$tmp/m.txt" >"$tmp/families"
check "the served families are the documented ones" bash -c "
    for f in \$(cat '$tmp/families'); do grep -q \"^| \\\`\$f\\\`\" '$root/docs/exporter.md' || { echo \"undocumented: \$f\"; exit 1; }; done"
missing=
while read -r f; do
    q "count($f)" | grep -q '"value"' || missing="$missing $f"
done <"$tmp/families"
check "Prometheus answers a query for each of $(wc -l <"$tmp/families") families${missing:+ (missing:$missing)}" [ -z "$missing" ]
check "PromQL: node_gpu_hourly_cost by node" bash -c "q() { curl -sf --get '$prom/api/v1/query' --data-urlencode \"query=\$1\"; }
    q 'count(node_gpu_hourly_cost > 0)' | grep -q '\"2\"'"
check "promtool check rules" promtool check rules "$root/contrib/prometheus/gpuplan.rules.yml"
sed "s|RULES|$root/contrib/prometheus/gpuplan.rules.yml|" "$root/tests/cli/gpuplan_rules_test.yml" >"$tmp/rules_test.yml"
check "promtool test rules: a flipped decision, idle money, stale prices alert" promtool test rules "$tmp/rules_test.yml"
check "dashboard and rules: served names only, parsed, answered" $py "$root/tests/cli/check_exporter.py" promql \
    "$root/contrib/grafana/gpuplan.json" "$root/contrib/prometheus/gpuplan.rules.yml" "$tmp/m.txt" \
    "$root"/tests/fixtures/telemetry/dcgm_exporter/nvidia-dcgm-exporter__etc_*.csv --prom "$prom"
# Prometheus scrapes the exporter every second: stopped here, so the scrapes (and the refreshes
# and failures they count) below are the test's own.
kill "$prom_pid"
wait "$prom_pid" 2>/dev/null

# ---- a scrape in the middle of a collection cycle -------------------------------------------
capture="$root/tests/fixtures/telemetry/dcgm_exporter/aicr__eks_p5_8xH100-80GB-HBM3__drv580.105.08__2026-03-10__grep-sampled.prom"
redfish="$root/tests/fixtures/telemetry/redfish/telegraf__dell-idrac__Chassis_System.Embedded.1_Power.json"
timeout 250 $py "$root/tests/cli/fault_server.py" "$capture" "$redfish" "$tmp/fport" 240 &
pids+=($!)
for _ in $(seq 100); do [ -s "$tmp/fport" ] && break; sleep 0.1; done
fport=$(cat "$tmp/fport")
"$gpuplan" node add c --dcgm "http://127.0.0.1:$fport/c/gate?f=$tmp/go" >/dev/null
timeout 120 "$gpuplan" collect --once >"$tmp/collect.out" 2>&1 &
cpid=$!
pids+=($cpid)
for _ in $(seq 300); do # the collector's request is held open at the gate: mid-cycle
    [ -n "$(ss -Htn state established "( dport = :$fport )")" ] && break
    sleep 0.1
done
check "the collector is mid-cycle" [ -n "$(ss -Htn state established "( dport = :$fport )")" ]
check "a scrape during the cycle" bash -c "curl -sf -m 10 '$url' >'$tmp/mid.txt' && grep -q '^node_gpu_count{node=\"a\"} 4$' '$tmp/mid.txt' &&
    ! grep -q 'last_success_timestamp_seconds{node=\"c\"}' '$tmp/mid.txt'"
check "promtool on the mid-cycle scrape" promtool_ok "$tmp/mid.txt"
touch "$tmp/go"
wait "$cpid"
check "the cycle ended" [ $? = 0 ]
check "the next scrape has the cycle's node (refreshed on the change)" bash -c "curl -sf '$url' >'$tmp/after.txt' &&
    grep -q '^gpuplan_node_last_success_timestamp_seconds{node=\"c\"} ' '$tmp/after.txt' &&
    grep -q '^node_gpu_count{node=\"c\"} 8$' '$tmp/after.txt'"

# ---- a scrape while another process holds the write lock (as a cycle's write does) ----------
$py - "$tmp/db" "$tmp/locked" "$tmp/release" <<'PY' &
import os, sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)
c.execute('BEGIN IMMEDIATE')                # the write lock, held
open(sys.argv[2], 'w').close()
for _ in range(1200):                        # until the test says so (2 minutes at most)
    if os.path.exists(sys.argv[3]):
        break
    time.sleep(0.1)
c.execute('ROLLBACK')
PY
lpid=$!
pids+=($lpid)
for _ in $(seq 300); do [ -e "$tmp/locked" ] && break; sleep 0.1; done
before=$(curl -sf "$url" | awk '/^gpuplan_exporter_refreshes_total/ { print $2 }')
touch "$tmp/db" # a change: the next scrape reads the store while the lock is held
check "a scrape while the write lock is held refreshes" bash -c "[ -e '$tmp/locked' ] && curl -sf -m 10 '$url' >'$tmp/locked.txt' &&
    [ \$(awk '/^gpuplan_exporter_refreshes_total/ { print \$2 }' '$tmp/locked.txt') -gt '$before' ] &&
    grep -q '^node_gpu_count{node=\"c\"} 8$' '$tmp/locked.txt'"
touch "$tmp/release"
wait "$lpid"

# ---- a read-only database -------------------------------------------------------------------
mkdir -p "$tmp/ro/src" "$tmp/ro/mnt"
$py -c 'import sqlite3,sys; s=sqlite3.connect(sys.argv[1]); d=sqlite3.connect(sys.argv[2]); s.backup(d); d.close()' \
    "$tmp/db" "$tmp/ro/src/db"
ro_run=
if [ "$(id -u)" = 0 ]; then
    if unshare --mount true 2>/dev/null; then
        ro_run=(unshare --mount sh -c 'mount --bind "$1" "$2" && mount -o remount,bind,ro "$2" && shift 2 && exec "$@"'
                sh "$tmp/ro/src" "$tmp/ro/mnt" "$gpuplan" --db "$tmp/ro/mnt/db")
    fi
else
    chmod a-w "$tmp/ro/src/db" "$tmp/ro/src"
    ro_run=("$gpuplan" --db "$tmp/ro/src/db")
fi
if [ -z "$ro_run" ]; then
    echo "skip the read-only database: root without mount namespaces (unshare --mount)"
else
    start_exporter "$tmp/ro.out" "${ro_run[@]}" exporter --listen 127.0.0.1:0 --scenario "$dgx" &&
        check "a scrape of a read-only database" bash -c "curl -sf '$url' >'$tmp/ro.txt' &&
            grep -q '^node_gpu_count{node=\"a\"} 4$' '$tmp/ro.txt' &&
            grep -q '^gpuplan_scenario_up{scenario=\"$dgx\"} 1$' '$tmp/ro.txt'" &&
        check "--scenario without --by prices all-in too (node b's money as the main scrape's)" bash -c "
            for k in 'node_gpu_hourly_cost{node=\"b\"}' 'gpuplan_node_idle_cost{node=\"b\",currency=\"USD\"}' \
                'gpuplan_node_busy_gpu_hour_cost{node=\"b\",currency=\"USD\"}'; do
                [ \"\$(grep -F \"\$k \" '$tmp/ro.txt')\" = \"\$(grep -F \"\$k \" '$tmp/m.txt')\" ] &&
                    grep -qF \"\$k \" '$tmp/ro.txt' || exit 1
            done" &&
        check "promtool on the read-only scrape" promtool_ok "$tmp/ro.txt" ||
        { echo "FAIL the exporter on a read-only database: $(cat "$tmp/ro.out.err")"; fails=$((fails + 1)); }
fi
# ---- a database never priced: the exporter does not load the catalog (a write) -------------
"$gpuplan" --db "$tmp/fresh.db" import prom "$tmp/a.prom" --node a >/dev/null
start_exporter "$tmp/fresh.out" "$gpuplan" --db "$tmp/fresh.db" exporter --listen 127.0.0.1:0 &&
    check "a database without the catalog is served, untouched" bash -c "curl -sf '$url' >'$tmp/fresh.txt' &&
        grep -q '^node_gpu_count{node=\"a\"} 4$' '$tmp/fresh.txt' &&
        ! grep -q '^gpuplan_catalog_price_age_seconds{' '$tmp/fresh.txt' &&
        ! grep -q 'gpuplan_scenario_price_age_seconds' '$tmp/fresh.txt'" ||
    { echo "FAIL the exporter on a database never priced: $(cat "$tmp/fresh.out.err")"; fails=$((fails + 1)); }

# ---- chargeback's bound: the largest values, the rest summed as "(other)" -----------------
$py - "$tmp/a.prom" "$tmp/pods.prom" <<'PY'
import re, sys
out = open(sys.argv[2], 'w')
for line in open(sys.argv[1]):  # each GPU its own pod: four values
    g = re.search(r'gpu="(\d+)"', line).group(1)
    line = re.sub(r',namespace="[^"]*",pod="[^"]*"', '', line)
    out.write(line.replace('}', ',pod="pod-%s"}' % g, 1))
PY
"$gpuplan" --db "$tmp/pods.db" import prom "$tmp/pods.prom" --node p >/dev/null
for bound in 50 2; do
    start_exporter "$tmp/pods$bound.out" "$gpuplan" --db "$tmp/pods.db" exporter --listen 127.0.0.1:0 \
        --by pod --max-label-values $bound && curl -sf "$url" >"$tmp/pods$bound.txt"
done
check "--max-label-values 2: two pods and (other), the same GPU-time in all" $py - "$tmp/pods50.txt" "$tmp/pods2.txt" <<'PY'
import sys
def used(path):
    return {l.split('value="')[1].split('"')[0]: float(l.rsplit(' ', 1)[1])
            for l in open(path) if l.startswith('gpuplan_chargeback_used_gpu_seconds{')}
full, bounded = used(sys.argv[1]), used(sys.argv[2])
assert sorted(full) == ['pod-0', 'pod-1', 'pod-2', 'pod-3'], full
assert len(bounded) == 3 and '(other)' in bounded, bounded
top = sorted(full, key=lambda k: (-full[k], k))[:2]  # ties by name, as the exporter breaks them
assert all(bounded[k] == full[k] for k in top), (top, bounded)
assert abs(sum(bounded.values()) - sum(full.values())) < 1e-6, (bounded, full)
PY

# ---- IPv6 loopback ------------------------------------------------------------------------
if $py -c 'import socket; socket.socket(socket.AF_INET6).bind(("::1", 0))' 2>/dev/null; then
    start_exporter "$tmp/v6.out" "$gpuplan" exporter --listen '[::1]:0' &&
        check "served on [::1]" bash -c "curl -sfg '$url' | grep -q '^node_gpu_count{node=\"a\"} 4$'" ||
        { echo "FAIL the exporter on [::1]: $(cat "$tmp/v6.out.err")"; fails=$((fails + 1)); }
else
    echo "skip [::1]: no IPv6 loopback here"
fi

# ---- a refresh that fails keeps the previous figures ----------------------------------------
"$gpuplan" scenario rm "$dgx" >/dev/null
check "the fleet scenario gone: the previous figures, a failure counted and told" bash -c "
    curl -sf '$main_url' >'$tmp/gone.txt' && grep -q '^node_gpu_hourly_cost{node=\"a\"} ' '$tmp/gone.txt' &&
    grep -q '^gpuplan_exporter_refresh_failures_total 1$' '$tmp/gone.txt' &&
    grep -q 'refresh failed, serving the previous figures' '$tmp/exp.out.err'"
kill -TERM "$main_pid"
wait "$main_pid"
check "SIGTERM stops it cleanly (exit 0; under ASan: no leak, no error)" [ $? = 0 ]
finish "exporter"
