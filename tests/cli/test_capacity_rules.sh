#!/usr/bin/env bash
# The recording rules of capacity --prometheus (contrib/prometheus/gpuplan-capacity.rules.yml)
# against real servers on loopback: the shipped file is what `capacity --print-rules` writes
# (so every series the rules record is one capacity reads, and no other; the server's query log
# shows them all read, and no raw series) and promtool accepts it; 3 days of tests/cli/gen_history.py's
# fleet loaded into Prometheus, the rules backfilled with `promtool tsdb create-blocks-from
# rules`, and capacity from the recorded series equal to capacity from the raw ones (the non-MIG
# hosts; the MIG host falls back to the raw series, and says so); the same on VictoriaMetrics
# with the rules replayed by vmalert.
set -u
gpuplan=$1 root=$2
py=/usr/bin/python3
rules=$root/contrib/prometheus/gpuplan-capacity.rules.yml
. "$(dirname "$0")/lib.sh"
export HOME=$tmp GPUPLAN_DB=$tmp/a.db
for tool in prometheus promtool victoria-metrics vmalert; do
    command -v $tool >/dev/null || { echo "FAIL $tool is not installed"; exit 1; }
done

"$gpuplan" capacity --print-rules >"$tmp/printed.yml"
check "the shipped rules file is what capacity --print-rules writes" cmp "$rules" "$tmp/printed.yml"
check "promtool check rules" promtool check rules "$rules"

. "$root/tests/cli/rules_servers.sh"
# 3 whole days ending at today's midnight (UTC), a sample every 150 s; capacity asks for 2.
end=$(( $(date +%s) / 86400 * 86400 ))
start=$((end - 3 * 86400))
$py "$root/tests/cli/gen_history.py" "$tmp" "$end" 3 150
promtool tsdb create-blocks-from openmetrics --max-block-duration=720h "$tmp/history.om" \
    "$tmp/tsdb" >/dev/null
start_prom raw
check "Prometheus is up with the raw history" wait_for "$url" 'count(DCGM_FI_DEV_POWER_USAGE)' 8

plain='{job="dcgm",Hostname!="hm"}'
cap() { "$gpuplan" capacity --since 2d --json --prometheus "$url" "$@"; }
# runs NAME ARGS...: capacity with and without the rules, in the same 5-minute bucket.
runs() {
    local name=$1; shift
    for _ in 1 2; do
        local h=$(( $(date +%s) / 300 ))
        cap --recorded no "$@" >"$tmp/$name.raw.json" && cap "$@" >"$tmp/$name.rec.json" || return 1
        [ "$h" = $(( $(date +%s) / 300 )) ] && return 0
    done
}
# said FILE TEXT: the JSON's server.series starts with TEXT.
said() { $py -c 'import json,sys; sys.exit(not json.load(open(sys.argv[1]))["server"]["series"].startswith(sys.argv[2]))' "$@"; }
cap --match "$plain" >"$tmp/none.json"
check "no rules on the server: the raw series, said so" said "$tmp/none.json" "raw series (no GPU has the recorded gpu:gpuplan_gpu_util:avg5m in the window"

# Backfill the rules over the history through the running server, then restart on the blocks.
# promtool offsets the group's evaluations by a hash of its name and the file's path as given:
# given as a bare name, the offset is the same from any checkout. The shifted windows still
# differ from the raw buckets by the samples at their ends: the per-label energy below is
# within 0.5 % on Prometheus (0.07 % on h0 here), exact on VictoriaMetrics.
(cd "$(dirname "$rules")" && promtool tsdb create-blocks-from rules --start "$start" \
    --end "$end" --url "$url" --output-dir "$tmp/rec" "$(basename "$rules")") >"$tmp/backfill.log" 2>&1
check "promtool backfills the rules" bash -c "ls '$tmp/rec' | grep -q ."
stop_server raw
mv "$tmp"/rec/* "$tmp/tsdb/"
start_prom rec
# h3's GPU 1 reported on the first day only, the MIG host has no GPU_UTIL: 7 GPUs at the end.
check "the recorded series are served" wait_for "$url" 'count(count_over_time(gpu:gpuplan_gpu_util:avg5m[1h]))' 7

: >"$tmp/rec.queries"
cap --match "$plain" --recorded yes >/dev/null
check "--recorded yes: the queries read every recorded series and no raw one" $py - "$rules" "$tmp/rec.queries" <<'PY'
import json, re, sys, yaml
names = {r['record'] for g in yaml.safe_load(open(sys.argv[1]))['groups'] for r in g['rules']}
queries = [json.loads(l)['params']['query'] for l in open(sys.argv[2])]
read = set(re.findall(r'gpu:gpuplan_[a-z_]+:[a-z0-9]+', ' '.join(queries)))
assert len(names) == 7 and read == names, (sorted(names), sorted(read))
assert not [q for q in queries if 'DCGM_FI_' in q], queries
PY
runs plain --match "$plain"
check "Prometheus: the recorded series are detected and named" said "$tmp/plain.rec.json" "recorded series"
# promtool evaluates a group at an offset within its 5 minutes hashed from the group's name and
# file (Prometheus does the same live), so each recorded window holds other minute samples than
# the raw bucket it stands for: the busy shares within half a point (docs/telemetry.md); the
# exact equality of every figure is checked on VictoriaMetrics below, whose replay is aligned.
check "Prometheus: the recorded series' busy shares within 0.5 points of the raw ones" \
    $py "$root/tests/cli/compare_capacity.py" "$tmp/plain.raw.json" "$tmp/plain.rec.json" --servers --shifted 0.005
# sliced NAME ARGS...: the recorded series' figures unsliced and in 5-hour slices of 2 hosts,
# in the same 5-minute bucket; they must be equal (the same recorded points, summed in pieces).
sliced() {
    local name=$1; shift
    for _ in 1 2; do
        local h=$(( $(date +%s) / 300 ))
        cap "$@" >"$tmp/$name.whole.json" &&
            cap "$@" --slice 5h --hosts-per-query 2 >"$tmp/$name.sliced.json" || return 1
        [ "$h" = $(( $(date +%s) / 300 )) ] && return 0
    done
}
sliced sl --match "$plain" --by Hostname
check "Prometheus: the recorded series in 5-hour slices of 2 hosts give the same figures" \
    $py "$root/tests/cli/compare_capacity.py" "$tmp/sl.whole.json" "$tmp/sl.sliced.json" --servers
runs by --match "$plain" --by Hostname --busy-threshold 50 --hosts-per-query 2
check "by Hostname, at 50 %, 2 hosts a query: the same, as above" \
    $py "$root/tests/cli/compare_capacity.py" "$tmp/by.raw.json" "$tmp/by.rec.json" --servers --shifted 0.005
# per_label RAW REC ENERGY_TOLERANCE: the same label values, the same GPU hours present, and
# each value's energy within a relative ENERGY_TOLERANCE.
per_label() {
    $py - "$@" <<'PY'
import json, sys
a, b = ({r['value']: r for r in json.load(open(p))['by_label']} for p in sys.argv[1:3])
tol = float(sys.argv[3])
assert set(a) == set(b) and len(a) == 4, (a, b)
for k in a:
    assert a[k]['gpu_hours_present'] == b[k]['gpu_hours_present'], (k, a[k], b[k])
    assert abs(a[k]['energy_kwh'] - b[k]['energy_kwh']) <= tol * max(1, abs(a[k]['energy_kwh'])), (k, a[k], b[k])
PY
}
# The energy from Prometheus' shifted windows differs by the samples at the window's ends
# (as the busy shares do; how much depends on the offset): within half a percent here, exact
# on VictoriaMetrics below.
check "by Hostname: the same GPU hours per label value, the energy within 0.5 %" \
    per_label "$tmp/by.raw.json" "$tmp/by.rec.json" 0.005
cap --match '{job="dcgm"}' >"$tmp/mig.json"
check "MIG instances in the window: the raw series, said so" said "$tmp/mig.json" "raw series (MIG"
"$gpuplan" capacity --since 2d --prometheus "$url" >"$tmp/text.out"
check "the text says which series were read" grep -q 'It read the raw series (MIG' "$tmp/text.out"
"$gpuplan" capacity --since 2d --prometheus "$url" --recorded yes >"$tmp/forced.out" 2>&1
rc=$?
check "--recorded yes with MIG instances: refused, exit 2, one line" bash -c "[ $rc = 2 ] && grep -q 'MIG instances' '$tmp/forced.out' && [ \$(wc -l <'$tmp/forced.out') = 1 ]"

# VictoriaMetrics: the raw samples imported, the rules replayed by vmalert into it.
start_vm
vm_import "$tmp/history.om"
check "VictoriaMetrics holds the raw history" wait_for "$url" 'count(DCGM_FI_DEV_POWER_USAGE)' 8
vm_replay "$start" "$end"
check "vmalert replays the rules" [ $? = 0 ]
curl -s "$url/internal/force_flush"
check "VictoriaMetrics serves the recorded series" wait_for "$url" 'count(count_over_time(gpu:gpuplan_gpu_util:avg5m[1h]))' 7
runs vm --match "$plain"
check "VictoriaMetrics: the recorded series are detected" said "$tmp/vm.rec.json" "recorded series"
check "VictoriaMetrics: the same figures from the recorded series as from the raw ones" \
    $py "$root/tests/cli/compare_capacity.py" "$tmp/vm.raw.json" "$tmp/vm.rec.json" --servers
runs vby --match "$plain" --by Hostname
check "VictoriaMetrics, by Hostname: the same GPU hours and energy per label value" \
    per_label "$tmp/vby.raw.json" "$tmp/vby.rec.json" 1e-9
sliced vsl --match "$plain" --recorded no
check "VictoriaMetrics: the raw series in 5-hour slices of 2 hosts give the same figures" \
    $py "$root/tests/cli/compare_capacity.py" "$tmp/vsl.whole.json" "$tmp/vsl.sliced.json" --servers

finish "capacity rules"
