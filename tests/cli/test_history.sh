#!/usr/bin/env bash
# import --prometheus against a real Prometheus on loopback, loaded with two days of generated
# history through promtool (tests/cli/gen_history.py documents the fleet: 4 hosts of 2 GPUs, one
# GPU that goes away, a MIG GPU with two instances). The stored rollups are compared with the
# ones computed from the generated samples directly; then re-runs, a resume, the split under the
# points limit, and the server's refusals, a hung server and one that is gone.
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
# Two whole days ending at today's midnight (UTC).
end=$(( $(date +%s) / 86400 * 86400 ))
since=$((end - 2 * 86400))
$py "$root/tests/cli/gen_history.py" "$tmp" "$end" 2
promtool tsdb create-blocks-from openmetrics "$tmp/history.om" "$tmp/tsdb" >/dev/null
# A live MIG GPU (two instances, no GPU_UTIL) and a whole GPU that reports both GPU_UTIL and
# the graphics engine's activity, scraped by the same Prometheus for the per-cycle source.
cat >"$tmp/mig.prom" <<'PROM'
# TYPE DCGM_FI_PROF_GR_ENGINE_ACTIVE gauge
DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu="0",UUID="GPU-live-mig",modelName="NVIDIA A100-SXM4-80GB",Hostname="live",GPU_I_PROFILE="3g.40gb",GPU_I_ID="1"} 0.8
DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu="0",UUID="GPU-live-mig",modelName="NVIDIA A100-SXM4-80GB",Hostname="live",GPU_I_PROFILE="3g.40gb",GPU_I_ID="2"} 0.2
DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu="1",UUID="GPU-live-whole",modelName="NVIDIA A100-SXM4-80GB",Hostname="live"} 0.3
# TYPE DCGM_FI_DEV_GPU_UTIL gauge
DCGM_FI_DEV_GPU_UTIL{gpu="1",UUID="GPU-live-whole",modelName="NVIDIA A100-SXM4-80GB",Hostname="live"} 50
PROM
timeout 280 $py "$root/tests/cli/fault_server.py" "$tmp/mig.prom" /dev/null "$tmp/mport" 280 &
pids+=($!)
for _ in $(seq 100); do [ -s "$tmp/mport" ] && break; sleep 0.1; done
port=$(free_port)
cat >"$tmp/prom.yml" <<YML
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: mig-replay
    metrics_path: /live/ok
    static_configs:
      - targets: ['127.0.0.1:$(cat "$tmp/mport")']
YML
timeout 280 prometheus --config.file="$tmp/prom.yml" --storage.tsdb.path="$tmp/tsdb" \
    --storage.tsdb.retention.time=10y --web.listen-address="127.0.0.1:$port" >"$tmp/prom.log" 2>&1 &
prom=$!
pids+=($prom)
url="http://127.0.0.1:$port"
up=0
for _ in $(seq 300); do
    if curl -s "$url/api/v1/query?query=count(DCGM_FI_DEV_POWER_USAGE)&time=$((end - 60))" |
        grep -q '"value":\[[0-9.]*,"8"\]'; then up=1; break; fi
    sleep 0.1
done
check "Prometheus is up with the generated blocks" [ "$up" = 1 ]
rows() { $py -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' "$GPUPLAN_DB" "$1"; }

# The whole window, hosts two at a time: exactly the rollups computed from the samples.
export GPUPLAN_DB=$tmp/a.db
"$gpuplan" import --prometheus "$url" --since "$since" --until "$end" --match '{job="dcgm"}' \
    --hosts-per-query 2 >"$tmp/a.out" 2>"$tmp/a.err"
check "import exits 0" [ $? = 0 ]
check "3 host groups, one chunk each, a node per host" grep -q '^5 hosts (a node each, 5 new): 3 of 3 chunks, 23904 5-minute samples stored, 0 already' "$tmp/a.out"
check "a node per host, named by it, the server its source narrowed to the host" $py - "$GPUPLAN_DB" "$url" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
names = sorted(r[0] for r in db.execute("SELECT name FROM node"))
assert names == ["h0", "h1", "h2", "h3", "hm"], names
src = db.execute("SELECT s.kind, s.url, s.match FROM node_source s JOIN node n ON n.id = s.node_id "
                 "WHERE n.name = 'hm'").fetchall()
assert src == [("prometheus", sys.argv[2], '{job="dcgm",Hostname="hm"}')], src
gpus = db.execute("SELECT n.name, count(*) FROM gpu g JOIN node n ON n.id = g.node_id "
                  "GROUP BY n.name ORDER BY n.name").fetchall()
assert gpus == [("h0", 2), ("h1", 2), ("h2", 2), ("h3", 2), ("hm", 3)], gpus
PY
check "no progress when stderr is not a terminal" [ ! -s "$tmp/a.err" ]
check "stored rollups equal the ones computed from the data" $py "$root/tests/cli/check_history.py" "$GPUPLAN_DB" "$tmp/expected.json"
"$gpuplan" capacity --since 3d --json >"$tmp/cap.json"
check "capacity figures by hand" $py - "$tmp/cap.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
def close(a, b):
    assert abs(a - b) <= 1e-9 * max(1, abs(b)), (a, b)
g = {(x['uuid'], x.get('mig', '')): x for x in c['gpu_list']}
assert len(g) == 11, sorted(g)                      # 9 GPUs and 2 MIG instances
a0, a1 = g[('GPU-0000-0000', '')], g[('GPU-0000-0001', '')]
close(a0['util_mean'], 0.5); close(a0['busy_hours_per_day'], 12); close(a0['power_mean_w'], 230)
close(a1['util_mean'], 0.5); close(a1['busy_hours_per_day'], 24); close(a1['power_mean_w'], 250)
close(g[('GPU-mig0', 'GI 1 3g.40gb')]['util_mean'], 0.8)
close(g[('GPU-mig0', 'GI 2 3g.40gb')]['util_mean'], 0.2)
mig = g[('GPU-mig0', '')]                          # its instances rolled up: 3 of 7 slices each
close(mig['util_mean'], 3 / 7 * 0.8 + 3 / 7 * 0.2); close(mig['power_mean_w'], 300)
assert c['gpus'] == 9, c['gpus']                   # physical GPUs: the instances are parts
# the fleet: 7 GPUs for 2 days and one for 1 at 0.5, the MIG GPU at 3/7 for 2 days
close(c['fleet']['util_mean'], (15 * 0.5 + 2 * 3 / 7) / 17)
gone = g[('GPU-0003-0001', '')]
close(gone['busy_hours_per_day'], 24)              # one day of data, busy all of it
PY
# On a terminal (script(1) gives it one): a progress line; --quiet: none. (The 5 hosts in one
# group: chunks of a day, 8 hosts of 16 GPUs fitting 28 hours under the memory budget.)
if command -v script >/dev/null; then
    GPUPLAN_DB=$tmp/tty.db script -qec "'$gpuplan' import --prometheus '$url' --since $since --until $end --match '{job=\"dcgm\"}' --hosts-per-query 2 --node tty" /dev/null >"$tmp/tty.out" 2>&1
    check "progress on a terminal: chunks, samples/s, ETA" grep -Eq 'chunks 3/3 +[0-9]+ samples/s .* ETA 0:00' "$tmp/tty.out"
    GPUPLAN_DB=$tmp/tty2.db script -qec "'$gpuplan' import --prometheus '$url' --since $since --until $end --match '{job=\"dcgm\"}' --node tty --quiet" /dev/null >"$tmp/quiet.out" 2>&1
    check "no progress with --quiet" bash -c "grep -q '2 of 2 chunks' '$tmp/quiet.out' && ! grep -q 'samples/s' '$tmp/quiet.out'"
fi
before=$($py "$root/tests/cli/rollups5m.py" count "$GPUPLAN_DB")
"$gpuplan" import --prometheus "$url" --since "$since" --until "$end" --match '{job="dcgm"}' \
    --hosts-per-query 2 >"$tmp/again.out" 2>&1
check "a re-run fetches nothing new (only the host list)" grep -q 'nothing new to import (1 queries)' "$tmp/again.out"
check "a re-run stores nothing twice" [ "$($py "$root/tests/cli/rollups5m.py" count "$GPUPLAN_DB")" = "$before" ]
"$gpuplan" db stats --space >"$tmp/space.out"
check "db stats --space: the chunks' table and every page counted" $py - "$tmp/space.out" "$GPUPLAN_DB" <<'PY'
import os, re, sqlite3, sys
text = open(sys.argv[1]).read()
mb = {m[0]: float(m[1].replace(',', '')) for m in re.findall(r'^  (\S+) +([\d,.]+) MB$', text, re.M)}
assert mb.get('rollup_5m_day', 0) > 0 and 'fleet_5m_day' in mb and '(free)' in mb, mb
db = sqlite3.connect(sys.argv[2])
pages = db.execute('SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()').fetchone()[0]
assert abs(sum(mb.values()) - pages / 1e6) <= 0.005 * len(mb) + 1e-9, (sum(mb.values()), pages)
PY
"$gpuplan" db stats --bogus >/dev/null 2>&1
check "db stats with an unknown option: exit 2" [ $? = 2 ]

# A damaged chunk (issue 25, item 10): refused by its checksum, naming its series and day, and
# db check names every damaged one; the intact database checks clean.
"$gpuplan" db check >"$tmp/check0.out" 2>&1
check "db check: an intact database, exit 0" [ $? = 0 ]
check "db check: integrity ok, every chunk checked, none damaged" grep -Eq '^chunks: +[0-9,]+ checked .*, 0 damaged$' "$tmp/check0.out"
check "db check: integrity_check ran" grep -q '^integrity:   ok$' "$tmp/check0.out"
cp "$GPUPLAN_DB" "$tmp/damaged.db"
$py - "$tmp/damaged.db" >"$tmp/damaged.names" <<'PY'
import datetime, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for table, col in (('util_hour_day', 'hours'), ('rollup_5m_day', 'buckets')):
    cid, blob = db.execute(f'SELECT id, {col} FROM {table} ORDER BY id LIMIT 1').fetchone()
    b = bytearray(blob)
    b[len(b) // 2] ^= 0x10  # one bit of one byte, as a bad sector or a stray write would
    db.execute(f'UPDATE {table} SET {col} = ? WHERE id = ?', (bytes(b), cid))
    day = datetime.datetime.fromtimestamp((cid & 0xfffff) * 86400, datetime.timezone.utc)
    print(f"{table}, series {cid >> 20}, day {day:%Y-%m-%d}")
db.commit()
PY
hour_chunk=$(sed -n 1p "$tmp/damaged.names") day_chunk=$(sed -n 2p "$tmp/damaged.names")
"$gpuplan" --db "$tmp/damaged.db" capacity --since 3d >"$tmp/dmg.out" 2>"$tmp/dmg.err"
check "capacity on a damaged chunk: exit 1, nothing on stdout" bash -c "[ $? = 1 ] && [ ! -s '$tmp/dmg.out' ]"
check "capacity names the damaged hour chunk's series and day, in one line" bash -c \
    "[ \$(wc -l <'$tmp/dmg.err') = 1 ] && grep -qF '$hour_chunk: hour chunk: checksum mismatch' '$tmp/dmg.err'"
"$gpuplan" --db "$tmp/damaged.db" db check >"$tmp/check1.out" 2>"$tmp/check1.err"
check "db check: exit 1 on damage" [ $? = 1 ]
check "db check names the damaged hour chunk" grep -qF "damaged: $hour_chunk: hour chunk: checksum mismatch" "$tmp/check1.out"
check "db check names the damaged 5-minute chunk" grep -qF "damaged: $day_chunk: chunk: checksum mismatch" "$tmp/check1.out"
check "db check: two damaged, one line on stderr" bash -c "grep -q ', 2 damaged\$' '$tmp/check1.out' && [ \$(wc -l <'$tmp/check1.err') = 1 ] && grep -q '2 chunks refused' '$tmp/check1.err'"
"$gpuplan" import --node hm --since "$since" --until "$end" >"$tmp/node.out" 2>&1
check "a host's node: its own Prometheus source and selector" grep -q '^node "hm": nothing new to import' "$tmp/node.out"

# Step 1m under a limit of 500 points: 8-hour chunks; first up to 22:00 of day one, then the rest.
export GPUPLAN_DB=$tmp/b.db
"$gpuplan" import --prometheus "$url" --since "$since" --until $((end - 86400 - 7200)) \
    --match '{job="dcgm"}' --step 1m --max-points 500 --node x >"$tmp/b1.out" 2>&1
check "22 hours in 8-hour chunks" grep -q '3 of 3 chunks' "$tmp/b1.out"
"$gpuplan" import --node x --since "$since" --until "$end" --step 1m --max-points 500 >"$tmp/b2.out" 2>&1
check "the resume asks only for the 26 hours left" grep -q '4 of 4 chunks, 12288 5-minute samples stored, 0 already' "$tmp/b2.out"
check "split and resumed: the same rollups" $py "$root/tests/cli/check_history.py" "$GPUPLAN_DB" "$tmp/expected.json"

# A server that goes away mid-import (a proxy that dies after 25 requests), then comes back
# on the same address: the resume loses nothing and stores nothing twice.
export GPUPLAN_DB=$tmp/cut.db
timeout 120 $py "$root/tests/cli/cut_proxy.py" "$url" 0 "$tmp/cport" 25 &
pids+=($!)
for _ in $(seq 100); do [ -s "$tmp/cport" ] && break; sleep 0.1; done
cport=$(cat "$tmp/cport")
"$gpuplan" import --prometheus "http://127.0.0.1:$cport" --since "$since" --until "$end" \
    --match '{job="dcgm"}' --step 1m --max-points 180 --hosts-per-query 2 >"$tmp/cut1.out" 2>&1
rc=$?
check "the server going away: exit 1" [ "$rc" = 1 ]
done1=$(grep -o '[0-9]* of [0-9]* chunks' "$tmp/cut1.out" | cut -d' ' -f1)
total=$(grep -o '[0-9]* of [0-9]* chunks' "$tmp/cut1.out" | cut -d' ' -f3)
check "some chunks committed before it went ($done1 of $total)" [ "${done1:-0}" -gt 0 -a "${done1:-0}" -lt "${total:-0}" ]
timeout 120 $py "$root/tests/cli/cut_proxy.py" "$url" "$cport" "$tmp/cport2" 0 &
pids+=($!)
for _ in $(seq 100); do [ -s "$tmp/cport2" ] && break; sleep 0.1; done
"$gpuplan" import --prometheus "http://127.0.0.1:$cport" --since "$since" --until "$end" \
    --match '{job="dcgm"}' --step 1m --max-points 180 --hosts-per-query 2 >"$tmp/cut2.out" 2>&1
check "the resume asks only for the rest, stores nothing twice" grep -q "$((total - done1)) of $((total - done1)) chunks, [0-9]* 5-minute samples stored, 0 already" "$tmp/cut2.out"
check "the resume loses nothing" $py "$root/tests/cli/check_history.py" "$GPUPLAN_DB" "$tmp/expected.json"

# The server's refusals and failures of the world.
export GPUPLAN_DB=$tmp/c.db
"$gpuplan" import --prometheus "$url" --since "$since" --until "$end" --match '{job=~"("}' >"$tmp/bad.out" 2>&1
rc=$?
check "a bad selector: exit 2 with the server's error" bash -c "[ $rc = 2 ] && grep -q 'bad_data' '$tmp/bad.out'"
"$gpuplan" import --prometheus "$url" --since "$since" --until "$end" --hosts-per-query 1 \
    --max-points 20000 --step 5s --node over >"$tmp/over.out" 2>&1
rc=$?
check "over the 11,000-point limit: exit 2 with the server's error" bash -c "[ $rc = 2 ] && grep -q '11,000 points' '$tmp/over.out'"
check "nothing stored by refused imports" [ "$($py "$root/tests/cli/rollups5m.py" count "$GPUPLAN_DB")" = 0 ]
"$gpuplan" import --prometheus "http://user:pw@127.0.0.1:$port" --since 1d >"$tmp/cred.out" 2>&1
rc=$?
check "credentials in the URL are refused" bash -c "[ $rc = 2 ] && grep -q netrc '$tmp/cred.out'"
$py -c 'import socket,sys,time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(16)
open(sys.argv[1], "w").write(str(s.getsockname()[1])); time.sleep(60)' "$tmp/hport" &
pids+=($!)
for _ in $(seq 100); do [ -s "$tmp/hport" ] && break; sleep 0.1; done
"$gpuplan" import --prometheus "http://127.0.0.1:$(cat "$tmp/hport")" --since 1d --timeout 1s >"$tmp/hang.out" 2>&1
rc=$?
check "a hung server times out: exit 1" bash -c "[ $rc = 1 ] && grep -Eqi 'timed? ?out' '$tmp/hang.out'"
# VictoriaMetrics fed the same samples through its import API: the same rollups, the same figures.
if command -v victoria-metrics >/dev/null; then
    vport=$(free_port)
    timeout 280 victoria-metrics -storageDataPath="$tmp/vm" -httpListenAddr="127.0.0.1:$vport" \
        -retentionPeriod=100y >"$tmp/vm.log" 2>&1 &
    pids+=($!)
    vurl="http://127.0.0.1:$vport"
    for _ in $(seq 300); do curl -s "$vurl/health" | grep -q OK && break; sleep 0.1; done
    awk '/^#/ {next} {$NF = $NF "000"; print}' "$tmp/history.om" >"$tmp/vm.txt"  # ms times
    curl -s --data-binary @"$tmp/vm.txt" "$vurl/api/v1/import/prometheus"
    curl -s "$vurl/internal/force_flush"
    for _ in $(seq 300); do
        curl -s "$vurl/api/v1/query?query=count(DCGM_FI_DEV_POWER_USAGE)&time=$((end - 60))" |
            grep -q '"value":\[[0-9.]*,"8"\]' && break
        sleep 0.1
    done
    export GPUPLAN_DB=$tmp/vm.db
    "$gpuplan" import --prometheus "$vurl" --since "$since" --until "$end" --match '{job="dcgm"}' \
        --hosts-per-query 2 --node prom >"$tmp/vm.out" 2>&1
    check "VictoriaMetrics: import exits 0" [ $? = 0 ]
    check "VictoriaMetrics: the rollups computed from the data" $py "$root/tests/cli/check_history.py" "$GPUPLAN_DB" "$tmp/expected.json"
    "$gpuplan" capacity --since 3d --json >"$tmp/vmcap.json"
    check "VictoriaMetrics: the same capacity figures as Prometheus" $py - "$tmp/cap.json" "$tmp/vmcap.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for c in (a, b):
    for g in c['gpu_list']:
        g.pop('node', None)
    c.pop('nodes', None)
assert a['fleet'] == b['fleet'] and a['gpu_list'] == b['gpu_list'], 'capacity differs'
PY
else
    echo "FAIL victoria-metrics is not installed (apt-get install victoria-metrics)"
    fails=$((fails + 1))
fi

# The per-cycle Prometheus source reports MIG instances' utilization too.
export GPUPLAN_DB=$tmp/live.db
for _ in $(seq 300); do
    curl -s "$url/api/v1/query?query=DCGM_FI_PROF_GR_ENGINE_ACTIVE" | grep -q 'GPU-live-mig' && break
    sleep 0.1
done
"$gpuplan" node add live --prometheus "$url" --match '{job="mig-replay"}' >/dev/null
check "collect through Prometheus with MIG" bash -c "'$gpuplan' collect --once | grep -q '1 node ok, 0 failed'"
check "MIG instances get the graphics engine's activity, whole GPUs keep GPU_UTIL" bash -c "'$gpuplan' fleet --json | $py -c '
import json, sys
u = {(x[\"uuid\"], x.get(\"mig\", \"\")): x.get(\"gpu_util\") for x in json.load(sys.stdin)}
mig = u.pop((\"GPU-live-mig\", \"\"))  # the GPU: its instances rolled up, 3 of 7 slices each
assert abs(mig - (3 / 7 * 80 + 3 / 7 * 20)) < 1e-9, mig
assert u == {(\"GPU-live-mig\", \"GI 1 3g.40gb\"): 80, (\"GPU-live-mig\", \"GI 2 3g.40gb\"): 20,
             (\"GPU-live-whole\", \"\"): 50}, u
'"
kill "$prom"; wait "$prom" 2>/dev/null
"$gpuplan" import --prometheus "$url" --since "$since" --until "$end" --node gone >"$tmp/gone.out" 2>&1
rc=$?
check "a server that is gone: exit 1" bash -c "[ $rc = 1 ] && grep -Eqi 'connect' '$tmp/gone.out'"

finish "history"
