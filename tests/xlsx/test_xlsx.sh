#!/usr/bin/env bash
# The workbook in a real LibreOffice: every worked scenario, version 1 and 2, recalculated and
# compared with the engine, then recalculated again after assumptions change in the file
# (growth, price trends, the lead time, the start date and fiscal year); hostile names stay
# text; a three-option report prints in at most 8 pages through LibreOffice's PDF export.
set -u
gpuplan=$1 root=$2
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp GPUPLAN_DB=$tmp/db
fails=0
# The examples, and plans that pin a rule of their own (scenarios/: level months, 2.1).
for scen in "$root"/tests/fixtures/examples/*.json "$root"/tests/fixtures/scenarios/*.json; do
    case $scen in *.expected.json) continue ;; esac
    name=$(basename "$scen" .json)
    if $py "$root/tests/xlsx/check_xlsx.py" "$gpuplan" "$scen" "$tmp/$name" >"$tmp/$name.log" 2>&1; then
        echo "ok $name"
    else
        echo "FAIL $name"; cat "$tmp/$name.log"; fails=$((fails + 1))
    fi
done
# Names from outside that look like formulas are written as strings, controls removed.
cat >"$tmp/hostile.json" <<'JSON'
{"name": "=HYPERLINK(\"http://x\",\"y\")", "horizon_months": 3, "demand": {"gpus": 8, "utilization": 0.5},
 "self_hosted": {"server_price": 1000, "tariff": {"periods": [{"name": "@evil\u0007", "hours_per_day": 24, "price_per_kwh": 0.1}]}},
 "cloud_options": [{"name": "+cmd|' /C calc'!A0", "pricing": "on_demand", "gpus_per_instance": 8, "hourly": 2},
                   {"name": "-2+3\t\r", "pricing": "spot", "gpus_per_instance": 8, "hourly": 1}]}
JSON
"$gpuplan" report "$tmp/hostile.json" --format xlsx -o "$tmp/hostile.xlsx"
if $py - "$tmp/hostile.xlsx" <<'PY'
import sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1])
cells = [c for ws in wb for row in ws.iter_rows() for c in row if isinstance(c.value, str)]
def find(prefix):
    return [c for c in cells if prefix in c.value]
for p in ['=HYPERLINK', '+cmd', '-2+3', '@evil']:
    found = find(p)
    assert found, p
    assert all(c.data_type == 's' for c in found), p  # text, never a formula
assert not any(ch in c.value for c in cells for ch in '\x07\t\r'), 'control characters kept'
PY
then echo "ok hostile names stay text"; else echo "FAIL hostile names"; fails=$((fails + 1)); fi
# Printing: a three-option report (version 1's seed, and a version 2 plan over 48 months with
# refreshes) exports to PDF through LibreOffice in at most 8 pages (fit to width, landscape
# where wide, header rows repeated).
"$py" - "$root/tests/fixtures/examples/v2-lead-cadence-trend-refresh-bulk-tou-shift.json" "$tmp/three.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s['cloud_options'].append({'name': 'H200 spot', 'gpus_per_instance': 8, 'pricing': 'spot',
                           'hourly': 14.0, 'interruptions_per_hour': 0.05})
json.dump(s, open(sys.argv[2], 'w'))
PY
for scen in "$root/tests/fixtures/examples/seed-dgx-a100.json" "$tmp/three.json"; do
    name=$(basename "$scen" .json)
    "$gpuplan" report "$scen" --format xlsx -o "$tmp/print-$name.xlsx"
    soffice -env:UserInstallation=file://"$tmp/lo-pdf" --headless --norestore --convert-to pdf \
        --outdir "$tmp/pdf" "$tmp/print-$name.xlsx" >/dev/null 2>&1
    pages=$("$py" -c 'import re, sys; print(len(re.findall(rb"/Type\s*/Page[^s]", open(sys.argv[1], "rb").read())))' "$tmp/pdf/print-$name.pdf" 2>/dev/null)
    if [ -n "$pages" ] && [ "$pages" -ge 1 ] && [ "$pages" -le 8 ]; then
        echo "ok $name prints in $pages pages"
    else
        echo "FAIL $name prints in ${pages:-no} pages (at most 8)"; fails=$((fails + 1))
    fi
done
# --fiscal-year-start sets the workbook's input; the fiscal table's years follow it (cached
# values before any recalculation); a month outside 1..12, or another format, is bad usage.
seed=$root/tests/fixtures/examples/seed-dgx-a100.json
"$gpuplan" report "$seed" --format xlsx --fiscal-year-start 4 --as-of 2026-11-22 -o "$tmp/fy.xlsx"
if $py - "$tmp/fy.xlsx" <<'PY'
import sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1], data_only=True)
a = wb['Assumptions']
rows = {a.cell(r, 1).value: r for r in range(2, a.max_row + 1)}
assert a.cell(rows['fiscal year starts in month (1 = calendar year)'], 2).value == 4
su = wb['Summary']
t = next(r for r in range(1, su.max_row + 1) if str(su.cell(r, 1).value).startswith('fiscal year'))
# 2026-11-22 start, 36 months, April: FY2027 (Nov 2026 - Mar 2027) .. FY2030 (Apr - Oct 2029).
assert [su.cell(t + 1 + k, 1).value for k in range(4)] == [2027, 2028, 2029, 2030]
# The report's opening, below the tables: the utilization and electricity and their sources.
texts = [str(su.cell(r, 1).value) for r in range(1, su.max_row + 1)]
w = texts.index('What decides this (as written; the figures above recalculate)')
assert texts[w + 1].startswith('Utilization 60 %: given in the scenario'), texts[w + 1]
assert texts[w + 2].startswith('Electricity '), texts[w + 2]
assert any(t.startswith('Against "') for t in texts[w + 3:]), texts[w:]
PY
then echo "ok --fiscal-year-start"; else echo "FAIL --fiscal-year-start"; fails=$((fails + 1)); fi
# Spot can be reclaimed: the seed's cheapest is its spot option, so the Summary names the
# cheapest with guaranteed capacity, its total and the reclaim line; dearer spot in the file
# (recalculated by LibreOffice) makes self-hosted the cheapest and the line goes.
# A LibreOffice profile that recalculates a workbook on load, as check_xlsx.py's does.
lo_profile() {
    mkdir -p "$1/user"
    cat >"$1/user/registrymodifications.xcu" <<'XCU'
<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value></prop></item></oor:items>
XCU
}
lo_profile "$tmp/lo-spot"
"$gpuplan" report "$seed" --format xlsx --as-of 2026-11-22 -o "$tmp/spot.xlsx"
if $py - "$tmp/spot.xlsx" "$tmp" <<'PY'
import os, subprocess, sys, openpyxl
book, tmp = sys.argv[1:3]
su = openpyxl.load_workbook(book, data_only=True)['Summary']
want = ('p4d spot', 'self-hosted', 'p4d spot rests on spot capacity, which the provider can '
        'reclaim; cheapest with guaranteed capacity: self-hosted.')
assert (su['B2'].value, su['B3'].value, su['A4'].value) == want, (su['B2'].value, su['B3'].value, su['A4'].value)
assert su['C3'].value == su['B11'].value and su['A11'].value == 'self-hosted', su['C3'].value
profile = os.path.join(tmp, 'lo-spot')  # lo_profile's
wb = openpyxl.load_workbook(book)
a = wb['Assumptions']
row = next(r for r in range(1, a.max_row + 1) if a.cell(r, 1).value == 'p4d spot: hourly')
a.cell(row, 2).value = 40
wb.save(os.path.join(tmp, 'spot-dear.xlsx'))
subprocess.run(['soffice', '-env:UserInstallation=file://' + profile, '--headless',
                '--norestore', '--convert-to', 'xlsx', '--outdir', os.path.join(tmp, 'spot-out'),
                os.path.join(tmp, 'spot-dear.xlsx')], check=True, capture_output=True, timeout=180)
su = openpyxl.load_workbook(os.path.join(tmp, 'spot-out', 'spot-dear.xlsx'), data_only=True)['Summary']
assert (su['B2'].value, su['B3'].value, su['A4'].value) in (('self-hosted', 'self-hosted', ''),
        ('self-hosted', 'self-hosted', None)), (su['B2'].value, su['B3'].value, su['A4'].value)
PY
then echo "ok Summary: the cheapest with guaranteed capacity, live"; else echo "FAIL Summary guaranteed"; fails=$((fails + 1)); fi
# Beside the guaranteed total (D3), live as the Markdown says it, in LibreOffice and Gnumeric:
# two on-demand options at the same price tie ("A tie with od2"), and a dearer od2 in the file
# unties them; owning with no exit value says it is credited at 0, and a cheap on-demand price
# in the file moves the guaranteed side off self-hosted, and the sentence goes.
$py - "$seed" "$tmp/tie.json" "$tmp/own.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s['cloud_options'] = [dict(s['cloud_options'][0], name='od'), dict(s['cloud_options'][0], name='od2')]
json.dump(s, open(sys.argv[3], 'w'))
s['self_hosted']['server_price'] = 2500000
json.dump(s, open(sys.argv[2], 'w'))
PY
"$gpuplan" report "$tmp/tie.json" --format xlsx -o "$tmp/tie.xlsx"
"$gpuplan" report "$tmp/own.json" --format xlsx -o "$tmp/own.xlsx"
lo_profile "$tmp/lo-tie"
if $py - "$tmp/tie.xlsx" "$tmp/own.xlsx" "$tmp" <<'PY'
import os, subprocess, sys, openpyxl
tie, own, tmp = sys.argv[1:4]
credited = ("Self-hosted's total includes no exit value: hardware still held at month 36 is "
            'credited at 0.')
profile = os.path.join(tmp, 'lo-tie')  # lo_profile's
def recalc(path, engine):
    out = os.path.join(tmp, 'tie-' + engine)
    os.makedirs(out, exist_ok=True)
    if engine == 'gnumeric':
        cmd = ['ssconvert', '--recalc', path, os.path.join(out, os.path.basename(path))]
    else:
        cmd = ['soffice', '-env:UserInstallation=file://' + profile, '--headless', '--norestore',
               '--convert-to', 'xlsx', '--outdir', out, path]
    subprocess.run(cmd, check=True, capture_output=True, timeout=180)
    return openpyxl.load_workbook(os.path.join(out, os.path.basename(path)), data_only=True)['Summary']
def edited(book, option, hourly, name):
    wb = openpyxl.load_workbook(book)
    a = wb['Assumptions']
    row = next(r for r in range(1, a.max_row + 1) if a.cell(r, 1).value == option + ': hourly')
    a.cell(row, 2).value = hourly
    path = os.path.join(tmp, name)
    wb.save(path)
    return path
def line(su):
    return (su['B3'].value, su['D3'].value or '')
su = openpyxl.load_workbook(tie, data_only=True)['Summary']  # cached, as gpuplan decides
assert line(su) == ('od', 'A tie with od2: the same total.'), line(su)
su = openpyxl.load_workbook(own, data_only=True)['Summary']
assert line(su) == ('self-hosted', credited), line(su)
for engine in ('libreoffice', 'gnumeric'):
    assert line(recalc(tie, engine)) == ('od', 'A tie with od2: the same total.'), engine
    assert line(recalc(edited(tie, 'od2', 40, 'untied.xlsx'), engine)) == ('od', ''), engine
    assert line(recalc(edited(tie, 'od', 40, 'od-dear.xlsx'), engine)) == ('od2', ''), engine
    assert line(recalc(own, engine)) == ('self-hosted', credited), engine
    assert line(recalc(edited(own, 'od', 1, 'own-dear.xlsx'), engine)) == ('od', ''), engine
PY
then echo "ok Summary: a tie and the exit value credited at 0 beside the guaranteed total, live"; else echo "FAIL Summary guaranteed tie / exit value"; fails=$((fails + 1)); fi
# Viewers that do not recalculate show the cached values: the plan's start date on Summary
# and each Plan row's month, year and fiscal year are cached as EDATE gives them (a 31st
# start falls on a shorter month's last day), never 0 (1899-12-30).
$py - "$seed" "$tmp/start.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s['start_date'] = '2027-01-31'
json.dump(s, open(sys.argv[2], 'w'))
PY
"$gpuplan" report "$tmp/start.json" --format xlsx --fiscal-year-start 4 -o "$tmp/start.xlsx"
if $py - "$tmp/start.xlsx" <<'PY'
import datetime, sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1], data_only=True)
assert wb['Summary']['B5'].value == datetime.datetime(2027, 1, 31), wb['Summary']['B5'].value
p = wb['Plan']
head = [p.cell(1, c).value for c in range(1, p.max_column + 1)]
d, y, fy = (head.index(h) + 1 for h in ('month (begins)', 'year', 'fiscal year'))
got = [(p.cell(r, d).value.date(), p.cell(r, y).value, p.cell(r, fy).value) for r in (2, 3, 4, 5)]
D = datetime.date
want = [(D(2027, 1, 31), 2027, 2027), (D(2027, 1, 31), 2027, 2027),
        (D(2027, 2, 28), 2027, 2027), (D(2027, 3, 31), 2027, 2027)]
assert got == want, got
r = 4 + 2  # month 4: April 2027 (30 days), the first month of fiscal 2028
assert (p.cell(r, d).value.date(), p.cell(r, fy).value) == (D(2027, 4, 30), 2028), r
PY
then echo "ok cached dates"; else echo "FAIL cached dates"; fails=$((fails + 1)); fi
# The Sources sheet names the server purchase price's source: the draft's note, else the
# scenario itself.
$py - "$seed" "$tmp/noted.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s['notes'] = ('Drafted by gpuplan on 2026-11-22. Server price: DGX H100 (2026-10-01, acme hardware '
              'list) scaled to 8 GPUs a server. GPU busy draw: TDP 700 W.')
json.dump(s, open(sys.argv[2], 'w'))
PY
"$gpuplan" report "$tmp/noted.json" --format xlsx -o "$tmp/noted.xlsx"
"$gpuplan" report "$seed" --format xlsx -o "$tmp/plain.xlsx"
if $py - "$tmp/noted.xlsx" "$tmp/plain.xlsx" "$seed" <<'PY'
import json, sys, openpyxl
price = json.load(open(sys.argv[3]))['self_hosted']['server_price']
for path, want in [(sys.argv[1], 'DGX H100 (2026-10-01, acme hardware list) scaled to 8 GPUs a server'),
                   (sys.argv[2], 'given in the scenario (self_hosted.server_price)')]:
    src = openpyxl.load_workbook(path)['Sources']
    rows = [r for r in src.iter_rows(values_only=True) if r[0] == 'server purchase price']
    assert len(rows) == 1, rows
    assert rows[0][3] == price and want in rows[0][6], rows[0]
PY
then echo "ok Sources names the server price's source"; else echo "FAIL Sources server price"; fails=$((fails + 1)); fi
for bad in "--fiscal-year-start 13 --format xlsx -o $tmp/x.xlsx" "--fiscal-year-start 4 --format md"; do
    # shellcheck disable=SC2086
    "$gpuplan" report "$seed" $bad >/dev/null 2>&1
    if [ $? = 2 ]; then echo "ok refused: $bad"; else echo "FAIL not refused: $bad"; fails=$((fails + 1)); fi
done
check_refused() { "$gpuplan" report "$root/tests/fixtures/examples/seed-dgx-a100.json" --format xlsx 2>/dev/null; [ $? = 2 ]; }
if check_refused; then echo "ok xlsx needs -o"; else echo "FAIL xlsx without -o"; fails=$((fails + 1)); fi
echo "xlsx: $fails failed"
[ "$fails" = 0 ]
