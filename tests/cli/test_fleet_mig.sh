#!/usr/bin/env bash
# The fleet as it physically is: two days of a generated fleet (tests/cli/gen_mig_fleet.py: 18
# GPUs on 5 hosts, 4 of them split into MIG instances, H100 and A100, namespace labels) in a
# real Prometheus and VictoriaMetrics on loopback. After `import --prometheus`: the physical GPU
# count, the busy share within 0.5 % of the generated one, a node per host, `--by namespace`
# within 1 % of the server-side figures (and of the generated ones); the collector's path
# (the dcgm parser and the store) on the same exposition, and the exporter's figures on it
# against capacity's; `scenario measure` on the mixed fleet.
set -u
gpuplan=$1 root=$2
py=/usr/bin/python3
. "$(dirname "$0")/lib.sh"
export HOME=$tmp
for tool in prometheus promtool victoria-metrics; do
    if ! command -v $tool >/dev/null; then
        echo "FAIL $tool is not installed (apt-get install prometheus victoria-metrics)"
        exit 1
    fi
done
free_port() { $py -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# Two whole days ending at today's midnight (UTC); capacity reads them with --since 3d.
end=$(( $(date +%s) / 86400 * 86400 ))
since=$((end - 2 * 86400))
$py "$root/tests/cli/gen_mig_fleet.py" "$tmp" "$end" 2
promtool tsdb create-blocks-from openmetrics "$tmp/history.om" "$tmp/tsdb" >/dev/null
port=$(free_port)
printf 'global:\n  scrape_interval: 1m\nscrape_configs: []\n' >"$tmp/prom.yml"
timeout 280 prometheus --config.file="$tmp/prom.yml" --storage.tsdb.path="$tmp/tsdb" \
    --storage.tsdb.retention.time=10y --web.listen-address="127.0.0.1:$port" >"$tmp/prom.log" 2>&1 &
pids+=($!)
url="http://127.0.0.1:$port"
# Up once it answers for the data: 18 GPUs' power series (a MIG GPU's repeated per instance).
for _ in $(seq 300); do
    curl -s "$url/api/v1/query?query=count(count%20by(UUID)(DCGM_FI_DEV_POWER_USAGE))&time=$((end - 60))" |
        grep -q '"value":\[[0-9.]*,"18"\]' && break
    sleep 0.1
done
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
    curl -s "$vurl/api/v1/query?query=count(count%20by(UUID)(DCGM_FI_DEV_POWER_USAGE))&time=$((end - 60))" |
        grep -q '"value":\[[0-9.]*,"18"\]' && break
    sleep 0.1
done

export GPUPLAN_DB=$tmp/import.db
"$gpuplan" import --prometheus "$url" --since "$since" --until "$end" --match '{job="dcgm"}' \
    --quiet >"$tmp/import.out" 2>&1
check "import: a node per host" grep -q '^5 hosts (a node each, 5 new): ' "$tmp/import.out"
# local and server-side: the same window (retried once should a 5-minute bucket turn between
# the two, which moves the window's first bucket).
both() {
    local name=$1 server=$2; shift 2
    for _ in 1 2; do
        local h=$(( $(date +%s) / 300 ))
        "$gpuplan" capacity --since 3d "$@" --json >"$tmp/$name.local.json" &&
            "$gpuplan" capacity --since 3d "$@" --json --prometheus "$server" \
                --match '{job="dcgm"}' >"$tmp/$name.remote.json" || return 1
        [ "$h" = $(( $(date +%s) / 300 )) ] && return 0
    done
}
both ns "$url" --by namespace
check "the imported fleet as it physically is" $py - "$tmp/ns.local.json" "$tmp/truth.json" "$GPUPLAN_DB" <<'PY'
import json, sqlite3, sys
c, t = (json.load(open(p)) for p in sys.argv[1:3])
f = t['fleet']
assert c['gpus'] == f['gpus'] == 18, c['gpus']                # physical GPUs, not instances
share = c['fleet']['busy_share']
assert abs(share - f['busy_share']) <= 0.005 * f['busy_share'], (share, f['busy_share'])
assert sorted(c['nodes']) == t['hosts'], sorted(c['nodes'])    # one node per host
assert {k: n['gpus'] for k, n in c['nodes'].items()} == t['gpus_per_host'], c['nodes']
rows = c['gpu_list']
assert sum(1 for g in rows if g.get('mig')) == 11, 'per-instance rows stay for chargeback'
db = sqlite3.connect(sys.argv[3])
src = db.execute("SELECT n.name, s.kind, s.match FROM node n JOIN node_source s ON s.node_id = n.id "
                 "ORDER BY n.name").fetchall()
assert src == [(h, 'prometheus', '{job="dcgm",Hostname="%s"}' % h) for h in t['hosts']], src
PY
check "--by namespace after the import: the generated GPU-hours" $py - "$tmp/ns.local.json" "$tmp/truth.json" <<'PY'
import json, sys
c, t = (json.load(open(p)) for p in sys.argv[1:3])
got = {r['value'] if r['value'] is not None else '(no label)': r for r in c['by_label']}
want = t['by_namespace']
assert sorted(got) == sorted(want), (sorted(got), sorted(want))
for k, w in want.items():
    for f in ('gpu_hours_present', 'gpu_hours_used'):
        assert abs(got[k][f] - w[f]) <= 0.005 * w[f], (k, f, got[k][f], w[f])
PY
by_agree() { # LOCAL REMOTE: every label value's figures within 1 %
    $py - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
ra = {r['value']: r for r in a['by_label']}
rb = {r['value']: r for r in b['by_label']}
assert sorted(ra, key=str) == sorted(rb, key=str), (sorted(ra, key=str), sorted(rb, key=str))
for k in ra:
    for f in ('gpu_hours_present', 'gpu_hours_used', 'energy_kwh'):
        x, y = ra[k].get(f, 0), rb[k].get(f, 0)
        assert abs(x - y) <= 0.01 * max(abs(x), abs(y), 1e-9), (k, f, x, y)
assert a['gpus'] == b['gpus'] and abs(a['fleet']['busy_share'] - b['fleet']['busy_share']) < 1e-9
PY
}
check "--by namespace: the import agrees with the server's figures (Prometheus)" by_agree "$tmp/ns.local.json" "$tmp/ns.remote.json"
check "every figure of the import equals the server's (Prometheus)" $py "$root/tests/cli/compare_capacity.py" "$tmp/ns.local.json" "$tmp/ns.remote.json"
both vm "$vurl" --by namespace
check "--by namespace: the import agrees with the server's figures (VictoriaMetrics)" by_agree "$tmp/vm.local.json" "$tmp/vm.remote.json"
check "every figure of the import equals the server's (VictoriaMetrics)" $py "$root/tests/cli/compare_capacity.py" "$tmp/vm.local.json" "$tmp/vm.remote.json"

# Without a Hostname label the instance label names the node; without either, the import is
# refused (exit 2, one line, nothing stored) with a hint to name the node.
export GPUPLAN_DB=$tmp/hosts.db
"$gpuplan" import --prometheus "$url" --since "$since" --until "$end" --match '{job="inst"}' \
    --quiet >"$tmp/inst.out" 2>&1
check "no Hostname: a node named by the instance label" bash -c "grep -q '^hosts by their instance label (a node each, 1 new): ' '$tmp/inst.out' && '$gpuplan' node list | grep -q '^10.0.0.7:9400 '"
"$gpuplan" import --prometheus "$url" --since "$since" --until "$end" --match '{job="bare"}' \
    --quiet >"$tmp/bare.out" 2>&1
rc=$?
check "no host label at all: exit 2 with a hint to use --node" bash -c "[ $rc = 2 ] && [ \$(wc -l <'$tmp/bare.out') = 1 ] && grep -q -- '--node' '$tmp/bare.out' && [ \$('$gpuplan' node list | grep -c '^10.0.0.7') = 1 ] && ! '$gpuplan' node list | grep -q bare"
"$gpuplan" import --prometheus "$url" --since "$since" --until "$end" --match '{job="bare"}' \
    --node bare --quiet >"$tmp/bare2.out" 2>&1
check "no host label, --node: into that node" grep -q '^node "bare" (new): ' "$tmp/bare2.out"

# The collector's path on the same exposition: the dcgm parser and the store, a host's
# scrapes with their timestamps (import prom), then one live cycle of a collector.
export GPUPLAN_DB=$tmp/collect.db
for h in n0 n1 n2 n3 a0; do
    "$gpuplan" import prom "$tmp/$h.prom" --node "$h" >/dev/null || echo "import prom $h failed"
done
"$gpuplan" capacity --since 3d --by namespace --json >"$tmp/dcgm.json"
check "dcgm exposition: the physical count, busy share and --by namespace of the import" $py - "$tmp/dcgm.json" "$tmp/ns.local.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a['gpus'] == b['gpus'] == 18, (a['gpus'], b['gpus'])
assert abs(a['fleet']['busy_share'] - b['fleet']['busy_share']) < 1e-9
assert abs(a['fleet']['util_mean'] - b['fleet']['util_mean']) < 1e-9
assert abs(a['fleet']['power_mean_w'] - b['fleet']['power_mean_w']) < 1e-9
ra = {r['value']: r for r in a['by_label']}
rb = {r['value']: r for r in b['by_label']}
assert sorted(ra, key=str) == sorted(rb, key=str)
for k in ra:
    for f in ('gpu_hours_present', 'gpu_hours_used'):
        assert abs(ra[k][f] - rb[k][f]) <= 1e-9 * max(1, rb[k][f]), (k, f, ra[k][f], rb[k][f])
PY
# The exporter on the MIG fleet: its per-GPU rows (instances too), nodes, fleet and chargeback
# are capacity's, with a MIG GPU counted once.
"$gpuplan" capacity --since 3d --by namespace --price-per-kwh 0.1 --json >"$tmp/dcgm-e.json"
timeout 120 "$gpuplan" exporter --listen 127.0.0.1:0 --since 3d --by namespace \
    --price-per-kwh 0.1 >"$tmp/exp.out" 2>"$tmp/exp.err" &
exp_pid=$!
pids+=($exp_pid)
murl=
for _ in $(seq 300); do
    murl=$(sed -n 's/^gpuplan exporter: serving //p' "$tmp/exp.out")
    [ -n "$murl" ] && break
    kill -0 $exp_pid 2>/dev/null || break
    sleep 0.1
done
check "exporter on the MIG fleet: capacity's figures" bash -c "curl -sf '$murl' >'$tmp/mig-metrics.txt' &&
    $py - '$tmp/dcgm-e.json' '$tmp/mig-metrics.txt'" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
m = {}
for line in open(sys.argv[2]):
    if not line.startswith('#'):
        k, v = line.rsplit(' ', 1)
        m[k] = float(v)
def close(a, b):
    assert abs(a - b) <= 1e-9 * max(1, abs(b)), (a, b)
rows = c['gpu_list']
assert any(r.get('mig') for r in rows)
busy = [k for k in m if k.startswith('gpuplan_gpu_busy_ratio{')]
assert len(busy) == len(rows), (len(busy), len(rows))
for r in rows:
    key = 'node="%s",gpu="%d",uuid="%s",model="%s",mig="%s"' % (
        r['node'], r['index'], r['uuid'], r['model'], r.get('mig', ''))
    close(m['gpuplan_gpu_busy_ratio{%s}' % key], r['busy_share'])
assert sum(m[k] for k in m if k.startswith('node_gpu_count{')) == c['gpus'] == 18
for n, v in c['nodes'].items():
    assert m['node_gpu_count{node="%s"}' % n] == v['gpus'], n
    close(m['gpuplan_node_busy_ratio{node="%s"}' % n], v['busy_share'])
    close(m['gpuplan_node_idle_cost{node="%s",currency="USD"}' % n], v['idle_cost'])
close(m['gpuplan_fleet_busy_ratio'], c['fleet']['busy_share'])
for r in c['by_label']:
    v = r['value'] if r['value'] is not None else '(none)'
    close(m['gpuplan_chargeback_used_gpu_seconds{label="namespace",value="%s"}' % v],
          r['gpu_hours_used'] * 3600)
PY
timeout 120 $py "$root/tests/cli/http_server.py" "$tmp" "$tmp/hport" 120 &
pids+=($!)
for _ in $(seq 100); do [ -s "$tmp/hport" ] && break; sleep 0.1; done
export GPUPLAN_DB=$tmp/live.db
"$gpuplan" node add n3 --dcgm "http://127.0.0.1:$(cat "$tmp/hport")/live.prom" >/dev/null
check "collect --once: the MIG host scraped" bash -c "'$gpuplan' collect --once | grep -q '1 node ok, 0 failed'"
check "collect: a MIG GPU's utilization is its instances' weighted" bash -c "'$gpuplan' fleet --json | $py -c '
import json, sys
g = {(x[\"index\"], x.get(\"mig\", \"\")): x for x in json.load(sys.stdin)}
inst = {k: v for k, v in g.items() if k[1]}
assert len(inst) == 6, sorted(inst)                          # 2g+2g+2g+1g and 3g+3g
for i in (2, 3):
    want = sum(int(m.split()[2].split(\"g\")[0]) / 7 * v[\"gpu_util\"]
               for (k, m), v in inst.items() if k == i)
    assert abs(g[(i, \"\")][\"gpu_util\"] - want) < 1e-9, (i, g[(i, \"\")], want)
'"

# scenario measure on the mixed fleet (16 H100, 2 A100): refused without --gpu, naming the
# models; with --gpu H100, the H100s alone.
export GPUPLAN_DB=$tmp/import.db
cat >"$tmp/m.json" <<'JSON'
{"name": "m", "horizon_months": 12, "demand": {"gpus": 8, "utilization": 0.5},
 "self_hosted": {"gpus_per_server": 8, "server_price": 250000,
   "tariff": {"periods": [{"name": "flat", "hours_per_day": 24, "price_per_kwh": 0.1}]}},
 "cloud_options": [{"name": "od", "pricing": "on_demand", "gpus_per_instance": 8, "hourly": 90}]}
JSON
"$gpuplan" scenario save "$tmp/m.json" >/dev/null
"$gpuplan" scenario measure m --since 3d >"$tmp/mixed.out" 2>&1
rc=$?
check "measure on a mixed fleet without --gpu: exit 2 naming the models" bash -c "[ $rc = 2 ] && grep -q '2 GPU models (16 H100 SXM 80GB, 2 A100 SXM 80GB): measure one with --gpu \"H100 SXM 80GB\"' '$tmp/mixed.out'"
"$gpuplan" scenario measure m --since 3d --prometheus "$url" >"$tmp/mixedr.out" 2>&1
rc=$?
check "measure --prometheus on a mixed fleet: exit 2, select with --match" bash -c "[ $rc = 2 ] && grep -q 'modelName=\"NVIDIA H100 80GB HBM3\"' '$tmp/mixedr.out'"
check "measure --gpu H100: saved" bash -c "'$gpuplan' scenario measure m --since 3d --gpu H100 | grep -q 'as version 2'"
check "measure --gpu H100: the H100s' demand and power" bash -c "'$gpuplan' scenario export m | $py -c '
import json, sys
s = json.load(sys.stdin)
t = json.load(open(\"$tmp/truth.json\"))[\"h100\"]
assert s[\"demand\"][\"gpus\"] == t[\"gpus\"] == 16, s[\"demand\"]
u = s[\"demand\"][\"utilization\"]
assert abs(u - t[\"busy_share\"]) <= 0.005 * t[\"busy_share\"], (u, t)
p = s[\"self_hosted\"][\"power\"]
assert abs(p[\"gpu_tdp_w\"] - t[\"busy_w\"]) < 0.01 and abs(p[\"gpu_idle_w\"] - t[\"idle_w\"]) < 0.01, p
assert s[\"measured\"][\"gpu\"] == \"H100\"
'"

finish "fleet with MIG"
