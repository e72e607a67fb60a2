#!/usr/bin/env bash
# Every worked scenario of docs/model.md (tests/fixtures/examples) through the real binary: the
# whole report JSON must match the expected one (every key of it, numbers to a relative 1e-9),
# as_of must be the report date and start_date the scenario's or else as_of, and the CSV and
# Markdown reports must agree with it. First, the comparer itself must catch a changed number, a
# missing key and a changed discrete value, or a passing run would prove nothing.
set -u
gpuplan=$1 examples=$2 cmp=$3
py=/usr/bin/python3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export GPUPLAN_DB=$tmp/db
fail=0
first=$(ls "$examples"/*.expected.json | head -n 1)
for mutation in number missing discrete; do
    $py - "$first" "$tmp/mutated.json" "$mutation" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
kind = sys.argv[3]
if kind == 'number':
    rep['self_hosted']['monthly'][-1] *= 1 + 1e-8
elif kind == 'missing':
    del rep['options'][0]['payback_month_without_exit']
else:
    rep['self_hosted']['purchases'][0]['refresh'] = not rep['self_hosted']['purchases'][0]['refresh']
json.dump(rep, open(sys.argv[2], 'w'))
PY
    if $py "$cmp" "$first" "$tmp/mutated.json" >/dev/null; then
        echo "FAIL cmp_report accepts a report with a $mutation change"; fail=1
    fi
done
for scen in "$examples"/*.json; do
    case $scen in *.expected.json) continue ;; esac
    name=$(basename "$scen" .json)
    if ! "$gpuplan" report "$scen" --format json --as-of 2026-01-15 -o "$tmp/$name.json"; then
        echo "FAIL $name: report exited $?"; fail=1; continue
    fi
    if ! $py "$cmp" "$examples/$name.expected.json" "$tmp/$name.json"; then
        echo "FAIL $name: report differs from $name.expected.json"; fail=1; continue
    fi
    $py - "$scen" "$tmp/$name.json" <<'PY' || { echo "FAIL $name: as_of or start_date"; fail=1; }
import json, sys
scen, rep = (json.load(open(p)) for p in sys.argv[1:])
assert rep['as_of'] == '2026-01-15', rep['as_of']
assert rep['start_date'] == scen.get('start_date', rep['as_of']), rep['start_date']
assert rep['model_version'] == 2, rep['model_version']
PY
    "$gpuplan" report "$scen" --format csv --as-of 2026-01-15 -o "$tmp/$name.csv" || { echo "FAIL $name: csv"; fail=1; }
    # The CSV's rows must agree with the JSON month by month: flows, cumulative costs, the
    # servers bought, sold and in service, demand, the month labels and the break-even marks.
    $py - "$tmp/$name.json" "$tmp/$name.csv" <<'PY' || { echo "FAIL $name: csv vs json"; fail=1; }
import csv, json, math, sys
rep = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
M, sh, opts = rep['horizon_months'], rep['self_hosted'], rep['options']
assert len(rows) == M + 1, len(rows)
# The CSV prints money to cents and other figures to 4 significant digits (numfmt.h): a cell
# must equal the engine's figure rounded so, which is within half a cent (plus the float noise
# of the sum), or half a unit of the 4th significant digit.
def cents(a, b):
    return abs(a - b) <= 0.005 + 1e-9 * max(1, abs(b))
def sig4(a, b):
    return float('%.4g' % b) == a or abs(a - b) <= 0.5 * 10 ** (math.floor(math.log10(abs(b))) - 3) if b else a == 0
y, mo = map(int, rep['start_date'][:7].split('-'))
cum = {o['name']: 0.0 for o in opts}; cs = 0.0
for m, row in enumerate(rows):
    assert int(row['index']) == m
    cs += sh['monthly'][m]
    assert cents(float(row['self_hosted']), sh['monthly'][m]) and cents(float(row['self_hosted_cumulative']), cs), m
    for o in opts:
        cum[o['name']] += o['monthly'][m]
        assert cents(float(row[o['name']]), o['monthly'][m]) and cents(float(row[o['name'] + ' cumulative']), cum[o['name']]), (m, o['name'])
    marks = [o['name'] for o in opts if o['break_even_month'] == m]
    assert row['break_even'] == '; '.join(marks), (m, row['break_even'], marks)
    bought = sum(p['servers'] for p in sh['purchases'] if p['index'] == m)
    sold = sum(x['servers'] for x in sh['sales'] if x['index'] == m)
    assert (int(row['servers_bought']), int(row['servers_sold'])) == (bought, sold), m
    if m == 0:
        assert row['month'] == rep['start_date'], row['month']
        continue
    k = y * 12 + mo - 1 + m - 1
    assert row['month'] == '%04d-%02d' % (k // 12, k % 12 + 1), (m, row['month'])
    assert int(row['servers_in_service']) == sh['servers_in_service'][m - 1], m
    assert sig4(float(row['work']), rep['demand']['work'][m - 1]), m
    assert sig4(float(row['utilization']), rep['demand']['utilization'][m - 1]), m
    assert all(len(c.split('.')[1]) <= 2 for c in (row['self_hosted'], row['self_hosted_cumulative']) if '.' in c), m
    gpus = rep['demand']['gpus']
    assert row['gpus'] == ('' if gpus is None else str(gpus[m - 1])), m
# 2.1: the exit value (the sales at M) is stated with its basis in the last row, in no other.
ev = sum(x['value'] for x in sh['sales'] if x['end'])
assert abs(sh['exit_value'] - ev) <= 1e-9 * max(1, ev), (sh['exit_value'], ev)
scen = rep['scenario_json']['self_hosted']
basis = ('resale' if scen.get('resale') else 'straight_line'
         if scen.get('buy') == 'as_needed' or scen.get('refresh_months', 0) > 0 else 'residual_pct')
assert sh['exit_value_basis'] == basis, (sh['exit_value_basis'], basis)
assert all(r['exit_value'] == r['exit_value_basis'] == '' for r in rows[:-1])
if ev:
    assert cents(float(rows[-1]['exit_value']), ev), rows[-1]['exit_value']
    words = {'resale': 'resale curve', 'straight_line': 'straight line', 'residual_pct': 'flat'}
    assert words[basis] in rows[-1]['exit_value_basis'], rows[-1]['exit_value_basis']
else:
    assert rows[-1]['exit_value'] == rows[-1]['exit_value_basis'] == ''
PY
    "$gpuplan" report "$scen" -o "$tmp/$name.md" || { echo "FAIL $name: md"; fail=1; }
    # 2.1: beside self-hosted's total, the exit value and its basis whenever it is not 0.
    $py - "$tmp/$name.json" "$tmp/$name.md" <<'PY' || { echo "FAIL $name: md exit value"; fail=1; }
import json, sys
rep, md = json.load(open(sys.argv[1])), open(sys.argv[2]).read()
ev = rep['self_hosted']['exit_value']
if ev:
    line = "Self-hosted's total includes an exit value of {:,.2f} {} credited at month {}".format(
        ev, rep['currency'], rep['horizon_months'])
    assert line in md, line
    assert 'resale value | 0' not in md
else:
    assert 'exit value of' not in md
    if rep['self_hosted']['servers'] > 0:
        line = "Self-hosted's total includes no exit value: hardware still held at month {} is credited at 0.".format(
            rep['horizon_months'])
        assert line in md, line
PY
    cheapest=$($py -c 'import json,sys; print(json.load(open(sys.argv[1]))["cheapest"])' "$tmp/$name.json")
    [ "$cheapest" = self_hosted ] && cheapest=self-hosted
    grep -qF "Cheapest over" "$tmp/$name.md" && grep -qF "$cheapest" "$tmp/$name.md" ||
        { echo "FAIL $name: md does not name the cheapest ($cheapest)"; fail=1; }
    echo "ok $name"
done
exit $fail
