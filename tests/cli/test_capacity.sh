#!/usr/bin/env bash
# Capacity from telemetry, end to end: deterministic synthetic telemetry (tests/cli/
# gen_telemetry.py documents its profile) imported through the real store, every figure
# checked against values computed by hand; then the real captures imported and summarized.
set -u
gpuplan=$1 root=$2
py=/usr/bin/python3
. "$(dirname "$0")/lib.sh"
export GPUPLAN_DB=$tmp/db HOME=$tmp
$py "$root/tests/cli/gen_telemetry.py" "$tmp" 2 a b >/dev/null
"$gpuplan" import prom "$tmp/a.prom" --node a >/dev/null
"$gpuplan" import prom "$tmp/b.prom" --node b >/dev/null
"$gpuplan" capacity --since 3d --price-per-kwh 0.1 --by pod --json >"$tmp/cap.json"
check "capacity --json" [ -s "$tmp/cap.json" ]
# Per node: GPUs 0 and 1 busy (100 %, 400 W) 12 h a day and idle (0 %, 60 W) otherwise,
# GPU 2 at 50 % and 250 W, GPU 3 idle at 60 W; two days of 5-minute buckets (576).
check "figures computed by hand" $py - "$tmp/cap.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
def close(a, b, tol=1e-9):
    assert abs(a - b) <= tol * max(1, abs(b)), (a, b)
f = c['fleet']
close(f['util_mean'], 0.375)              # (50 + 50 + 50 + 0) / 4
close(f['busy_share'], 0.5)               # (0.5 + 0.5 + 1 + 0) / 4
close(f['busy_hours_per_day'], 12)
close(f['power_mean_w'], 192.5)           # (230 + 230 + 250 + 60) / 4
close(f['energy_kwh'], 8 * 192.5 * 48 / 1000)
close(f['idle_w'], 60)
close(f['busy_w'], (400 * 576 + 250 * 576) / 1152)
assert c['gpus'] == 8 and c['buckets']['complete'] == 576 and c['buckets']['partial'] == 0
g = {(x['node'], x['index']): x for x in c['gpu_list']}
a0, a2, a3 = g[('a', 0)], g[('a', 2)], g[('a', 3)]
close(a0['util_mean'], 0.5); close(a0['busy_hours_per_day'], 12)
close(a0['util_p50'], 0.05)               # bins: half in [0, 5), half at 100: p50 at 5 %
close(a0['util_p95'], 1.0)
close(a0['energy_kwh'], 230 * 48 / 1000); close(a0['power_p95_w'], 400)
close(a2['util_p50'], 0.525)              # 50 % sits in the [50, 55) bin: its middle
close(a2['busy_hours_per_day'], 24)
assert a3['idle'] and not a0['idle']
close(a3['idle_cost_per_month'], 60 * 730 / 1000 * 0.1)
close(a0['mem_headroom'], 1 - 40000 / 81559)
l = c['load_duration']                    # busy GPU equivalents: 5.0 by day, 1.0 by night
close(l['p0'], 1); close(l['p50'], 3); close(l['p100'], 5)
n = c['nodes']['a']
close(n['idle_cost'], (288 * 60 * 2 + 576 * 60) * 5 / 60 / 1000 * 0.1)
close(n['cost_per_useful_gpu_hour'], n['facility_kwh'] * 0.1 / (0.5 * 4 * 48))
lab = {x['value']: x for x in c['by_label']}
close(lab['train-1']['gpu_hours_used'], 24)  # 288 busy buckets at 100 %
close(lab['train-1']['energy_kwh'], (288 * 400 + 288 * 60) * 5 / 60 / 1000)
close(lab['train-1']['cost'], lab['train-1']['energy_kwh'] * 0.1)
PY
check "ldc CSV is the sorted curve" bash -c "'$gpuplan' capacity --since 3d --ldc | $py -c '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
v = [float(r[\"busy_gpu_equivalents\"]) for r in rows]
assert len(v) == 576 and v == sorted(v, reverse=True) and v[0] == 5 and v[-1] == 1
'"
check "text: counts with thousands separators" bash -c "'$gpuplan' capacity --since 30d | grep -q '^Data: [0-9,]* of 8,640 5-minute buckets complete'"
check "csv: one row a GPU" bash -c "[ \$('$gpuplan' capacity --since 3d --csv | wc -l) = 9 ]"
check "--gpu and --node narrow the selection" bash -c "'$gpuplan' capacity --since 3d --node a --gpu H100 --json | $py -c 'import json,sys; assert json.load(sys.stdin)[\"gpus\"] == 4'"
check "busy threshold 55: GPU 2 at 50 % is no longer busy" bash -c "'$gpuplan' capacity --since 3d --busy-threshold 55 --json | $py -c '
import json, sys
assert abs(json.load(sys.stdin)[\"fleet\"][\"busy_share\"] - 0.25) < 1e-9'"
check "a threshold off the 5 % grid is refused" bash -c "'$gpuplan' capacity --busy-threshold 7 2>/dev/null; [ \$? = 2 ]"
# Each command takes the options it reads (the rest would be ignored): one line, exit 2, nothing
# on stdout; an option given without the one it needs names both.
refused() { # line args...: exit 2, nothing on stdout, stderr exactly line
    local line=$1; shift
    "$gpuplan" "$@" >"$tmp/refused.out" 2>"$tmp/refused.err"
    [ $? = 2 ] && [ ! -s "$tmp/refused.out" ] && [ "$(cat "$tmp/refused.err")" = "gpuplan: $line" ]
}
check "capacity --match without --prometheus" refused 'capacity: --match needs --prometheus (see --help)' capacity --since 3d --match '{job="x"}'
check "capacity --slice without --prometheus" refused 'capacity: --slice needs --prometheus (see --help)' capacity --slice 7d
check "capacity --ldc --csv: two outputs refused, not one silently dropped" refused 'capacity: --ldc and --csv print different outputs: give one (see --help)' capacity --since 3d --ldc --csv
check "capacity --csv --json: refused" refused 'capacity: --csv and --json print different outputs: give one (see --help)' capacity --since 3d --json --csv
check "capacity --timeout without --prometheus (ignored before)" refused 'capacity: --timeout needs --prometheus (see --help)' capacity --timeout 30s
check "capacity takes no --growth" refused 'capacity: unknown option or missing value: --growth (see --help)' capacity --growth 5%
check "plan takes no --json" refused 'plan: unknown option or missing value: --json (see --help)' plan --mix x --option y --json
check "plan --prometheus: where plan's telemetry comes from" refused 'plan --mix plans on stored telemetry: import --prometheus first' plan --mix x --option y --prometheus http://127.0.0.1:1
check "plan --force-trend without --growth" refused 'plan: --force-trend needs --growth (see --help)' plan --mix x --option y --force-trend
check "scenario measure takes no --by" refused 'scenario measure: unknown option or missing value: --by (see --help)' scenario measure mix --by pod

# The mix: b_t is 6 busy GPUs by day and 2 by night. Owning costs 100 a GPU, renting 1 an
# hour: k = 6 costs 600 (nothing rented), k = 0 costs 730 * 4 = 2,920, k = 8 costs 800.
cat >"$tmp/mix.json" <<'JSON'
{"name": "mix", "horizon_months": 1, "demand": {"gpus": 8, "utilization": 0.5},
 "self_hosted": {"gpus_per_server": 1, "server_price": 100,
   "tariff": {"periods": [{"name": "free", "hours_per_day": 24, "price_per_kwh": 0}]}},
 "cloud_options": [{"name": "od", "pricing": "on_demand", "gpus_per_instance": 1, "hourly": 1}]}
JSON
"$gpuplan" plan --mix "$tmp/mix.json" --option od --since 3d --growth 5%/month --target 0.5 >"$tmp/plan"
check "mix optimum" grep -q 'Own 6 of 8 GPUs .*: 600.00 USD' "$tmp/plan"
check "savings against all-own and all-rent" grep -q 'Saves 200.00 against owning all 8, 2,320.00 against renting everything' "$tmp/plan"
check "the whole curve as CSV" bash -c "'$gpuplan' plan --mix '$tmp/mix.json' --option od --since 3d --csv | $py -c '
import csv, sys
t = {int(r[\"owned_gpus\"]): float(r[\"total\"]) for r in csv.DictReader(sys.stdin)}
assert t == {0: 2920, 1: 2290, 2: 1660, 3: 1395, 4: 1130, 5: 865, 6: 600, 7: 700, 8: 800}, t'"
check "GPUs needed at the target" grep -q 'At 50 % target utilization: 8.0 GPUs needed now' "$tmp/plan"
check "the optimum is said to be for the measured load, growth or not" grep -qx 'The optimum above is for the measured load; --growth does not change it, only the GPUs needed below.' "$tmp/plan"
check "no such line without --growth" bash -c "'$gpuplan' plan --mix '$tmp/mix.json' --option od --since 3d >'$tmp/plan0' && grep -q '^Own 6 of 8' '$tmp/plan0' && ! grep -q 'for the measured load' '$tmp/plan0'"
check "when the scenario's GPUs run out" grep -q 'GPUs (demand.gpus) run out in month 1' "$tmp/plan"
check "the measured fleet by model" grep -q '^Measured fleet: 8 GPUs (8 ' "$tmp/plan"
check "chargeback: all-in cost by pod and idle sum to the fleet's cost" bash -c "'$gpuplan' capacity --since 3d --by pod --scenario '$tmp/mix.json' --json | $py -c '
import json, sys
c = json.load(sys.stdin)
cb = c[\"chargeback\"]
rate = cb[\"allin_per_gpu_hour\"]
assert rate > 0
assert abs(cb[\"fleet_cost\"] - rate * 8 * 48) <= 1e-9 * cb[\"fleet_cost\"], cb   # 8 GPUs, 48 h each
used = sum(r[\"allin_cost\"] for r in c[\"by_label\"])
assert abs(used + cb[\"idle_cost\"] - cb[\"fleet_cost\"]) <= 1e-9 * cb[\"fleet_cost\"], (used, cb)
for r in c[\"by_label\"]:
    assert abs(r[\"allin_cost\"] - r[\"gpu_hours_used\"] * rate) <= 1e-9 * max(1, r[\"allin_cost\"]), r
'"
check "plan --mix with an unknown option lists the scenario's options (exit 2, one line)" bash -c "'$gpuplan' plan --mix '$tmp/mix.json' --option 'p4d spot' --since 3d >'$tmp/noopt.out' 2>'$tmp/noopt.err'; [ \$? = 2 ] && [ ! -s '$tmp/noopt.out' ] && [ \$(wc -l <'$tmp/noopt.err') = 1 ] && grep -qF 'the scenario has no option \"p4d spot\" (its options: \"od\")' '$tmp/noopt.err'"
check "a fitted trend with its R^2" bash -c "'$gpuplan' plan --mix '$tmp/mix.json' --option od --since 3d --growth trend | grep -q 'R^2'"
check "a trend from one or two days: no standard error printed, never nan" bash -c "'$gpuplan' plan --mix '$tmp/mix.json' --option od --since 1d --growth trend > '$tmp/trend1' && grep -qE '^Trend: [-+][0-9.]+ busy GPU-hours a day per day over [12] days?' '$tmp/trend1' && ! grep -qi nan '$tmp/trend1'"
check "a trend from too few days is not projected" bash -c "'$gpuplan' plan --mix '$tmp/mix.json' --option od --since 3d --growth trend | grep -q 'Too few days for a trend.*no projection'"
check "committed options are refused for the mix" bash -c "sed 's/on_demand/committed/' '$tmp/mix.json' >'$tmp/c.json'; '$gpuplan' plan --mix '$tmp/c.json' --option od --since 3d 2>&1 | grep -q committed"

# scenario measure writes the measured demand and power into a new version.
"$gpuplan" scenario save "$tmp/mix.json" >/dev/null
check "scenario measure" bash -c "'$gpuplan' scenario measure mix --since 3d | grep -q 'version 2'"
check "measured figures" bash -c "'$gpuplan' scenario export mix | $py -c '
import json, sys
s = json.load(sys.stdin)
assert s[\"demand\"] == {\"gpus\": 8, \"utilization\": 0.5}, s[\"demand\"]
p = s[\"self_hosted\"][\"power\"]
assert p[\"gpu_idle_w\"] == 60 and p[\"gpu_tdp_w\"] == 325, p
m = s[\"measured\"]
assert m[\"nodes\"] == [\"a\", \"b\"] and m[\"gpus\"] == 8 and m[\"busy_threshold\"] == 0.05
'"
check "the measured scenario reports" bash -c "'$gpuplan' report mix --format json >/dev/null"
check "measure --growth trend: a 3-day trend is recorded, not written" bash -c "'$gpuplan' scenario measure mix --since 3d --growth trend | grep -q 'left as it was: .*fewer than 7 days' && '$gpuplan' scenario export mix | $py -c '
import json, sys
s = json.load(sys.stdin)
assert \"growth_per_month\" not in s[\"demand\"], s[\"demand\"]
g = s[\"measured\"][\"growth\"]
assert g[\"significant\"] is False and g[\"days\"] < 7, g
'"
# A GPU whose busy hours grow by a quarter hour a day for 14 whole UTC days (6 h on the
# first): the trend is exact, so it is significant and written as it is fitted.
$py - "$tmp/grow.prom" <<'PY'
import sys, time
day = 86_400_000
end = int(time.time() * 1000) // day * day
with open(sys.argv[1], 'w') as f:
    for d in range(14):
        busy_ms = (6 + 0.25 * d) * 3_600_000
        t0 = end - (14 - d) * day
        for ts in range(t0, t0 + day, 300_000):
            u = 100 if ts - t0 < busy_ms else 0
            f.write('DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-grow-0",modelName="NVIDIA H100 80GB HBM3",Hostname="grow"} %d %d\n' % (u, ts))
PY
"$gpuplan" --db "$tmp/grow.db" import prom "$tmp/grow.prom" --node grow >/dev/null
"$gpuplan" --db "$tmp/grow.db" scenario save "$tmp/mix.json" >/dev/null
check "measure --growth trend writes a significant trend" bash -c "'$gpuplan' --db '$tmp/grow.db' scenario measure mix --since 15d --growth trend | grep -q '^growth_per_month' && '$gpuplan' --db '$tmp/grow.db' scenario export mix | $py -c '
import json, sys
s = json.load(sys.stdin)
g = s[\"measured\"][\"growth\"]
assert g[\"significant\"] is True and g[\"days\"] == 14, g
# slope 0.25 busy GPU-hours a day per day over the last fitted level, 6 + 0.25 * 13
want = 0.25 * (730 / 24) / (6 + 0.25 * 13)
assert abs(s[\"demand\"][\"growth_per_month\"] - want) < 1e-6, (s[\"demand\"], want)
' && '$gpuplan' --db '$tmp/grow.db' report mix --format json >/dev/null"
check "measure --growth takes trend only" bash -c "'$gpuplan' scenario measure mix --growth 5% 2>/dev/null; [ \$? = 2 ]"
# Its workbook carries a Telemetry sheet: one row a GPU of the measured window, with the
# figures of the profile above.
"$gpuplan" report mix --format xlsx -o "$tmp/mix.xlsx"
check "the Telemetry sheet" $py - "$tmp/mix.xlsx" <<'PY'
import sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1])
assert wb.sheetnames[-2:] == ['Telemetry', 'Sources'], wb.sheetnames
rows = list(wb['Telemetry'].iter_rows(values_only=True))
assert rows[2] == ('node', 'GPU', 'model', 'UUID', 'hours observed', 'mean utilization',
                   'busy share', 'mean power W'), rows[2]
gpus = {(r[0], r[1]): r for r in rows[3:]}
assert sorted(gpus) == [(n, g) for n in 'ab' for g in range(4)], sorted(gpus)
def close(a, b):
    assert abs(a - b) <= 1e-9 * max(1, abs(b)), (a, b)
for n in 'ab':
    close(gpus[n, 2][4], 48.0)          # two days of 5-minute buckets
    close(gpus[n, 2][5], 0.5); close(gpus[n, 2][6], 1.0); close(gpus[n, 2][7], 250)
    close(gpus[n, 0][5], 0.5); close(gpus[n, 0][6], 0.5); close(gpus[n, 0][7], 230)
    close(gpus[n, 3][5], 0.0); close(gpus[n, 3][6], 0.0); close(gpus[n, 3][7], 60)
    # the readable name of "NVIDIA H100 80GB HBM3", as fleet and capacity show it
    assert gpus[n, 0][3] == 'GPU-%s-0' % n and gpus[n, 0][2] == 'H100 SXM 80GB', gpus[n, 0]
PY

# --chargeback-by: the Telemetry sheet shares the all-in cost of a GPU-hour by a label, with
# live formulas. Recalculated by LibreOffice, the rows (idle included) sum to the fleet's cost
# and equal capacity --by pod --scenario; after staff is raised on the Assumptions sheet, they
# equal capacity run on the scenario raised the same way.
"$gpuplan" report mix --format xlsx --chargeback-by pod -o "$tmp/cb.xlsx"
"$gpuplan" capacity --since 3d --by pod --scenario mix --json >"$tmp/cb.json"
"$gpuplan" scenario export mix | $py -c '
import json, sys
s = json.load(sys.stdin)
s["self_hosted"]["staff_per_month"] = 1000
json.dump(s, open(sys.argv[1], "w"))' "$tmp/staff.json"
"$gpuplan" capacity --since 3d --by pod --scenario "$tmp/staff.json" --json >"$tmp/cb-staff.json"
if command -v soffice >/dev/null; then
    check "chargeback in the workbook: live, summing to the fleet, equal to capacity --by" $py - "$tmp" <<'PY'
import json, os, shutil, subprocess, sys, openpyxl
work = sys.argv[1]
profile = os.path.join(work, 'lo-cb')
os.makedirs(os.path.join(profile, 'user'), exist_ok=True)
with open(os.path.join(profile, 'user', 'registrymodifications.xcu'), 'w') as f:  # recalc on load
    f.write('<?xml version="1.0" encoding="UTF-8"?>\n<oor:items xmlns:oor="http://openoffice.org/'
            '2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3'
            '.org/2001/XMLSchema-instance"><item oor:path="/org.openoffice.Office.Calc/Formula/'
            'Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value></prop></item>'
            '</oor:items>\n')
def recalc(path):
    out = os.path.join(work, 'lo-out')
    shutil.rmtree(out, ignore_errors=True)
    subprocess.run(['soffice', '-env:UserInstallation=file://' + profile, '--headless', '--norestore',
                    '--convert-to', 'xlsx', '--outdir', out, path], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=180)
    return os.path.join(out, os.path.basename(path))
def close(a, b, what):
    assert isinstance(a, (int, float)) and abs(a - b) <= 1e-9 * max(1, abs(b)), (what, a, b)
def compare(xlsx, cap):
    ws = openpyxl.load_workbook(xlsx, data_only=True)['Telemetry']
    rows = [tuple(c.value for c in r[:3]) for r in ws.iter_rows()]
    k = rows.index(('Chargeback by pod', None, None))
    rate, present = rows[k + 1][1], rows[k + 2][1]
    assert rows[k + 3] == ('pod', 'busy GPU-hours used', 'all-in cost'), rows[k + 3]
    end = next(i for i in range(k + 4, len(rows)) if rows[i][0] == 'fleet')
    table = {r[0]: r for r in rows[k + 4:end]}
    cb = cap['chargeback']
    close(rate, cb['allin_per_gpu_hour'], 'rate')
    close(present, 8 * 48, 'GPU-hours present')           # 8 GPUs, two days each
    idle = table.pop('(idle: present, used by no one)')
    close(idle[2], cb['idle_cost'], 'idle')
    want = {(r['value'] if r['value'] is not None else '(no label)'): r for r in cap['by_label']}
    assert sorted(table) == sorted(want), (sorted(table), sorted(want))
    for v, r in want.items():
        close(table[v][1], r['gpu_hours_used'], v + ' hours')
        close(table[v][2], r['allin_cost'], v + ' cost')
    close(rows[end][2], cb['fleet_cost'], 'fleet')
    close(sum(r[2] for r in table.values()) + idle[2], rows[end][2], 'rows sum to the fleet')
compare(recalc(os.path.join(work, 'cb.xlsx')), json.load(open(os.path.join(work, 'cb.json'))))
wb = openpyxl.load_workbook(os.path.join(work, 'cb.xlsx'))
a = wb['Assumptions']
staff = next(r for r in range(1, a.max_row + 1) if a.cell(r, 1).value == 'staff')
a.cell(staff, 2).value = 1000
wb.save(os.path.join(work, 'cb-staff.xlsx'))
compare(recalc(os.path.join(work, 'cb-staff.xlsx')),
        json.load(open(os.path.join(work, 'cb-staff.json'))))
PY
else
    echo "FAIL chargeback in the workbook: soffice is not installed"; fails=$((fails + 1))
fi
check "--chargeback-by needs a measured scenario" bash -c "'$gpuplan' report '$tmp/mix.json' --format xlsx --chargeback-by pod -o '$tmp/x.xlsx' 2>&1 | grep -q 'needs a measured scenario'; [ \${PIPESTATUS[0]} = 2 ] && [ ! -e '$tmp/x.xlsx' ]"
check "--chargeback-by is for xlsx" bash -c "'$gpuplan' report mix --chargeback-by pod >/dev/null 2>&1; [ \$? = 2 ]"

# The real captures: imported and summarized without error. The scrapes carry no timestamps
# and are dated by their file's modification time: copied first (a fresh mtime), so they do not
# depend on when the repository was checked out.
export GPUPLAN_DB=$tmp/real.db
i=0
for f in "$root"/tests/fixtures/telemetry/dcgm_exporter/*.prom; do
    i=$((i + 1)); cp "$f" "$tmp/real$i.prom"
    "$gpuplan" import prom "$tmp/real$i.prom" --node "dcgm$i" >/dev/null || { echo "FAIL import $f"; fails=$((fails + 1)); }
done
for f in "$root"/tests/fixtures/telemetry/nvidia_smi_csv/*query-gpu*.csv; do
    i=$((i + 1)); "$gpuplan" import nvsmi "$f" --node "smi$i" >/dev/null || { echo "FAIL import $f"; fails=$((fails + 1)); }
done
check "real captures summarized" bash -c "'$gpuplan' capacity --since 3650d --json | $py -c 'import json,sys; assert json.load(sys.stdin)[\"gpus\"] >= 20'"
check "real captures: text summary" bash -c "'$gpuplan' capacity --since 3650d | grep -q '^fleet'"


# The fleet: every GPU with data shows its last values; old ones are marked stale, never
# left out. The nvidia-smi captures carry their own timestamps, years old.
check "fleet: old GPUs keep their last values, marked stale" bash -c "'$gpuplan' fleet --json | $py -c '
import json, sys
old = [r for r in json.load(sys.stdin) if r[\"node\"].startswith(\"smi\")]
assert old, \"no nvidia-smi rows\"
for r in old:
    assert r[\"stale\"] is True and r[\"age_s\"] > 86400, r
    assert \"gpu_util\" in r or \"power_w\" in r, r
'"
# GPU names: the raw name as reported, the readable one, and the catalog key for matching.
check "fleet --json: raw, display and key names" bash -c "'$gpuplan' fleet --json | $py -c '
import json, sys
rows = json.load(sys.stdin)
names = {(r[\"raw_model\"], r[\"display\"], r[\"model\"]) for r in rows}
for want in [(\"NVIDIA GeForce RTX 2080 SUPER\", \"RTX 2080 SUPER\", \"RTX2080SUPER\"),
             (\"NVIDIA H100 80GB HBM3\", \"H100 SXM 80GB\", \"H100\"),
             (\"Tesla T4\", \"T4\", \"T4\"), (\"NVIDIA L40S\", \"L40S\", \"L40S\")]:
    assert want in names, (want, names)
'"
check "fleet: the readable name in the text" bash -c "'$gpuplan' fleet | grep -E '^smi' | grep -q 'RTX 2080 SUPER'"
check "capacity: a model row reads as the GPU reported it, keyed as the catalog" bash -c "
    '$gpuplan' capacity --since 3650d | grep -q '^model RTX 2080 SUPER ' &&
    '$gpuplan' capacity --since 3650d --json | $py -c 'import json,sys; assert json.load(sys.stdin)[\"models\"][\"RTX2080SUPER\"][\"display\"] == \"RTX 2080 SUPER\"'"
check "capacity --gpu matches the key as typed ('H100 SXM', 'h100')" bash -c "
    a=\$('$gpuplan' capacity --since 3650d --gpu 'H100 SXM' --json | $py -c 'import json,sys; print(json.load(sys.stdin)[\"gpus\"])')
    b=\$('$gpuplan' capacity --since 3650d --gpu h100 --json | $py -c 'import json,sys; print(json.load(sys.stdin)[\"gpus\"])')
    [ \"\$a\" = \"\$b\" ] && [ \"\$a\" -ge 8 ]"
# A family the catalog does not know is keyed by its whole cleaned name; the name people read
# for it finds it, and the per-GPU rows show that name.
printf 'DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-ada-0",modelName="NVIDIA RTX 2000 Ada Generation",Hostname="ada"} 40\n' >"$tmp/ada.prom"
"$gpuplan" --db "$tmp/ada.db" import prom "$tmp/ada.prom" --node ada >/dev/null
check "capacity --gpu by the readable name of an unknown family" bash -c "
    for g in 'RTX 2000 Ada' 'NVIDIA RTX 2000 Ada Generation'; do
        '$gpuplan' --db '$tmp/ada.db' capacity --since 3650d --gpu \"\$g\" --json |
            $py -c 'import json,sys; d = json.load(sys.stdin); assert d[\"gpus\"] == 1, d[\"gpus\"]' || exit 1
    done
    '$gpuplan' --db '$tmp/ada.db' capacity --since 3650d --gpu 'RTX 2000' --json |
        $py -c 'import json,sys; assert json.load(sys.stdin)[\"gpus\"] == 0'"
check "capacity: per-GPU rows show the readable name, JSON both" bash -c "
    '$gpuplan' --db '$tmp/ada.db' capacity --since 3650d | grep -E '^  ada gpu 0 ' | grep -q 'RTX 2000 Ada' &&
    '$gpuplan' --db '$tmp/ada.db' capacity --since 3650d --json | $py -c '
import json, sys
g = json.load(sys.stdin)[\"gpu_list\"][0]
assert (g[\"model\"], g[\"display\"]) == (\"RTX2000ADAGENERATION\", \"RTX 2000 Ada\"), g'"
check "plan --mix: the measured fleet by its readable name" bash -c "
    '$gpuplan' --db '$tmp/ada.db' plan --mix '$tmp/mix.json' --option od --since 3650d --growth 5%/month |
        grep -q '^Measured fleet: 1 GPU (1 RTX 2000 Ada)'"
check "fleet: stale in the text with its age" bash -c "'$gpuplan' fleet | grep -E '^smi' | grep -qE 'stale [0-9]+ d'"
# Scrapes without timestamps (hot, mig, idle below) are dated by their file's modification
# time: written just before their import, so they are fresh.
printf 'DCGM_FI_DEV_GPU_TEMP{gpu="0",UUID="GPU-hot-0",modelName="NVIDIA H100 80GB HBM3",Hostname="hot"} 91\nDCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-hot-0",modelName="NVIDIA H100 80GB HBM3",Hostname="hot"} 50\n' >"$tmp/hot.prom"
check "fleet --fail-on-alert: 0 without an alert" bash -c "'$gpuplan' --db '$tmp/empty.db' fleet --fail-on-alert >/dev/null"
"$gpuplan" import prom "$tmp/hot.prom" --node hot >/dev/null
check "fleet --fail-on-alert: 4 with a hot GPU" bash -c "'$gpuplan' fleet --fail-on-alert >/dev/null; [ \$? = 4 ]"
check "fleet: the fresh hot GPU is not stale" bash -c "'$gpuplan' fleet | grep -E '^hot ' | grep -v stale | grep -q hot"
check "--db after the command name" bash -c "'$gpuplan' scenario list --db '$tmp/after.db' >/dev/null && [ -f '$tmp/after.db' ]"

# One GPU is "1 GPU": the import, the fleet, the measured plan and plan --mix say so.
export GPUPLAN_DB=$tmp/one.db
{
    echo 'timestamp, name, utilization.gpu [%], power.draw [W]'
    for ago in 40 35 30 25 20 15 10 5; do
        echo "$(date -d "-$ago min" '+%Y/%m/%d %H:%M:%S').000, NVIDIA H100 80GB HBM3, 80 %, 600.00 W"
    done
} >"$tmp/one.csv"
check "import: 1 GPU" bash -c "'$gpuplan' import nvsmi '$tmp/one.csv' --node solo | grep -qx 'imported 16 samples of 1 GPU into node \"solo\"'"
check "fleet: 1 GPU" bash -c "'$gpuplan' fleet | grep -q '^1 GPU, 0 with alerts'"
# MIG instances are slices of a GPU: one H100 split in two beside a whole one is 2 GPUs and 2
# instances, in the import and the fleet alike, never "4 GPUs".
{
    l='modelName="NVIDIA H100 80GB HBM3",Hostname="m"'
    echo "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"0\",UUID=\"GPU-mig-0\",$l,GPU_I_ID=\"1\",GPU_I_PROFILE=\"3g.40gb\"} 0.8"
    echo "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"0\",UUID=\"GPU-mig-0\",$l,GPU_I_ID=\"2\",GPU_I_PROFILE=\"3g.40gb\"} 0.2"
    echo "DCGM_FI_DEV_GPU_UTIL{gpu=\"1\",UUID=\"GPU-whole-1\",$l} 50"
} >"$tmp/mig.prom"
check "import: MIG instances counted apart from GPUs" bash -c "'$gpuplan' --db '$tmp/mig.db' import prom '$tmp/mig.prom' --node m | grep -qx 'imported 4 samples of 2 GPUs and 2 MIG instances into node \"m\"'"
check "fleet: MIG instances counted apart from GPUs" bash -c "'$gpuplan' --db '$tmp/mig.db' fleet | grep -q '^2 GPUs and 2 MIG instances, 0 with alerts'"
"$gpuplan" scenario save "$tmp/mix.json" >/dev/null
"$gpuplan" scenario measure mix --since 1d >"$tmp/one.measure"
check "measure: 1 GPU" grep -q '^saved "mix" as version 2: 1 GPU, ' "$tmp/one.measure"
# Always busy: no idle bucket, so the saved idle draw is the busy one, and the line says so
# rather than "idle 0.0 W".
check "measure: the idle draw saved, and why" grep -qF '100.0 % busy, idle 600.0 W (no idle GPU-bucket: the busy draw), busy 600.0 W' "$tmp/one.measure"
check "measure: the scenario holds what the line says" bash -c "'$gpuplan' scenario export mix | $py -c '
import json, sys
p = json.load(sys.stdin)[\"self_hosted\"][\"power\"]
assert (p[\"gpu_idle_w\"], p[\"gpu_tdp_w\"]) == (600, 600), p'"
"$gpuplan" plan --mix mix --option od --since 1d >"$tmp/one.plan"
check "plan --mix: of 1 GPU, 1 GPU measured" bash -c "grep -q '^Own [01] of 1 GPU and rent' '$tmp/one.plan' && grep -qE '^Load: [0-9]+ complete 5-minute buckets? .*, 1 GPU measured;' '$tmp/one.plan'"

# A capture that names its GPU by UUID and gives no index: the fleet says "-", not -1.
{
    echo 'timestamp, name, uuid, utilization.gpu [%]'
    echo "$(date -d '-5 min' '+%Y/%m/%d %H:%M:%S').000, NVIDIA L40S, GPU-noidx-0, 30 %"
} >"$tmp/noidx.csv"
"$gpuplan" --db "$tmp/noidx.db" import nvsmi "$tmp/noidx.csv" --node noidx >/dev/null
check "fleet: a GPU without an index shows -" bash -c "'$gpuplan' --db '$tmp/noidx.db' fleet | grep -qE '^noidx +noidx +- L40S'"

# A node whose GPUs were never busy has no useful GPU-hour to cost: "-" in the text, as --json
# leaves cost_per_useful_gpu_hour out, never 0.0000.
i='gpu="0",UUID="GPU-idle-0",modelName="NVIDIA L40S",Hostname="idlebox"'
printf 'DCGM_FI_DEV_GPU_UTIL{%s} 0\nDCGM_FI_DEV_POWER_USAGE{%s} 35\n' "$i" "$i" >"$tmp/idle.prom"
"$gpuplan" --db "$tmp/idle.db" import prom "$tmp/idle.prom" --node idlebox >/dev/null
check "capacity: no busy hour, no cost of a useful one" bash -c "'$gpuplan' --db '$tmp/idle.db' capacity --since 1d --price-per-kwh 0.1 | grep -E '^  idlebox ' | grep -qE ' kWh, +- per useful GPU-hour, '"
check "capacity --json: left out" bash -c "'$gpuplan' --db '$tmp/idle.db' capacity --since 1d --price-per-kwh 0.1 --json | $py -c 'import json,sys; assert \"cost_per_useful_gpu_hour\" not in json.load(sys.stdin)[\"nodes\"][\"idlebox\"]'"

# Two GPUs that never reported in the same 5-minute bucket: no complete bucket, so no load
# duration curve, said as such (text) and null (JSON), never a row of zeros that reads as idle.
a='gpu="0",UUID="GPU-apart-0",modelName="NVIDIA L40S",Hostname="apart"'
b='gpu="1",UUID="GPU-apart-1",modelName="NVIDIA L40S",Hostname="apart"'
t0=$(( ($(date +%s) / 300 * 300 - 1800) * 1000 ))
printf 'DCGM_FI_DEV_GPU_UTIL{%s} 90 %s\nDCGM_FI_DEV_GPU_UTIL{%s} 80 %s\n' "$a" "$t0" "$b" "$((t0 + 600000))" >"$tmp/apart.prom"
"$gpuplan" --db "$tmp/apart.db" import prom "$tmp/apart.prom" --node apart >/dev/null
check "capacity: no complete bucket, no curve (text)" bash -c "'$gpuplan' --db '$tmp/apart.db' capacity --since 1d | grep -A1 '^Load duration' | grep -qx '  none: no complete 5-minute bucket in the window (one where every GPU reported)'"
check "capacity: no complete bucket, null quantiles (JSON)" bash -c "'$gpuplan' --db '$tmp/apart.db' capacity --since 1d --json | $py -c 'import json,sys; l = json.load(sys.stdin)[\"load_duration\"]; assert len(l) == 11 and all(v is None for v in l.values()), l'"

finish "capacity"
