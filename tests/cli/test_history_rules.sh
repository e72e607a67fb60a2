#!/usr/bin/env bash
# The recording rules of import --prometheus (contrib/prometheus/gpuplan-history.rules.yml)
# against real servers on loopback: the shipped file is what `import --print-rules` writes and
# promtool accepts it; 3 days of tests/cli/gen_history.py's fleet (with its MIG host, and a GPU
# silent for 10 minutes) loaded into Prometheus, imported from the raw series while the server
# has no rules (said so), then from the recorded ones once the rules are backfilled with
# `promtool tsdb create-blocks-from rules` (detected, said so, no raw series read): the same
# count and sum of samples per GPU and metric over the window, and no point read twice. On
# VictoriaMetrics, the rules replayed by vmalert at whole 5 minutes: the same 5-minute rows.
set -u
gpuplan=$1 root=$2
py=/usr/bin/python3
rules=$root/contrib/prometheus/gpuplan-history.rules.yml
. "$(dirname "$0")/lib.sh"
export HOME=$tmp ROOT_CLI=$root/tests/cli
for tool in prometheus promtool victoria-metrics vmalert; do
    command -v $tool >/dev/null || { echo "FAIL $tool is not installed"; exit 1; }
done

"$gpuplan" import --print-rules >"$tmp/printed.yml"
check "the shipped rules file is what import --print-rules writes" cmp "$rules" "$tmp/printed.yml"
check "promtool check rules" promtool check rules "$rules"
check "32 rules: 4 aggregates of each of the import's 8 queries" \
    bash -c "[ \$(grep -c '^      - record: gpu:gpuplan_[a-z_]*:[a-z]*5m$' '$rules') = 32 ]"

. "$root/tests/cli/rules_servers.sh"
# 3 whole days ending at today's midnight (UTC), a sample every 150 s; h2's GPU 1 silent from
# 06:05 to 06:15 on the last day. The import's window is one whole day, 12:00 to 12:00, after
# h3's GPU 1 stopped: every GPU in it reports at both its ends, at the same time of day.
end=$(( $(date +%s) / 86400 * 86400 ))
start=$((end - 3 * 86400))
since=$((start + 36 * 3600)) until=$((end - 12 * 3600))
$py "$root/tests/cli/gen_history.py" "$tmp" "$end" 3 150 gap
promtool tsdb create-blocks-from openmetrics --max-block-duration=720h "$tmp/history.om" \
    "$tmp/tsdb" >/dev/null
start_prom raw
check "Prometheus is up with the raw history" wait_for "$url" 'count(DCGM_FI_DEV_POWER_USAGE)' 8

imp() { # imp DB ARGS...: the window into DB, its output in DB.out
    local db=$1; shift
    GPUPLAN_DB=$db "$gpuplan" import --prometheus "$url" --since "$since" --until "$until" \
        --match '{job="dcgm"}' --quiet "$@" >"$db.out" 2>&1
}
imp "$tmp/raw.db"
check "no rules on the server: import exits 0" [ $? = 0 ]
check "no rules on the server: the raw series, said so" \
    grep -q '^  read the raw series (no GPU has the recorded gpu:gpuplan_gpu_util:count5m in the window (8 hours asked about))' "$tmp/raw.db.out"
# --recorded yes where the server has no rules: refused, one line, nothing stored (the marks
# would otherwise move on over a window read from absent series).
imp "$tmp/yes.db" --recorded yes; yes_rc=$?
check "--recorded yes without rules: exit 2, one line naming the rules" bash -c \
    "[ $yes_rc = 2 ] && [ \$(wc -l <'$tmp/yes.db.out') = 1 ] && grep -q 'recorded yes: no GPU has the recorded gpu:gpuplan_gpu_util:count5m in the window (8 hours asked about); load and backfill contrib/prometheus/gpuplan-history.rules.yml' '$tmp/yes.db.out'"
check "--recorded yes without rules: no node, sample or mark stored" $py - "$tmp/yes.db" <<'PY'
import os, sqlite3, sys
if os.path.exists(sys.argv[1]):
    db = sqlite3.connect(sys.argv[1])
    tables = [r[0] for r in db.execute("select name from sqlite_master where type = 'table'")]
    for t in tables:
        if t not in ("meta", "schema_migrations", "sqlite_sequence", "fleet_sealed") and not t.startswith("catalog") \
                and db.execute(f'select count(*) from "{t}"').fetchone()[0]:
            sys.exit(f"{t} has rows")
PY

# Backfill the rules over the history through the running server, then restart on the blocks.
# promtool offsets the group's evaluations by a hash of its name and the file's path as given:
# given as a bare name, the offset is the same from any checkout (282.1 s; docs/telemetry.md
# says why it matters).
(cd "$(dirname "$rules")" && promtool tsdb create-blocks-from rules --start "$start" \
    --end "$end" --url "$url" --output-dir "$tmp/rec" "$(basename "$rules")") >"$tmp/backfill.log" 2>&1
check "promtool backfills the rules" bash -c "ls '$tmp/rec' | grep -q ."
stop_server raw
mv "$tmp"/rec/* "$tmp/tsdb/"
start_prom rec
# h3's GPU 1 reported on the first day only, the MIG host has no GPU_UTIL: 7 GPUs at the end.
check "the recorded series are served" wait_for "$url" 'count(count_over_time(gpu:gpuplan_gpu_util:count5m[1h]))' 7

: >"$tmp/rec.queries"
imp "$tmp/rec.db"
check "rules backfilled: import exits 0" [ $? = 0 ]
check "rules backfilled: the recorded series detected, said so" \
    grep -q '^  read the recorded series (gpu:gpuplan_gpu_util:count5m and the rest of contrib/prometheus/gpuplan-history.rules.yml)' "$tmp/rec.db.out"
check "the range queries read every recorded series the data has, and no raw one" $py - "$rules" "$tmp/rec.queries" <<'PY'
import json, re, sys, yaml
names = {r['record'] for g in yaml.safe_load(open(sys.argv[1]))['groups'] for r in g['rules']}
log = [json.loads(l)['params'] for l in open(sys.argv[2])]
ranged = [p['query'] for p in log if p.get('step')]
read = set(re.findall(r'gpu:gpuplan_[a-z_]+:[a-z0-9]+', ' '.join(ranged)))
assert read == names, sorted(names ^ read)
assert ranged and not [q for q in ranged if 'DCGM_FI_' in q], ranged[:2]
PY
# promtool, as Prometheus live, evaluates the group at an offset within its 5 minutes hashed
# from its name, so a recorded point holds other samples than the bucket it is stored in;
# over a window whose ends see the same samples (this one: whole days of a daily fleet) the
# counts and sums are the same (docs/telemetry.md). 2 samples a bucket at 150 s: a row with more
# read a point twice.
check "Prometheus: the same count and sum per GPU and metric, raw and recorded, no point read twice" \
    $py "$root/tests/cli/compare_rollups.py" "$tmp/raw.db" "$tmp/rec.db" totals 2
check "the silent GPU: no rows over its 10 minutes, raw or recorded" $py - "$tmp/raw.db" "$tmp/rec.db" "$end" <<'PY'
import os, sqlite3, sys
sys.path.insert(0, os.environ['ROOT_CLI'])
import rollups5m
gap = (int(sys.argv[3]) - 86400 + 6 * 3600) * 1000  # 06:00 of the last day
for path in sys.argv[1:3]:
    db = sqlite3.connect(path)
    sid = {s for s, in db.execute("SELECT s.id FROM series s JOIN gpu g ON g.id = s.gpu_id "
                                  "WHERE g.uuid = 'GPU-0002-0001' AND s.metric = 0")}
    near = [b for s, b, *_ in rollups5m.rollups(db) if s in sid and gap <= b < gap + 1200000]
    assert len(near) == 2, (path, near)  # 06:00 and 06:15, the buckets either side
PY
check "MIG instances imported from the recorded series" $py - "$tmp/rec.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
migs = {m for m, in db.execute("SELECT mig FROM gpu WHERE uuid = 'GPU-mig0'")}
assert migs == {'', 'GI 1 3g.40gb', 'GI 2 3g.40gb'}, migs
PY
imp "$tmp/no.db" --recorded no
check "--recorded no: the raw series, said so" grep -q '^  read the raw series (--recorded no)' "$tmp/no.db.out"

# VictoriaMetrics: the raw samples imported, the rules replayed by vmalert at whole 5 minutes.
start_vm
vm_import "$tmp/history.om"
check "VictoriaMetrics holds the raw history" wait_for "$url" 'count(DCGM_FI_DEV_POWER_USAGE)' 8
imp "$tmp/vraw.db"
check "VictoriaMetrics without rules: the raw series" grep -q '^  read the raw series (no GPU has the recorded' "$tmp/vraw.db.out"
# The rules over the last day only (loaded later than the raw history began): the window's end
# is covered, its first 12 hours are not, and the import must read the raw series.
vm_replay $((start + 2 * 86400)) "$end"
check "vmalert replays the rules over the last day" [ $? = 0 ]
curl -s "$url/internal/force_flush"
check "VictoriaMetrics serves the recorded series" wait_for "$url" 'count(count_over_time(gpu:gpuplan_gpu_util:count5m[1h]))' 7
# A host the recorded series alone name (its raw series gone): 5 hours of its count in the
# replayed day. The import that falls back to the raw series makes no node for it.
$py -c '
import sys
t0 = int(sys.argv[1]) * 1000
for i in range(60):
    print("gpu:gpuplan_gpu_util:count5m{Hostname=\"ghost\",UUID=\"GPU-ghost\",gpu=\"0\",job=\"dcgm\"} 2 %d" % (t0 + i * 300000))
' $((start + 50 * 3600)) | curl -s --data-binary @- "$url/api/v1/import/prometheus"
curl -s "$url/internal/force_flush"
check "VictoriaMetrics names the host of the recorded series alone" \
    wait_for "$url" 'count(count_over_time(gpu:gpuplan_gpu_util:count5m{Hostname="ghost"}[1d]))' 1
imp "$tmp/vpart.db"
check "recorded series over part of the window, raw series read: no node for the host they alone name" \
    $py -c 'import sqlite3, sys; a, b = ({n for n, in sqlite3.connect(p).execute("SELECT name FROM node")} for p in sys.argv[1:]); sys.exit(not (a == b and "h0" in a))' "$tmp/vraw.db" "$tmp/vpart.db"
check "recorded series over part of the window: the raw series, the hour they fall short in" \
    grep -q '^  read the raw series (the recorded gpu:gpuplan_gpu_util:count5m do not cover the window: in the hour to .* UTC, 0 GPUs had them and [1-9][0-9]* the raw series)' "$tmp/vpart.db.out"
check "recorded series over part of the window: the same rows as the raw import" \
    $py "$root/tests/cli/compare_rollups.py" "$tmp/vraw.db" "$tmp/vpart.db" rows
curl -s "$url/api/v1/admin/tsdb/delete_series" --data-urlencode 'match[]={Hostname="ghost"}'
vm_replay "$start" $((start + 2 * 86400))
check "vmalert replays the rules over the first two days" [ $? = 0 ]
curl -s "$url/internal/force_flush"
imp "$tmp/vrec.db"
check "VictoriaMetrics: the recorded series detected" grep -q '^  read the recorded series' "$tmp/vrec.db.out"
check "VictoriaMetrics: the same 5-minute rows from the recorded series as from the raw ones" \
    $py "$root/tests/cli/compare_rollups.py" "$tmp/vraw.db" "$tmp/vrec.db" rows

finish "history rules"
